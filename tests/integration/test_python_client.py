"""The Python client (clients/python, issue 29 item 1) against a served demo world.

The client is installed from its path into the project's venv (scripts/setup-python.sh) and
talks to `telemetry serve` over a socket, as a notebook would. The helpers for routes that
the served document does not have yet (fleet latest, `POST /query`, the stream, long polls)
are skipped with the reason, decided by reading the served document, so that they run as
soon as the routes are served.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import polars as pl
import pyarrow as pa
import pytest
from telemetry_client import (
    ApiError,
    TelemetryClient,
    WebhookVerificationError,
    verify_webhook,
)
from telemetry_client.generated.api.devices import list_devices
from telemetry_client.generated.models import DeviceUplinkEvent

from app.core.config import Settings
from app.core.db import connect
from app.docs.webhooks import schema_name as event_model_name
from app.webhooks import signing
from testkit.factories import partner_key
from tests.support.servers import LiveServer

DEVICE = "70b3d57ed0000001"
SECOND = "70b3d57ed0000007"
SECRET = "whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"  # 24 bytes, base64
# The served demo world's partner tier (tests/integration/conftest.py raises it).
DEMO_PARTNER_PER_DAY = 100_000_000


@pytest.fixture(scope="module")
def document(demo_served: LiveServer) -> dict[str, Any]:
    answer: dict[str, Any] = httpx.get(f"{demo_served.base_url}/api/v1/openapi.json").json()
    return answer


def needs_route(document: dict[str, Any], path: str) -> None:
    """Skips the test while the served document has no such route (another branch adds
    it); it runs as soon as the route is served."""
    if path not in document["paths"]:
        pytest.skip(f"the served OpenAPI document has no {path} yet")


def needs_long_poll(document: dict[str, Any]) -> None:
    operation = document["paths"]["/api/v1/devices/{device_ref}/latest"]["get"]
    if "Prefer" not in json.dumps(operation):
        pytest.skip("the served document does not describe Prefer: wait on /latest yet")


@pytest.fixture
def client(demo_served: LiveServer, demo_keys: dict[str, str]) -> Iterator[TelemetryClient]:
    with TelemetryClient(demo_served.base_url, demo_keys["sub_account"]) as made:
        yield made


def test_iterate_reads_every_page_once(client: TelemetryClient) -> None:
    whole = client.get("/devices", limit=200)
    expected = [device["id"] for device in whole["data"]]
    assert whole["pagination"]["total"] == len(expected) > 7
    paged = [device["id"] for device in client.iterate("/devices", page_size=7)]
    assert paged == expected
    # The generated call, typed: every page of Device models.
    typed = list(client.paginate(list_devices.sync_detailed, page_size=9))
    assert [str(device.id) for device in typed] == expected
    assert client.rate_limit.limit == 1_000_000
    assert client.rate_limit.remaining is not None
    # The daily quota, from the IETF RateLimit-Policy and RateLimit fields.
    assert client.rate_limit.day_limit == DEMO_PARTNER_PER_DAY
    assert client.rate_limit.day_remaining is not None
    assert 0 < client.rate_limit.day_remaining < DEMO_PARTNER_PER_DAY


def test_errors_are_the_envelopes_code_and_message(client: TelemetryClient) -> None:
    with pytest.raises(ApiError) as raised:
        client.history(DEVICE, "temp", "now-P1D", "now")
    assert raised.value.status == 400
    assert raised.value.code == "invalid_parameter"
    assert "temperature" in raised.value.message  # the 400 lists the field identifiers
    assert raised.value.request_id
    with pytest.raises(ApiError) as missing:
        client.latest("ffffffffffffffff")
    assert (missing.value.status, missing.value.code) == (404, "not_found")


def test_latest_keeps_the_etag_and_answers_from_it_on_304(client: TelemetryClient) -> None:
    first = client.latest(DEVICE)
    assert first.changed and first.etag and first.etag.startswith('"')
    assert first.data["values"]["temperature"] is not None
    again = client.latest(DEVICE)
    assert not again.changed
    assert again.etag == first.etag
    assert again.data == first.data


def test_latest_long_poll(client: TelemetryClient, document: dict[str, Any]) -> None:
    needs_long_poll(document)
    client.latest(DEVICE)
    held = client.latest(DEVICE, wait=1)
    assert not held.changed
    assert held.waited == 1


def test_fleet_latest_keeps_the_etag_and_long_polls(
    client: TelemetryClient, document: dict[str, Any]
) -> None:
    needs_route(document, "/api/v1/latest")
    first = client.fleet_latest([DEVICE, SECOND], fields=["temperature"])
    assert first.changed and first.etag
    one = client.latest(DEVICE).data
    assert [item["deviceId"] for item in first.data] == sorted(
        item["deviceId"] for item in first.data
    )
    mine = next(item for item in first.data if item["deviceId"] == one["deviceId"])
    assert mine["values"] == {"temperature": one["values"]["temperature"]}
    again = client.fleet_latest([DEVICE, SECOND], fields=["temperature"])
    assert not again.changed and again.data == first.data
    held = client.fleet_latest([DEVICE, SECOND], fields=["temperature"], wait=1)
    assert not held.changed and held.waited == 1


def test_history_to_polars_and_arrow(client: TelemetryClient) -> None:
    answer = client.history(DEVICE, "temperature", "now-P1D", "now", resolution="hourly")
    points = answer.points
    assert points
    frame = answer.to_polars()
    assert frame.columns == ["time", "value"]
    assert frame.schema["time"] == pl.Datetime("us", "UTC")
    assert frame["value"].to_list() == [point["value"] for point in points]
    stamps = [t.strftime("%Y-%m-%dT%H:%M:%SZ") for t in frame["time"].to_list()]
    assert stamps == [point["time"] for point in points]
    raw = client.history(DEVICE, "temperature", "now-PT6H", "now").to_arrow()
    assert raw.column_names == ["time", "value", "siteId"]


def test_query_follows_every_cursor(client: TelemetryClient, document: dict[str, Any]) -> None:
    needs_route(document, "/api/v1/query")
    # The same query page by page, then followed to its end by the client.
    query: dict[str, Any] = {
        "devices": {"ids": [DEVICE, SECOND]},
        "fields": ["temperature"],
        "from_": "now-P1D",
        "to": "now",
        "resolution": "hourly",
        "limit": 10,
    }
    pages = list(client.query_pages(**query))
    assert len(pages) > 1
    assert pages[-1]["nextCursor"] is None
    result = client.query(**query)
    assert len(result.series) == 2
    assert [s["deviceId"] for s in result.series] == sorted(s["deviceId"] for s in result.series)
    for series in result.series:
        history = client.history(
            series["devEui"],
            "temperature",
            result.data["from"],
            result.data["to"],
            resolution="hourly",
        )
        # /history is newest first, /query oldest first: the same points.
        assert series["points"] == list(reversed(history.points))
    frame = result.to_polars()
    assert frame.height == sum(len(s["points"]) for s in result.series)
    assert {"deviceId", "devEui", "field", "agg", "time", "value"} <= set(frame.columns)


def test_export_csv_and_parquet_frames_agree(client: TelemetryClient) -> None:
    latest = client.latest(DEVICE).data["time"]
    window = {"from_": "2020-01-01T00:00:00Z", "to": latest}
    csv = client.export(DEVICE, fields=["temperature", "humidity"], **window)
    parquet = client.export(DEVICE, fields=["temperature", "humidity"], format="parquet", **window)
    assert csv.filename and csv.filename.endswith(".csv")
    from_csv, from_parquet = csv.to_polars(), parquet.to_polars()
    assert from_csv.columns == from_parquet.columns == ["time", "temperature", "humidity"]
    assert from_csv.height == from_parquet.height > 10
    assert from_parquet.schema["temperature"] == pl.Float64
    assert from_csv["temperature"].to_list() == from_parquet["temperature"].to_list()
    assert (
        from_csv["time"].to_list() == from_parquet["time"].cast(pl.Datetime("us", "UTC")).to_list()
    )
    # The Parquet bytes are handed to pyarrow as a buffer over them, not copied.
    assert parquet.content is not None
    buffer = parquet.buffer()
    assert buffer.address == pa.py_buffer(parquet.content).address
    assert buffer.size == len(parquet.content)
    ndjson = client.export(DEVICE, fields=["temperature"], format="ndjson", **window)
    assert ndjson.to_polars()["temperature"].to_list() == from_csv["temperature"].to_list()


class CuttingProxy:
    """A TCP relay to the server that cuts its first connection `cut_after` bytes into the
    answer's body, as a dropped network would (the service's side is untouched)."""

    def __init__(self, upstream: str, cut_after: int) -> None:
        host, port = upstream.removeprefix("http://").split(":")
        self.upstream = (host, int(port))
        self.cut_after = cut_after
        self.connections = 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                downstream, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            budget = self.cut_after if self.connections == 1 else None
            upstream = socket.create_connection(self.upstream)
            threading.Thread(
                target=self._pipe, args=(downstream, upstream, None), daemon=True
            ).start()
            threading.Thread(
                target=self._pipe, args=(upstream, downstream, budget), daemon=True
            ).start()

    @staticmethod
    def _pipe(source: socket.socket, target: socket.socket, budget: int | None) -> None:
        """Relays source to target; with a budget, stops `budget` bytes after the end of
        the answer's head (the blank line after its headers)."""
        seen = b""
        head_end: int | None = None
        try:
            while True:
                data = source.recv(4096)
                if not data:
                    break
                if budget is not None:
                    seen += data
                    if head_end is None and b"\r\n\r\n" in seen:
                        head_end = seen.index(b"\r\n\r\n") + 4
                    if head_end is not None and len(seen) >= head_end + budget:
                        target.sendall(data[: len(data) - (len(seen) - head_end - budget)])
                        break
                target.sendall(data)
        except OSError:
            pass
        for end in (source, target):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
            end.close()

    def close(self) -> None:
        self.listener.close()


