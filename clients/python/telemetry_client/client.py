"""The hand-written layer over the generated client: what users of the API write each time.

    from telemetry_client import TelemetryClient

    client = TelemetryClient("http://127.0.0.1:8000", key="svc_live_...")
    for device in client.iterate("/devices", search="climate"):     # every page
        ...
    frame = client.query(devices={"ids": [...]}, fields=["temperature"],
                         from_="now-P7D", to="now", resolution="hourly").to_polars()

`client.api` is the generated AuthenticatedClient on the same connection (retries
included), for the typed calls of `telemetry_client.generated.api`. Parameters are given in
Python's spelling (`sub_account_id`) or the API's (`subAccountId`); datetimes are sent as
RFC 3339 UTC.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from telemetry_client.errors import ApiError, raise_for_envelope
from telemetry_client.frames import ExportResult, HistoryResult, QueryResult
from telemetry_client.generated.client import AuthenticatedClient
from telemetry_client.retry import AsyncRetryTransport, RetryTransport
from telemetry_client.stream import StreamEvent, parse_events

API = "/api/v1"
MAX_WAIT_SECONDS = 60
# Network failures an export or a stream recovers from by asking again where it stopped.
RECOVERABLE = (httpx.TransportError,)


def camel(name: str) -> str:
    """`sub_account_id` -> `subAccountId`; a name already in the API's spelling is kept."""
    head, *rest = name.rstrip("_").split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def wire(value: Any) -> Any:
    """A parameter's value as the API reads it."""
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value.astimezone(UTC).isoformat().replace("+00:00", "Z")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple | set | frozenset):
        return ",".join(str(wire(item)) for item in value)
    return value


def params(values: Mapping[str, Any]) -> dict[str, Any]:
    return {camel(name): wire(value) for name, value in values.items() if value is not None}


@dataclass
class Latest:
    """A conditional read's answer: `data` (the last body seen), its `etag`, whether this
    call brought a new body (`changed`; False on 304), and `waited` (the `Prefer: wait`
    the service applied, from `Preference-Applied`)."""

    data: Any
    etag: str | None
    changed: bool
    waited: int | None = None


@dataclass
class RateLimit:
    """The key's limits as the last answer gave them: the per-minute window (`limit`,
    `remaining`) and the daily quota (`day_limit`, `day_remaining`), read from the IETF
    `RateLimit-Policy` and `RateLimit` fields where the answer has them."""

    limit: int | None
    remaining: int | None
    day_limit: int | None = None
    day_remaining: int | None = None


_POLICY_ITEM = re.compile(r'"([a-z]+)";q=(\d+);w=(\d+)')
_LIMIT_ITEM = re.compile(r'"([a-z]+)";r=(\d+)')


def read_rate_limit(headers: httpx.Headers) -> RateLimit | None:
    """The limits of an answer's headers, or None for an answer without them (public
    routes)."""
    limit = headers.get("X-RateLimit-Limit")
    if limit is None or not limit.isdigit():
        return None
    remaining = headers.get("X-RateLimit-Remaining")
    quotas = {m[1]: int(m[2]) for m in _POLICY_ITEM.finditer(headers.get("RateLimit-Policy", ""))}
    left = {m[1]: int(m[2]) for m in _LIMIT_ITEM.finditer(headers.get("RateLimit", ""))}
    return RateLimit(
        int(limit),
        int(remaining) if remaining and remaining.isdigit() else None,
        quotas.get("day"),
        left.get("day"),
    )


