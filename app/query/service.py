"""POST /query (analytics.md section 2): many series in one call, paged by keyset cursors.

The request is checked in the order of decisions D3: the body (400 `invalid_body` naming
the field; feature switches of the device filters are 403 as on GET /devices), the
cursor (400 `invalid_cursor`), the devices and their fields (400), retention (403). Each
series is then read by app/history/series.py, the reads /history makes, so its points
are /history's for the same parameters (oldest first here).

A page holds at most `limit` points. Bucketed series are read in batches (one statement
for as many series as the page can still hold, by their bucket count); raw series one
statement each, from the cursor's key on. A page also ends when it has taken
PAGE_BUDGET_S of database time, so no request runs for long whatever it asks: its
cursor continues at the next series.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import asyncpg
import msgspec
from litestar import Request

from app.auth.guards import require_multi_site, require_networks
from app.auth.principal import Principal
from app.auth.tenancy import split_reference
from app.core.body import read_json_body, translate_error
from app.core.errors import ApiError, ErrorCode, forbidden, invalid_body
from app.core.sql import QUERIES
from app.devices.filters import DEVICE_FILTERS, fleet_filters
from app.export.service import fleet_devices
from app.history.downsample import METHODS
from app.history.fill import FILL_MODES
from app.history.planner import (
    MAX_BUCKETS,
    Resolution,
    bucket_count,
    from_micros,
    parse_resolution,
    plan_segments,
    to_micros,
)
from app.history.series import (
    NON_NUMERIC_AGGS,
    Bucketing,
    RawKey,
    Series,
    read_buckets,
    read_from,
)
from app.history.service import QUERY_AGGS, SIGNAL_QUALITY, parse_range
from app.history.structs import HistoryPoint
from app.history.zones import parse_tz, zone_kind
from app.query import cursor as cursors
from app.query.structs import (
    BODY_DECODER,
    MAX_DEVICES,
    MAX_FIELDS,
    MAX_SERIES,
    DeviceSelection,
    QueryBody,
    QueryData,
    QueryPage,
    QuerySeries,
)

# Database time after which a page ends early (its cursor continues at the next series).
PAGE_BUDGET_S = 2.0
# Series per bucketed statement at most (fewer when the page holds fewer buckets). A
# series' share of a statement costs about what it costs alone (a year of daily buckets,
# bench M, box loaded: 8 ms alone, 5.4 ms each in a batch of 50), so larger batches save
# little and bring a statement nearer the timeout (300 such series passed 5 s).
MAX_BATCH = 50
# Series x days per bucketed statement that reads its buckets from the readings one by one
# (a zone or width no partial nests in): about 100,000 readings at 15-minute readings.
SERIES_DAYS_PER_STATEMENT = 1_000
FILTER_KEYS = DEVICE_FILTERS
FILLS = FILL_MODES
DOWNSAMPLES = METHODS
_digest_encode = msgspec.json.Encoder(order="deterministic").encode


@contextlib.contextmanager
def as_body_error(prefix: str = "") -> Iterator[None]:
    """The 400 `invalid_parameter` of a parser shared with the query-string routes as
    `invalid_body` (D5: the field is in a body here), its field under `prefix`."""
    try:
        yield
    except ApiError as error:
        if error.code != ErrorCode.INVALID_PARAMETER:
            raise
        raise ApiError(400, ErrorCode.INVALID_BODY, prefix + error.message) from None


async def read_body(request: Request[Any, Any, Any]) -> QueryBody:
    """The body with the errors of D5; an unknown key is named like any other field."""
    try:
        return await read_json_body(request, BODY_DECODER)
    except ApiError as error:
        cause = error.__context__
        if isinstance(cause, msgspec.ValidationError) and "unknown field" in str(cause):
            raise unknown_key(cause) from None
        raise


def unknown_key(error: msgspec.ValidationError) -> ApiError:
    """`Object contains unknown field `x` - at `$.devices`` as `devices.x: is not a key`."""
    text = str(error)
    name = text.split("`")[1]
    located = translate_error(error).message.partition(":")[0]
    path = "" if located == "body" else located + "."
    return invalid_body(path + name, "is not a key of the query body")


@dataclass(frozen=True)
class Planned:
    """One series of the answer: its device, field and agg, and how to read it."""

    device_id: uuid.UUID
    dev_eui: str
    field: str
    field_index: int
    agg: str | None
    agg_index: int
    series: Series

    @property
    def order(self) -> tuple[uuid.UUID, int, int]:
        return (self.device_id, self.field_index, self.agg_index)


@dataclass(frozen=True)
class Query:
    """A checked body: everything but the devices."""

    selection: DeviceSelection
    fields: list[str]
    start: datetime
    end: datetime
    now: datetime
    resolution: Resolution | None
    resolution_text: str
    aggs: dict[str, list[str]]  # per field; empty lists for raw
    tz: str | None
    limit: int
    digest: str


def parse_body(principal: Principal, body: QueryBody) -> Query:
    """The checks that need no database: the device filters' feature switches first (403,
    as on GET /devices), then the body in its order (D3: 400s)."""
    selection = body.devices
    if selection.network_id is not None:
        require_networks(principal)
    if selection.site_id is not None:
        require_multi_site(principal)
    named_filters = [k for k in FILTER_KEYS if getattr(selection, _attr(k)) is not None]
    if selection.ids is not None and named_filters:
        raise invalid_body("devices", f"give ids or filters, not both (ids and {named_filters[0]})")
    if selection.ids is not None and len(selection.ids) > MAX_DEVICES:
        raise invalid_body("devices.ids", f"at most {MAX_DEVICES:,} devices per query")
    fields = body.fields
    if not fields:
        raise invalid_body("fields", "must name at least one field")
    if len(fields) > MAX_FIELDS:
        raise invalid_body("fields", f"at most {MAX_FIELDS} fields per query")
    for index, name in enumerate(fields):
        if not name:
            raise invalid_body(f"fields[{index}]", "must be a field identifier")
        if fields.index(name) != index:
            raise invalid_body("fields", f"lists {name!r} more than once")
    with as_body_error():
        start, end, now = parse_range(body.from_, body.to)
        resolution_text = body.resolution if body.resolution is not None else "raw"
        resolution = parse_resolution(resolution_text)
        tz = parse_tz(body.tz)
    aggs = parse_aggs(body.agg, fields, resolution is not None)
    check_chart_parameters(body, resolution is not None)
    unpaged = msgspec.structs.replace(body, cursor=None, limit=0)
    digest = hashlib.sha256(_digest_encode(unpaged)).hexdigest()[:32]
    return Query(
        selection=selection,
        fields=list(fields),
        start=start,
        end=end,
        now=now,
        resolution=resolution,
        resolution_text=resolution_text,
        aggs=aggs,
        tz=tz,
        limit=body.limit,
        digest=digest,
    )


def _attr(key: str) -> str:
    """A camelCase body key as the struct's attribute."""
    return "".join("_" + c.lower() if c.isupper() else c for c in key)


