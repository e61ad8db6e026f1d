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
import dataclasses
import hashlib
import re
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
from app.history import chart
from app.history.aggregates import NEW_AGGS, STATE_AGGS
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
from app.history.service import SIGNAL_QUALITY, parse_range
from app.history.structs import Downsampled, HistoryPoint
from app.history.zones import parse_tz, zone_kind
from app.query import cursor as cursors
from app.query.structs import (
    AGG_PATTERN,
    BODY_DECODER,
    MAX_DEVICES,
    MAX_FIELDS,
    MAX_SERIES,
    STATE_SEPARATOR,
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
    data_type: str
    # The aggregate without its state (`duration` of `duration:open`), and the section 3
    # options of this series (the query's, with the state `duration` times).
    aggregate: str | None = None
    options: chart.ChartOptions = chart.NO_CHART

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
    # fill, fillMaxGap, maxPoints and downsample (analytics.md section 3).
    chart: chart.ChartOptions = chart.NO_CHART
    # Whether `agg` named each field's aggregates (its errors then name `agg.<field>`).
    agg_per_field: bool = False


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
    options = check_chart_parameters(body, resolution is not None, now)
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
        chart=options,
        agg_per_field=isinstance(body.agg, dict),
    )


def _attr(key: str) -> str:
    """A camelCase body key as the struct's attribute."""
    return "".join("_" + c.lower() if c.isupper() else c for c in key)


AGG_NAME = re.compile(AGG_PATTERN)


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


def split_agg(agg: str) -> tuple[str, str | None]:
    """`duration:open` as ("duration", "open"); another aggregate with no state."""
    name, separator, state = agg.partition(STATE_SEPARATOR)
    return name, state if separator else None


def _check_agg(name: str, agg: str) -> None:
    # The pattern names every aggregate, so a name that passes it is one of QUERY_AGGS.
    if not AGG_NAME.fullmatch(agg):
        raise invalid_body(name, f"expected `str` matching regex {AGG_PATTERN!r}")
    aggregate, state = split_agg(agg)
    if aggregate in STATE_AGGS and not state:
        raise invalid_body(
            name, f"{aggregate} names the state it times: {aggregate}{STATE_SEPARATOR}<value>"
        )


def check_chart_parameters(body: QueryBody, bucketed: bool, now: datetime) -> chart.ChartOptions:
    """fill, fillMaxGap, maxPoints and downsample (analytics.md section 3) by /history's
    parser, its 400s as `invalid_body` naming the member (D5)."""
    with as_body_error():
        return chart.parse_chart(
            bucketed=bucketed,
            agg=None,
            now=now,
            fill=body.fill,
            fill_max_gap=body.fill_max_gap,
            max_points=str(body.max_points) if body.max_points is not None else None,
            method=body.downsample,
        )


def check_series_rules(
    options: chart.ChartOptions,
    aggregate: str | None,
    data_type: str,
    measurement: str | None,
    agg_path: str,
) -> None:
    """The section 3 rules that depend on the field (/history's `check_field`, and a
    boolean's state), as `invalid_body`: the aggregate's under `agg_path`."""
    try:
        chart.check_field(options, aggregate, data_type, measurement)
        if aggregate in STATE_AGGS:
            chart.state_value(options, data_type)
    except ApiError as error:
        if error.code != ErrorCode.INVALID_PARAMETER:
            raise
        name, _, problem = error.message.partition(": ")
        raise invalid_body(agg_path if name in ("agg", "state") else name, problem) from None


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
                data_type, field_num, static, measurement = "number", 0, False, "gauge"
            else:
                row = by_profile.get((device["profile_id"], name))
                if row is None:
                    continue
                data_type, field_num = row["data_type"], row["num"]
                static, measurement = row["kind"] == "static", row["measurement"]
            found.add(name)
            numeric = data_type == "number"
            path = f"agg.{name}" if query.agg_per_field else "agg"
            options: dict[str | None, chart.ChartOptions] = {}
            wanted: list[str | None] = [*query.aggs[name]] or [None]
            for agg in wanted:
                aggregate, state = split_agg(agg) if agg is not None else (None, None)
                options[agg] = dataclasses.replace(query.chart, state=state)
                check_series_rules(options[agg], aggregate, data_type, measurement, path)
                if (
                    aggregate is not None
                    and not numeric
                    and aggregate not in (*NON_NUMERIC_AGGS, *STATE_AGGS)
                ):
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
                        data_type,
                        split_agg(chosen)[0] if chosen is not None else None,
                        options[chosen],
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
                connection, query, planned, read_start, end, position, data, cutoff
            )
    else:
        next_position = await read_page(
            reader, query, planned, read_start, end, position, data, cutoff
        )
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


def _out(
    planned: Planned, points: list[HistoryPoint], downsampled: Downsampled | None = None
) -> QuerySeries:
    return QuerySeries(
        device_id=planned.device_id,
        dev_eui=planned.dev_eui,
        field=planned.field,
        agg=planned.agg if planned.agg is not None else msgspec.UNSET,
        downsampled=downsampled if downsampled is not None else msgspec.UNSET,
        points=points,
    )