class TelemetryClient:
    def __init__(
        self,
        base_url: str,
        key: str,
        *,
        timeout: float = 30.0,
        retries: int = 3,
        max_retry_wait: float = 60.0,
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.key = key
        self.timeout = timeout
        self.retries = retries
        self.max_retry_wait = max_retry_wait
        transport = (
            RetryTransport(retries=retries, max_wait=max_retry_wait, sleep=sleep)
            if sleep is not None
            else RetryTransport(retries=retries, max_wait=max_retry_wait)
        )
        self.http = httpx.Client(
            base_url=self.base_url,
            headers={"Authorization": f"Bearer {key}"},
            timeout=timeout,
            transport=transport,
            event_hooks={"response": [self._remember_limits]},
        )
        self.api = AuthenticatedClient(base_url=self.base_url, token=key)
        self.api.set_httpx_client(self.http)
        self.rate_limit = RateLimit(None, None)
        # ETags and bodies of conditional reads, by what was asked.
        self._latest: dict[str, Latest] = {}

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> TelemetryClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _remember_limits(self, response: httpx.Response) -> None:
        limits = read_rate_limit(response.headers)
        if limits is not None:
            self.rate_limit = limits

    # Plain calls ------------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, Any] | None = None,
        body: Any = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
    ) -> httpx.Response:
        """One call under /api/v1 (`path` like `/devices`); ApiError unless 2xx or 304."""
        response = self.http.request(
            method,
            API + path,
            params=params(query or {}),
            json=body,
            headers=dict(headers or {}),
            timeout=timeout if timeout is not None else self.timeout,
        )
        return raise_for_envelope(response)

    def get(self, path: str, **query: Any) -> Any:
        """The JSON of a GET under /api/v1."""
        return self.request("GET", path, query=query).json()

    # Lists -------------------------------------------------------------------------------

    def iterate(self, path: str, *, page_size: int = 200, **query: Any) -> Iterator[Any]:
        """Every item of a list (`/devices`, `/gateways`, ...), page after page (D7)."""
        offset = 0
        while True:
            page = self.get(path, **query, limit=page_size, offset=offset)
            items = page["data"]
            yield from items
            offset += len(items)
            total = page.get("pagination", {}).get("total")
            if not items or (isinstance(total, int) and offset >= total):
                return

    def paginate(
        self, call: Callable[..., Any], *, page_size: int = 200, **kwargs: Any
    ) -> Iterator[Any]:
        """Every item of a generated list call, typed by its model:
        `client.paginate(list_devices.sync_detailed, search="climate")`."""
        offset = 0
        while True:
            response = call(client=self.api, limit=page_size, offset=offset, **kwargs)
            if not 200 <= int(response.status_code) < 300:
                raise ApiError.from_response(
                    httpx.Response(
                        int(response.status_code),
                        headers=dict(response.headers),
                        content=response.content,
                    )
                )
            page = response.parsed
            items = list(page.data)
            yield from items
            offset += len(items)
            if not items or offset >= page.pagination.total:
                return

    # Conditional reads and long polls ------------------------------------------------------

    def _conditional(
        self, remember: str, path: str, query: Mapping[str, Any], wait: int | None
    ) -> Latest:
        known = self._latest.get(remember)
        headers = {}
        timeout = self.timeout
        if known is not None and known.etag:
            headers["If-None-Match"] = known.etag
            if wait:
                # analytics.md 1: N whole seconds, 1..60 (more is taken as 60).
                seconds = max(1, min(int(wait), MAX_WAIT_SECONDS))
                headers["Prefer"] = f"wait={seconds}"
                timeout = self.timeout + seconds
        response = self.request("GET", path, query=query, headers=headers, timeout=timeout)
        applied = response.headers.get("Preference-Applied", "")
        match = re.search(r"wait=(\d+)", applied)
        waited = int(match.group(1)) if match else None
        if response.status_code == 304 and known is not None:
            latest = Latest(known.data, response.headers.get("ETag", known.etag), False, waited)
        else:
            latest = Latest(response.json()["data"], response.headers.get("ETag"), True, waited)
        self._latest[remember] = latest
        return latest

    def latest(self, device: str, *, wait: int | None = None) -> Latest:
        """`GET /devices/{device}/latest`, sending the ETag of the last answer: a 304 gives
        the kept body with `changed` False. With `wait` (seconds, at most 60) and a known
        ETag it is a long poll: the answer comes when the values change or the wait ends."""
        path = f"/devices/{device}/latest"
        return self._conditional(path, path, {}, wait)

    def fleet_latest(
        self,
        device_ids: list[str] | None = None,
        *,
        fields: list[str] | None = None,
        wait: int | None = None,
        limit: int | None = None,
        offset: int | None = None,
        **filters: Any,
    ) -> Latest:
        """`GET /latest` (analytics.md 1): many devices' latest values, by ids or by the
        filters of /devices, conditional on the last answer's ETag and long-polled with
        `wait` like `latest`. `data` is the page's list."""
        query = params(
            {
                "device_ids": device_ids,
                "fields": fields,
                "limit": limit,
                "offset": offset,
                **filters,
            }
        )
        remember = "/latest?" + json.dumps(query, sort_keys=True)
        return self._conditional(remember, "/latest", query, wait)

    # Series --------------------------------------------------------------------------------

    def history(self, device: str, field: str, from_: Any, to: Any, **query: Any) -> HistoryResult:
        """`GET /devices/{device}/history` (resolution, agg, tz, fill, ... as keywords)."""
        query = {"field": field, "from": from_, "to": to, **query}
        body = self.get(f"/devices/{device}/history", **query)
        return HistoryResult(body["data"])

    def query_pages(self, **body: Any) -> Iterator[dict[str, Any]]:
        """The pages of `POST /query` (analytics.md 2), each asked with the same body plus
        the previous page's `nextCursor`, until it is null."""
        request = {camel(k): wire_json(v) for k, v in body.items() if v is not None}
        cursor = None
        while True:
            sent = dict(request) if cursor is None else {**request, "cursor": cursor}
            page: dict[str, Any] = self.request("POST", "/query", body=sent).json()
            yield page
            cursor = page.get("nextCursor")
            if not cursor:
                return

    def query(
        self,
        *,
        devices: Mapping[str, Any],
        fields: list[str],
        from_: Any,
        to: Any,
        **more: Any,
    ) -> QueryResult:
        """Every page of a query, joined: `.series`, `.to_polars()`, `.to_arrow()`."""
        result = QueryResult({})
        body = {"devices": dict(devices), "fields": fields, "from": from_, "to": to, **more}
        for page in self.query_pages(**body):
            result.add_page(page)
        return result

    # Exports -------------------------------------------------------------------------------

    def export(
        self,
        device: str | None = None,
        *,
        from_: Any,
        to: Any,
        format: str = "csv",
        path: Path | str | None = None,
        attempts: int = 3,
        **query: Any,
    ) -> ExportResult:
        """A device's export (`device`) or the fleet's (filters as keywords), into memory or
        into `path`. A connection cut mid-file (the service aborts rather than send a cut
        file) is resumed: CSV and NDJSON rows are ordered (device, then time), so the rest
        is asked again and the rows already received are skipped (a device's export asks
        only from the last row's time on); Parquet, one file with its index at the end, is
        asked again whole. At most `attempts` requests."""
        route = f"/devices/{device}/export" if device is not None else "/export"
        sent = {"from": from_, "to": to, "format": format, **query}
        received = bytearray()
        resume = _Resume(format)
        filename = None
        for attempt in range(attempts):
            asked = dict(sent)
            if attempt and device is not None and resume.last_time is not None:
                asked["from"] = resume.last_time
            try:
                with self.http.stream(
                    "GET", API + route, params=params(asked), timeout=self.timeout
                ) as response:
                    raise_for_envelope(response)
                    filename = _filename(response.headers.get("Content-Disposition", ""))
                    if format == "parquet":
                        received = bytearray(response.read())
                    else:
                        for chunk in response.iter_bytes():
                            received += resume.feed(chunk)
                        received += resume.finish()
                break
            except RECOVERABLE:
                if attempt + 1 == attempts:
                    raise
                if format == "parquet":
                    received = bytearray()
                resume.restart()
        result = ExportResult(format, filename=filename, resumed=resume.resumes)
        if path is not None:
            target = Path(path)
            target.write_bytes(bytes(received))
            result.path = target
        else:
            result.content = bytes(received)
        return result

    # Live values ---------------------------------------------------------------------------

    async def stream(
        self,
        device_ids: list[str] | None = None,
        *,
        fields: list[str] | None = None,
        last_event_id: str | None = None,
        reconnects: int = 5,
        **filters: Any,
    ) -> AsyncIterator[StreamEvent]:
        """`GET /stream` (analytics.md 4) as an async iterator of events; a dropped
        connection is reopened with `Last-Event-ID` (at most `reconnects` times in a row),
        so only what changed meanwhile follows (or `reset` and the whole first send)."""
        query = params({"device_ids": device_ids, "fields": fields, **filters})
        failures = 0
        async with httpx.AsyncClient(
            base_url=self.base_url,
            headers={"Authorization": f"Bearer {self.key}", "Accept": "text/event-stream"},
            # Reads wait at most a little more than the service's 15 s heartbeat.
            timeout=httpx.Timeout(self.timeout, read=30.0),
            transport=AsyncRetryTransport(retries=self.retries, max_wait=self.max_retry_wait),
        ) as http:
            while True:
                headers = {"Last-Event-ID": last_event_id} if last_event_id else {}
                received = False
                lost: Exception | None = None
                try:
                    async with http.stream(
                        "GET", API + "/stream", params=query, headers=headers
                    ) as response:
                        if not response.is_success:
                            await response.aread()
                            raise ApiError.from_response(response)
                        async for event in parse_events(response.aiter_lines()):
                            received = True
                            if event.id:
                                last_event_id = event.id
                            yield event
                except RECOVERABLE as error:
                    lost = error
                # Dropped or ended: reopened where it stopped, unless it keeps failing
                # before any event (a revoked key is refused, and that raises above).
                failures = 0 if received else failures + 1
                if failures > reconnects:
                    if lost is not None:
                        raise lost
                    raise ApiError(200, "stream_ended", f"ended {failures} times with no event")
                await asyncio.sleep(min(2.0**failures, 30.0) if failures else 0.5)