def parse_aggs(agg: Any, fields: list[str], bucketed: bool) -> dict[str, list[str]]:
    """Per field its aggregates, in the order given (a string: the same for every field)."""
    if not bucketed:
        if agg is not None:
            raise invalid_body("agg", "applies to bucketed resolutions only, not raw")
        return {name: [] for name in fields}
    if agg is None or isinstance(agg, str):
        chosen = agg if agg is not None else "avg"
        _check_agg("agg", chosen)
        return {name: [chosen] for name in fields}
    for name in agg:
        if name not in fields:
            raise invalid_body(f"agg.{name}", "is not one of fields")
    aggs: dict[str, list[str]] = {}
    for name in fields:
        if name not in agg:
            raise invalid_body(f"agg.{name}", "is required (an object names every field)")
        given = agg[name]
        wanted = [given] if isinstance(given, str) else list(given)
        if not wanted:
            raise invalid_body(f"agg.{name}", "must name at least one aggregate")
        for index, chosen in enumerate(wanted):
            _check_agg(f"agg.{name}", chosen)
            if wanted.index(chosen) != index:
                raise invalid_body(f"agg.{name}", f"lists {chosen!r} more than once")
        aggs[name] = wanted
    return aggs


def _check_agg(name: str, agg: str) -> None:
    if agg not in QUERY_AGGS:
        raise invalid_body(name, f"must be one of {', '.join(QUERY_AGGS)}")