@pytest.mark.parametrize(
    ("format", "device", "layout"),
    [
        ("csv", DEVICE, "long"),
        ("ndjson", DEVICE, "long"),
        ("csv", None, "wide"),
        ("ndjson", None, "long"),
    ],
)
def test_export_resumes_after_a_cut_connection(
    demo_served: LiveServer, demo_keys: dict[str, str], format: str, device: str | None, layout: str
) -> None:
    with TelemetryClient(demo_served.base_url, demo_keys["sub_account"]) as direct:
        latest = direct.latest(DEVICE).data["time"]
        query: dict[str, Any] = {
            "from_": "now-P3D",
            "to": latest,
            "format": format,
            "layout": layout,
        }
        whole = direct.export(device, **query)
    assert whole.resumed == 0
    size = len(whole.read_bytes())
    assert size > 1500
    # Cut in the middle of the file (chunked: a little before the middle of its rows).
    proxy = CuttingProxy(demo_served.base_url, cut_after=size // 2)
    try:
        with TelemetryClient(proxy.url, demo_keys["sub_account"]) as cut:
            resumed = cut.export(device, **query)
    finally:
        proxy.close()
    assert proxy.connections == 2
    assert resumed.resumed == 1
    assert resumed.read_bytes() == whole.read_bytes()


async def test_stream_is_an_async_iterator_of_events(
    client: TelemetryClient, document: dict[str, Any]
) -> None:
    needs_route(document, "/api/v1/stream")
    expected = {client.latest(DEVICE).data["deviceId"], client.latest(SECOND).data["deviceId"]}
    seen: dict[str, Any] = {}
    events = client.stream([DEVICE, SECOND], fields=["temperature"])
    async for event in events:
        assert event.event == "latest"
        assert event.id
        seen[event.data["deviceId"]] = event.data
        if len(seen) == 2:
            break
    await events.aclose()
    assert set(seen) == expected


async def test_retries_honour_retry_after_then_raise_the_envelope(
    demo_served: LiveServer, demo_world_url: str
) -> None:
    # A partner allowed two requests a minute, in the served database.
    connection = await connect(Settings(database_url=demo_world_url))
    try:
        _, key = await partner_key(connection, tier={"perMinute": 2, "perDay": 1000})
    finally:
        await connection.close()
    slept: list[float] = []
    with TelemetryClient(demo_served.base_url, str(key), retries=2, sleep=slept.append) as limited:
        limited.get("/me")
        limited.get("/me")
        with pytest.raises(ApiError) as raised:
            limited.get("/me")
    assert (raised.value.status, raised.value.code) == (429, "rate_limited")
    # Each 429 was waited out for its own Retry-After (two retries), then the third raised.
    assert len(slept) == 2
    assert all(1 <= delay <= 61 for delay in slept)
    assert raised.value.retry_after is not None and 1 <= raised.value.retry_after <= 61
    # A wait longer than the client accepts is not slept: the 429 comes back at once.
    slept.clear()
    with (
        TelemetryClient(
            demo_served.base_url, str(key), max_retry_wait=0.5, sleep=slept.append
        ) as impatient,
        pytest.raises(ApiError),
    ):
        impatient.get("/me")
    assert slept == []


def test_webhook_verifier_types_the_event(document: dict[str, Any]) -> None:
    example = document["webhooks"]["device.uplink"]["post"]["requestBody"]["content"][
        "application/json"
    ]["example"]
    body = json.dumps(example).encode()
    # Signed by the service's own signer (what the dispatcher sends).
    headers = signing.headers([SECRET], example["id"], body)
    event = verify_webhook(SECRET, headers, body)
    assert isinstance(event, DeviceUplinkEvent)
    assert str(event.device_id) == example["deviceId"]
    assert event.data.dev_eui == example["data"]["devEui"]
    with pytest.raises(WebhookVerificationError):
        verify_webhook(SECRET, headers, body.replace(b"21.4", b"99.9"))
    # Every event type of the document comes back as its generated model.
    for event_type, webhook in document["webhooks"].items():
        sample = webhook["post"]["requestBody"]["content"]["application/json"]["example"]
        raw = json.dumps(sample).encode()
        typed = verify_webhook(SECRET, signing.headers([SECRET], sample["id"], raw), raw)
        assert type(typed).__name__ == event_model_name(event_type)
        assert typed.to_dict()["type"] == event_type
    rotated = signing.headers(
        [signing.new_secret(), SECRET], example["id"], body
    )  # two signatures during a rotation
    assert isinstance(verify_webhook(SECRET, rotated, body), DeviceUplinkEvent)
