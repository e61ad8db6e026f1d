"""Reads of one device field's history: request checks in D3 order, then one query."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import asyncpg
import msgspec

from app.auth.guards import require_multi_site
from app.auth.principal import Principal
from app.auth.tenancy import split_reference
from app.core.api import parse_timestamp, parse_uuid, utc_now
from app.core.enums import DeviceStatus
from app.core.errors import ErrorCode, forbidden, invalid_parameter, not_found
from app.core.sql import QUERIES
from app.history import chart
from app.history.aggregates import NEW_AGGS
from app.history.planner import MAX_BUCKETS, Resolution, bucket_count, parse_resolution
from app.history.series import (
    NON_NUMERIC_AGGS,
    Bucketing,
    Series,
    bucketed_statement,
    numeric_bucket_points,
    raw_points,
    read_buckets,
    read_newest,
)
from app.history.structs import History
from app.history.zones import parse_tz
from app.profiles.service import profile_fields
from app.world.times import resolve_time

RAW_LIMIT = 500
AGGS = ("avg", "min", "max", "sum", "count", "last", *NEW_AGGS)
SIGNAL_QUALITY = "signal_quality"
NO_SITE_MATCH = -1


@dataclass(frozen=True)
class HistoryQuery:
    field: str
    start: datetime
    end: datetime
    resolution: Resolution | None
    resolution_text: str
    agg: str | None
    site_id: uuid.UUID | None
    tz: str | None
    # now - the plan's retention, taken once so that the bucket check and the answer agree.
    cutoff: datetime
    # fill, maxPoints, downsample and state (analytics.md section 3).
    chart: chart.ChartOptions = chart.NO_CHART


def history_time(name: str, text: str, now: datetime) -> datetime:
    """An ISO 8601 timestamp, or `now`, `now-P1D`, `now-PT15M` as in world files (one `now`
    for both ends of a request)."""
    if text.strip().lower().startswith("now"):
        try:
            return resolve_time(text, now)
        except ValueError:
            raise invalid_parameter(
                name, "must be now, now-<ISO 8601 duration> (now-P1D, now-PT15M) or now+<duration>"
            ) from None
    return parse_timestamp(name, text)


def parse_range(start: str | None, end: str | None) -> tuple[datetime, datetime, datetime]:
    """`from` and `to` of a history or export request (both required, `from` before `to`),
    with the one `now` that both were read against."""
    if start is None:
        raise invalid_parameter("from", "is required")
    if end is None:
        raise invalid_parameter("to", "is required")
    now = utc_now()
    begin, finish = history_time("from", start, now), history_time("to", end, now)
    if begin >= finish:
        raise invalid_parameter("from", "must be before to")
    return begin, finish, now


def parse_query(
    principal: Principal,
    field: str | None,
    start: str | None,
    end: str | None,
    resolution: str | None,
    agg: str | None,
    site_id: str | None,
    tz: str | None = None,
    **chart_parameters: str | None,
) -> HistoryQuery:
    """The checks that need no database: feature switch first, then parameters (D3)."""
    if site_id is not None:
        require_multi_site(principal)
    if not field:
        raise invalid_parameter("field", "is required")
    begin, finish, now = parse_range(start, end)
    zone = parse_tz(tz)
    cutoff = now - timedelta(days=principal.retention_days)
    resolution_text = resolution if resolution is not None else "raw"
    parsed, agg = parse_bucketing(resolution_text, agg, AGGS, begin, finish, cutoff, zone)
    options = chart.parse_chart(bucketed=parsed is not None, agg=agg, now=now, **chart_parameters)
    site = None
    if site_id is not None:
        site = parse_uuid(site_id)
        if site is None:
            raise invalid_parameter("siteId", "must be a UUID")
    return HistoryQuery(
        field, begin, finish, parsed, resolution_text, agg, site, zone, cutoff, options
    )


def parse_bucketing(
    resolution: str,
    agg: str | None,
    aggs: Sequence[str],
    begin: datetime,
    finish: datetime,
    cutoff: datetime,
    zone: str | None,
) -> tuple[Resolution | None, str | None]:
    """The resolution (None: raw) and aggregate of a read that may be bucketed (/history,
    the exports): `agg` only when bucketed, one of `aggs` (default avg), and at most
    MAX_BUCKETS buckets (D12) counted on the range actually read: clamped to the cutoff
    when it ends inside retention; a range entirely outside is counted whole, so its 400
    still comes before the 403 outside_retention (D3)."""
    parsed = parse_resolution(resolution)
    if parsed is None:
        if agg is not None:
            raise invalid_parameter("agg", "applies to bucketed resolutions only, not raw")
        return None, None
    agg = agg if agg is not None else "avg"
    if agg not in aggs:
        raise invalid_parameter("agg", f"must be one of {', '.join(aggs)}")
    counted_from = max(begin, cutoff) if finish > cutoff else begin
    if bucket_count(counted_from, finish, parsed, zone) > MAX_BUCKETS:
        raise invalid_parameter("resolution", f"the range holds more than {MAX_BUCKETS} buckets")
    return parsed, agg


def points_with_context(query: HistoryQuery) -> tuple[str, list[Any]] | None:
    """The statement that reads the device's context and the points of its field in one
    round trip, with its arguments after the device's and the field's, when the request
    is one it answers (then the points are read if the field is a numeric one with a
    history): the newest raw readings, or buckets of a plain aggregate as
    history.bucketed_num reads them, without siteId or a chart option, on a range inside
    retention (a range outside is the 403 that follows the device's 404). None: the
    context alone (history.device_context), the points by a statement of their own."""
    if query.field == SIGNAL_QUALITY or query.site_id is not None or query.end <= query.cutoff:
        return None
    start = max(query.start, query.cutoff)
    if query.resolution is None:
        if query.chart.max_points is not None:
            return None
        return "history.device_raw_num", [start, query.end, RAW_LIMIT + 1]
    if query.agg in NEW_AGGS or query.chart.fill is not None:
        return None
    assert query.agg is not None
    bucketing = Bucketing(query.resolution, query.agg, query.tz)
    name, args = bucketed_statement([], [], True, start, query.end, bucketing, None)
    if name != "history.bucketed_num":
        return None
    # bucketed_num's arguments less the series ($1, $2) and the site ($10).
    return "history.device_buckets_num", [*args[2:9], *args[10:12]]


async def read_history(
    pool: Any, principal: Principal, reference: str, query: HistoryQuery
) -> History:
    """The answer, from `pool` (the primary's, or a standby's ReadPool). On a plain pool
    the two statements (the device with its field, then the readings) share one
    connection: one acquire and release instead of two (each costs about as much CPU as
    a small statement). A ReadPool keeps its fallback to the primary statement by
    statement."""
    if isinstance(pool, asyncpg.Pool):
        async with pool.acquire() as connection:
            return await _read(connection, principal, reference, query)
    return await _read(pool, principal, reference, query)


async def _read(pool: Any, principal: Principal, reference: str, query: HistoryQuery) -> History:
    # The device and its field in one statement (the tenancy rule of resolve_device, then
    # the field), instead of resolve_device and a second round trip.
    device_id, dev_eui = split_reference(reference)
    if device_id is None and dev_eui is None:
        raise not_found("device")
    device = (principal.partner_id, principal.sub_account_id, device_id, dev_eui)
    field = (query.field, parse_uuid(query.field))
    together = points_with_context(query)
    if together is None:
        context: Any = await pool.fetchrow(
            QUERIES["history.device_context"], *device, *field, query.site_id
        )
    else:
        context = await pool.fetchrow(QUERIES[together[0]], *device, *field, *together[1])
    if context is None or context["status"] != DeviceStatus.ASSIGNED:
        raise not_found("device")
    if query.field == SIGNAL_QUALITY:
        field_num, identifier, data_type, kind = 0, SIGNAL_QUALITY, "number", "decoded"
        measurement = "gauge"
    elif context["field_num"] is None:
        known = [f.identifier for f in await profile_fields(pool, context["profile_id"])]
        raise invalid_parameter(
            "field",
            f"{query.field!r} is not a field of the device's profile; valid identifiers: "
            + ", ".join([*known, SIGNAL_QUALITY]),
        )
    else:
        field_num, identifier = context["field_num"], context["identifier"]
        data_type, kind = context["data_type"], context["kind"]
        measurement = context["measurement"]
    chart.check_field(query.chart, query.agg, data_type, measurement)
    numeric = data_type == "number"
    # Signal quality is an integer 0-100 (D15): its readings, min, max, last, sum and
    # count are integers; avg stays a number.
    whole = query.field == SIGNAL_QUALITY
    if (
        query.agg is not None
        and not numeric
        and query.agg not in (*NON_NUMERIC_AGGS, *chart.aggregates.STATE_AGGS)
    ):
        raise invalid_parameter("agg", f"a {data_type} field takes count or last only")

    start, end, cutoff = query.start, query.end, query.cutoff
    if end <= cutoff:
        raise forbidden(
            ErrorCode.OUTSIDE_RETENTION, "the range is entirely outside the plan retention"
        )
    clamped = start < cutoff
    if clamped:
        start = cutoff

    site_num: int | None = None
    if query.site_id is not None:
        site_num = context["site_num"] if context["site_num"] is not None else NO_SITE_MATCH

    history = History(
        device_id=context["id"],
        field=identifier,
        resolution=query.resolution_text,
        agg=query.agg if query.agg is not None else msgspec.UNSET,
        tz=query.tz if query.tz is not None else msgspec.UNSET,
        from_=start,
        to=end,
        clamped=True if clamped else msgspec.UNSET,
        retention_cutoff=cutoff if clamped else msgspec.UNSET,
        points=[],
    )
    series = Series(
        device_num=context["num"],
        field_num=field_num,
        numeric=numeric,
        whole=whole,
        multi_site=context["multi_site"],
        static=kind == "static",
    )
    options = query.chart
    if query.resolution is None and options.max_points is not None and not series.static:
        history.points, downsampled = await chart.read_downsampled(
            pool, context["num"], field_num, start, end, site_num, options, whole,
            context["multi_site"],
        )  # fmt: skip
        history.points.reverse()  # newest first on /history
        if downsampled is not None:
            history.downsampled = downsampled
        return history
    # The points came with the context when it is a field they are read for (the
    # statement's own condition, device_buckets_num and device_raw_num).
    read_together = together is not None and numeric and not series.static
    if query.resolution is None:
        if read_together:
            history.points = raw_points(context, whole, context["multi_site"])
        else:
            history.points = await read_newest(pool, series, start, end, site_num, RAW_LIMIT + 1)
        if len(history.points) > RAW_LIMIT:
            history.truncated = True
            del history.points[RAW_LIMIT:]
        return history

    assert query.agg is not None
    span = chart.SeriesSpan(
        numeric, data_type, context["num"], field_num, start, end, cutoff, site_num,
        query.resolution, query.agg, query.tz, options,
    )  # fmt: skip
    if query.agg in NEW_AGGS and not series.static:
        history.points = await chart.aggregate_points(pool, span)
        history.points.reverse()  # newest first on /history
        return history
    if read_together:
        history.points = numeric_bucket_points(
            context["buckets"], context["values"], query.agg, whole
        )
        return history
    bucketing = Bucketing(query.resolution, query.agg, query.tz)
    (points,) = await read_buckets(pool, [series], start, end, bucketing, site_num)
    if options.fill is not None and not series.static:
        # The fill works oldest first, as the buckets are read.
        points = await chart.fill_points(pool, points, None, span)
    points.reverse()  # newest first on /history
    history.points = points
    return history