def check_chart_parameters(body: QueryBody, bucketed: bool) -> None:
    """The rules of analytics.md section 3 (fill, fillMaxGap, maxPoints, downsample) that
    hold before they are served; a valid use of them is refused until they land."""
    if body.fill is not None:
        if not bucketed:
            raise invalid_body("fill", "applies to bucketed resolutions only, not raw")
        if body.fill not in FILLS:
            raise invalid_body("fill", f"must be one of {', '.join(FILLS)}")
    if body.fill_max_gap is not None and body.fill != "previous":
        raise invalid_body("fillMaxGap", "applies to fill=previous only")
    if body.max_points is not None:
        if bucketed:
            raise invalid_body("maxPoints", "applies to resolution=raw only")
        if not 2 <= body.max_points <= 10_000:
            raise invalid_body("maxPoints", "must be from 2 to 10000")
    if body.downsample is not None:
        if body.max_points is None:
            raise invalid_body("downsample", "applies with maxPoints only")
        if body.downsample not in DOWNSAMPLES:
            raise invalid_body("downsample", f"must be one of {', '.join(DOWNSAMPLES)}")
    # The hook of section 3: until fill and downsampling are served, asking for them is
    # refused rather than ignored.
    if body.fill not in (None, "none"):
        raise invalid_body("fill", "is not served by this version yet (only none)")
    if body.max_points is not None:
        raise invalid_body("maxPoints", "is not served by this version yet")


async def select_devices(pool: Any, principal: Principal, selection: DeviceSelection) -> list[Any]:
    """The devices of the query in id order (num, id, dev_eui, profile_id, multi_site)."""
    if selection.ids is not None:
        ids: list[uuid.UUID] = []
        euis: list[str] = []
        for index, reference in enumerate(selection.ids):
            device_id, dev_eui = split_reference(reference)
            if device_id is None and dev_eui is None:
                raise invalid_body(
                    f"devices.ids[{index}]", "must be a device id (UUID) or a DevEUI"
                )
            if device_id is not None:
                ids.append(device_id)
            if dev_eui is not None:
                euis.append(dev_eui)
        rows = await pool.fetch(
            QUERIES["query.devices_by_ref"],
            principal.partner_id,
            principal.sub_account_id,
            ids,
            euis,
        )
        return list(rows)
    texts = {
        _attr(key): _as_text(getattr(selection, _attr(key)))
        for key in FILTER_KEYS
        if getattr(selection, _attr(key)) is not None
    }
    with as_body_error("devices."):
        filters = fleet_filters(principal, **texts)
    try:
        return await fleet_devices(pool, principal, filters, MAX_DEVICES)
    except ApiError as error:
        if error.code != ErrorCode.INVALID_PARAMETER:
            raise
        raise invalid_body(
            "devices", f"the filters select more than {MAX_DEVICES:,} devices per query"
        ) from None