def wire_json(value: Any) -> Any:
    """A body value as JSON: datetimes as RFC 3339 UTC, mappings and lists through."""
    if isinstance(value, datetime):
        return wire(value)
    if isinstance(value, Mapping):
        return {camel(k) if "_" in k else k: wire_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [wire_json(item) for item in value]
    return value


def _filename(disposition: str) -> str | None:
    match = re.search(r'filename="([^"]+)"', disposition)
    return match.group(1) if match else None


class _Resume:
    """The complete rows of a CSV or NDJSON export received so far, so that a repeated
    request can skip them: rows come ordered by (deviceId, time) (a device's export: by
    time), so a row of the repeat that sorts before the last row received, or equals it and
    is among those received at that key, is skipped."""

    def __init__(self, format: str) -> None:
        self.format = format
        self.header: bytes | None = None
        self.pending = b""
        self.last_key: tuple[str, datetime] | None = None
        self.last_time: str | None = None
        self.at_last_key = 0
        self.columns: list[str] = []
        self.resumes = 0
        self.skipping = False
        self.skipped_at_key = 0
        self.current_time = ""

    def restart(self) -> None:
        """The connection was cut: what follows is the repeat of the whole answer."""
        self.pending = b""
        self.resumes += 1
        self.skipping = True
        self.skipped_at_key = 0

    def _key(self, line: bytes) -> tuple[str, datetime] | None:
        if self.format == "ndjson":
            row = json.loads(line)
            device, time = str(row.get("deviceId", "")), str(row["time"])
        else:
            import csv

            cells = next(csv.reader([line.decode()]))
            row = dict(zip(self.columns, cells, strict=False))
            device, time = row.get("deviceId", ""), row["time"]
        self.current_time = time
        return device, datetime.fromisoformat(time.replace("Z", "+00:00"))

    def _take(self, line: bytes) -> bytes:
        """The line to keep (with its newline) or b"" to skip it."""
        if self.format == "csv" and self.header is None:
            self.header = line
            import csv

            self.columns = next(csv.reader([line.decode()]))
            return line
        if self.format == "csv" and self.skipping and line == self.header:
            return b""
        if not line.strip():
            return line
        key = self._key(line)
        if self.skipping and self.last_key is not None and key is not None:
            if key < self.last_key:
                return b""
            if key == self.last_key and self.skipped_at_key < self.at_last_key:
                self.skipped_at_key += 1
                return b""
            self.skipping = False
        if key == self.last_key:
            self.at_last_key += 1
        else:
            self.last_key, self.at_last_key = key, 1
            self.last_time = self.current_time
        return line

    def feed(self, chunk: bytes) -> bytes:
        """The complete lines of the chunk that are kept; a partial last line waits."""
        data = self.pending + chunk
        *lines, self.pending = data.split(b"\n")
        return b"".join(self._take(line + b"\n") for line in lines)

    def finish(self) -> bytes:
        rest, self.pending = self.pending, b""
        return self._take(rest) if rest else b""