def _span(planned: Planned, query: Query, start: datetime, end: datetime, cutoff: datetime) -> Any:
    assert query.resolution is not None and planned.aggregate is not None
    series = planned.series
    return chart.SeriesSpan(
        series.numeric, planned.data_type, series.device_num, series.field_num, start, end,
        cutoff, None, query.resolution, planned.aggregate, query.tz, planned.options,
    )  # fmt: skip


def _reading_key(point: HistoryPoint) -> tuple[int, Any]:
    return (to_micros(point.time), point.value)


def _after_reading(points: list[HistoryPoint], position: cursors.Position) -> list[HistoryPoint]:
    """The downsampled readings after the cursor's: those sorting after its (time, value),
    and of those equal to it all but the `given` first (readings may repeat one; a
    series is ordered by time, value, then site, as downsample.read_numbers reads it)."""
    last = (position.time_us, position.value)
    out: list[HistoryPoint] = []
    skipped = 0
    for point in points:
        key = _reading_key(point)
        if key < last:
            continue
        if key == last and skipped < position.given:
            skipped += 1
            continue
        out.append(point)
    return out


async def read_page(
    connection: Any,
    query: Query,
    planned: list[Planned],
    start: datetime,
    end: datetime,
    position: cursors.Position | None,
    data: QueryData,
    cutoff: datetime,
) -> cursors.Position | None:
    """Fills `data.series` with one page from `position`; where the next page starts.

    Raw series are read from the cursor's key on. A downsampled series (maxPoints) is
    computed whole, as /history computes it, and paged from the cursor's reading on; a
    bucketed one (filled or not, any aggregate) is read whole and paged from the cursor's
    bucket on: both are determined by the range, so a page resumes by key and no point is
    given twice."""
    todo = planned
    if position is not None:
        resume = _order(position)
        todo = [p for p in planned if p.order >= resume]
    remaining = query.limit
    began = time.monotonic()

    def spent() -> bool:
        return time.monotonic() - began > PAGE_BUDGET_S

    read_limit = MAX_BATCH
    if query.resolution is not None and not reads_partials(start, end, query.resolution, query.tz):
        # Buckets read from the readings one by one: a statement's work grows with series x
        # range, so a batch holds at most SERIES_DAYS_PER_STATEMENT of them.
        days = max(1.0, (end - start) / timedelta(days=1))
        read_limit = max(1, int(SERIES_DAYS_PER_STATEMENT / days))
    index = 0
    while index < len(todo):
        if remaining == 0 or spent():
            return _start_of(todo[index])
        current = todo[index]
        resumes = position is not None and current.order == _order(position)
        if query.resolution is None and query.chart.max_points is not None:
            downsampled = None
            points: list[HistoryPoint] = []
            if not current.series.static:
                points, downsampled = await chart.read_downsampled(
                    connection, current.series.device_num, current.series.field_num, start,
                    end, None, current.options, current.series.whole, current.series.multi_site,
                )  # fmt: skip
            if resumes and position is not None and position.time_us is not None:
                points = _after_reading(points, position)
            if len(points) <= remaining:
                data.series.append(_out(current, points, downsampled))
                remaining -= len(points)
                index += 1
                continue
            kept = points[:remaining]
            data.series.append(_out(current, kept, downsampled))
            last = _reading_key(kept[-1])
            given = sum(1 for point in kept if _reading_key(point) == last)
            if resumes and position is not None and (position.time_us, position.value) == last:
                given += position.given
            return cursors.Position(
                str(current.device_id), current.field_index, current.agg_index,
                last[0], last[1], 0, given,
            )  # fmt: skip
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
        read = await _read_buckets(connection, query, batch, start, end, cutoff, spent)
        for member in batch:
            if member.order not in read:  # the page's time ran out before its read
                return _start_of(member)
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


async def _read_buckets(
    connection: Any,
    query: Query,
    batch: list[Planned],
    start: datetime,
    end: datetime,
    cutoff: datetime,
    spent: Any,
) -> dict[tuple[uuid.UUID, int, int], list[HistoryPoint]]:
    """The bucketed points of a batch of series, oldest first, as /history reads each:
    the standard aggregates in one statement per aggregate (then filled one series at a
    time when asked), increase, twa, integral and duration one series at a time. Series
    not read when the page's time ran out (`spent`) are missing from the answer."""
    assert query.resolution is not None
    groups: dict[str, list[Planned]] = {}
    for member in batch:
        assert member.aggregate is not None
        groups.setdefault(member.aggregate, []).append(member)
    read: dict[tuple[uuid.UUID, int, int], list[HistoryPoint]] = {}
    for agg, members in groups.items():
        if read and spent():
            break
        if agg in NEW_AGGS:
            for member in members:
                if read and spent():
                    break
                read[member.order] = (
                    []
                    if member.series.static
                    else await chart.aggregate_points(
                        connection, _span(member, query, start, end, cutoff)
                    )
                )
            continue
        answers = await read_buckets(
            connection,
            [m.series for m in members],
            start,
            end,
            Bucketing(query.resolution, agg, query.tz),
        )
        for member, points in zip(members, answers, strict=True):
            if query.chart.fill is not None and not member.series.static:
                if read and spent():
                    break
                points = await chart.fill_points(
                    connection, points, None, _span(member, query, start, end, cutoff)
                )
            read[member.order] = points
    return read