def _as_text(value: Any) -> str:
    """A filter as GET /devices reads it: booleans may come as JSON booleans."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


async def plan_series(pool: Any, query: Query, devices: Sequence[Any]) -> list[Planned]:
    """Every (device, field, agg) that can exist, in answer order; the 400s of fields and
    aggregates that depend on the devices' profiles."""
    profiles = sorted({d["profile_id"] for d in devices}, key=str)
    rows = await pool.fetch(QUERIES["export.profile_fields"], profiles) if profiles else []
    by_profile: dict[tuple[uuid.UUID, str], Any] = {
        (r["profile_id"], r["identifier"]): r for r in rows
    }
    planned: list[Planned] = []
    found: set[str] = set()
    for device in devices:
        for field_index, name in enumerate(query.fields):
            if name == SIGNAL_QUALITY:
                data_type, field_num, static = "number", 0, False
            else:
                row = by_profile.get((device["profile_id"], name))
                if row is None:
                    continue
                data_type, field_num, static = row["data_type"], row["num"], row["kind"] == "static"
            found.add(name)
            numeric = data_type == "number"
            for agg in query.aggs[name]:
                if not numeric and agg not in NON_NUMERIC_AGGS:
                    path = (
                        "agg" if len(set(map(tuple, query.aggs.values()))) == 1 else f"agg.{name}"
                    )
                    raise invalid_body(
                        path, f"{name!r} is a {data_type} field of a device: count or last only"
                    )
            series = Series(
                device_num=device["num"],
                field_num=field_num,
                numeric=numeric,
                whole=name == SIGNAL_QUALITY,
                multi_site=device["multi_site"],
                static=static,
            )
            wanted: list[str | None] = [*query.aggs[name]] or [None]
            for agg_index, chosen in enumerate(wanted):
                planned.append(
                    Planned(
                        device["id"],
                        device["dev_eui"],
                        name,
                        field_index,
                        chosen,
                        agg_index,
                        series,
                    )
                )
            if len(planned) > MAX_SERIES:
                raise invalid_body(
                    "fields",
                    f"the query holds more than {MAX_SERIES:,} series (devices x fields x aggs)",
                )
    if devices:
        for name in query.fields:
            if name not in found:
                raise invalid_body("fields", f"{name!r} is not a field of any selected device")
    return planned


async def cursor_key(request: Request[Any, Any, Any], pool: asyncpg.Pool) -> bytes:
    """The cursor signing key: from CURSOR_SECRET, else the database's secret (read once
    per worker)."""
    state = request.app.state
    key: bytes | None = getattr(state, "query_cursor_key", None)
    if key is None:
        secret = request.app.state.settings.cursor_secret
        if secret is None:
            secret = await pool.fetchval(QUERIES["query.cursor_secret"])
        key = cursors.derive_key(secret)
        state.query_cursor_key = key
    return key


async def answer(
    request: Request[Any, Any, Any], pool: asyncpg.Pool, reader: Any, principal: Principal
) -> QueryPage:
    body = await read_body(request)
    query = parse_body(principal, body)
    key = await cursor_key(request, pool)
    payload = None
    start, end = query.start, query.end
    if body.cursor is not None:
        payload = cursors.verify(key, body.cursor, str(principal.key_id), query.digest)
        start, end = from_micros(payload.start_us), from_micros(payload.end_us)
    cutoff = query.now - timedelta(days=principal.retention_days)
    if query.resolution is not None:
        # Counted on the range read, as /history counts it (D12).
        counted_from = max(start, cutoff) if end > cutoff else start
        if bucket_count(counted_from, end, query.resolution, query.tz) > MAX_BUCKETS:
            raise invalid_body("resolution", f"the range holds more than {MAX_BUCKETS} buckets")
    devices = await select_devices(reader, principal, query.selection)
    planned = await plan_series(reader, query, devices)
    if end <= cutoff:
        raise forbidden(
            ErrorCode.OUTSIDE_RETENTION, "the range is entirely outside the plan retention"
        )
    clamped = start < cutoff
    read_start = cutoff if clamped else start
    data = QueryData(
        from_=read_start,
        to=end,
        resolution=query.resolution_text,
        tz=query.tz if query.tz is not None else msgspec.UNSET,
        clamped=True if clamped else msgspec.UNSET,
        retention_cutoff=cutoff if clamped else msgspec.UNSET,
        series=[],
    )
    position = payload.position if payload is not None else None
    if isinstance(reader, asyncpg.Pool):
        async with reader.acquire() as connection:
            next_position = await read_page(
                connection, query, planned, read_start, end, position, data
            )
    else:
        next_position = await read_page(reader, query, planned, read_start, end, position, data)
    next_cursor = None
    if next_position is not None:
        next_cursor = cursors.sign(
            key,
            str(principal.key_id),
            query.digest,
            to_micros(start),
            to_micros(end),
            next_position,
        )
    return QueryPage(data=data, next_cursor=next_cursor)


def reads_partials(start: datetime, end: datetime, resolution: Resolution, tz: str | None) -> bool:
    """Whether a bucketed read of [start, end) takes hourly or daily partials for part of
    the range (else every reading is read one by one: planner.plan_segments)."""
    segments = plan_segments(start, end, resolution, zone_kind(tz, start, end))
    return segments.hour_lo < segments.hour_hi


def _start_of(planned: Planned) -> cursors.Position:
    return cursors.Position(str(planned.device_id), planned.field_index, planned.agg_index)


def _order(position: cursors.Position) -> tuple[uuid.UUID, int, int]:
    try:
        return (uuid.UUID(position.device_id), position.field, position.agg)
    except ValueError:
        raise cursors.invalid_cursor("is not a cursor of this service") from None


def _out(planned: Planned, points: list[HistoryPoint]) -> QuerySeries:
    return QuerySeries(
        device_id=planned.device_id,
        dev_eui=planned.dev_eui,
        field=planned.field,
        agg=planned.agg if planned.agg is not None else msgspec.UNSET,
        points=points,
    )


async def read_page(
    connection: Any,
    query: Query,
    planned: list[Planned],
    start: datetime,
    end: datetime,
    position: cursors.Position | None,
    data: QueryData,
) -> cursors.Position | None:
    """Fills `data.series` with one page from `position`; where the next page starts."""
    todo = planned
    if position is not None:
        resume = _order(position)
        todo = [p for p in planned if p.order >= resume]
    remaining = query.limit
    began = time.monotonic()
    read_limit = MAX_BATCH
    if query.resolution is not None and not reads_partials(start, end, query.resolution, query.tz):
        # Buckets read from the readings one by one: a statement's work grows with series x
        # range, so a batch holds at most SERIES_DAYS_PER_STATEMENT of them.
        days = max(1.0, (end - start) / timedelta(days=1))
        read_limit = max(1, int(SERIES_DAYS_PER_STATEMENT / days))
    index = 0
    while index < len(todo):
        if remaining == 0 or time.monotonic() - began > PAGE_BUDGET_S:
            return _start_of(todo[index])
        current = todo[index]
        resumes = position is not None and current.order == _order(position)
        if query.resolution is None:
            after, given = None, 0
            if resumes and position is not None and position.time_us is not None:
                after = RawKey(from_micros(position.time_us), position.value, position.site_num)
                given = position.given
            page = await read_from(connection, current.series, start, end, after, given, remaining)
            data.series.append(_out(current, page.points))
            remaining -= len(page.points)
            if page.more and page.last is not None:
                return cursors.Position(
                    str(current.device_id),
                    current.field_index,
                    current.agg_index,
                    to_micros(page.last.time),
                    page.last.value,
                    page.last.site_num,
                    page.given,
                )
            index += 1
            continue
        assert query.resolution is not None
        capacity = bucket_count(start, end, query.resolution, query.tz)
        size = max(1, min(MAX_BATCH, remaining // max(capacity, 1), read_limit))
        batch = todo[index : index + size]
        groups: dict[str, list[Planned]] = {}
        for planned_series in batch:
            assert planned_series.agg is not None
            groups.setdefault(planned_series.agg, []).append(planned_series)
        read: dict[tuple[uuid.UUID, int, int], list[HistoryPoint]] = {}
        for agg, members in groups.items():
            answers = await read_buckets(
                connection,
                [m.series for m in members],
                start,
                end,
                Bucketing(query.resolution, agg, query.tz),
            )
            for member, points in zip(members, answers, strict=True):
                read[member.order] = points
        for member in batch:
            points = read[member.order]
            resumed = position is not None and member.order == _order(position)
            if resumed and position is not None and position.time_us is not None:
                after_us = position.time_us
                points = [p for p in points if to_micros(p.time) > after_us]
            if remaining == 0:
                return _start_of(member)
            if len(points) > remaining:
                kept = points[:remaining]
                data.series.append(_out(member, kept))
                return cursors.Position(
                    str(member.device_id),
                    member.field_index,
                    member.agg_index,
                    to_micros(kept[-1].time),
                )
            data.series.append(_out(member, points))
            remaining -= len(points)
        index += len(batch)
    return None
