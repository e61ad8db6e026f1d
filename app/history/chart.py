"""Chart-ready series (analytics.md section 3): the parameters and the reads behind them.

`parse_chart` checks what needs no database (fill, fillMaxGap, maxPoints, downsample,
state, and which resolution each applies to); `check_field` what depends on the field (its
data type and measurement); the reads answer one series, oldest first, so /history (which
reverses them), POST /query and the exports use the same functions per series:

- `read_aggregate`: increase, twa, integral and duration from the partials of the packed
  weeks (hours, days) merged with the readings around them, the range's edges and raw
  rows, and the reading before it (app/history/aggregates.py);
- `fill_points`: the points of every bucket of the range (app/history/fill.py);
- `read_downsampled`: every reading of the range reduced to `maxPoints`
  (app/history/downsample.py).
"""

from __future__ import annotations

import bisect
import uuid
from dataclasses import dataclass
from datetime import datetime
from operator import itemgetter
from typing import Any

import msgspec

from app.core.errors import invalid_parameter
from app.core.sql import QUERIES
from app.history import aggregates, downsample
from app.history.buckets import labels_in, pieces
from app.history.fill import (
    Bucket,
    FillRule,
    check_fill_agg,
    fill_buckets,
    parse_fill,
    previous_seed,
)
from app.history.planner import Resolution, from_micros, plan_segments, to_micros
from app.history.structs import Downsampled, HistoryPoint
from app.history.zones import zone_kind

# The most readings one series' read takes into memory (maxPoints and the aggregates that
# weigh readings by time): a year of readings every 30 seconds. More is a 400 asking for
# a shorter range, never an unbounded read.
MAX_RANGE_READINGS = 1_000_000
_decode_values = msgspec.json.Decoder(list[Any]).decode


@dataclass(frozen=True)
class ChartOptions:
    fill: FillRule | None = None
    max_points: int | None = None
    method: str = "lttb"
    state: str | None = None
    # The request's now: fill's buckets and the time-weighted aggregates end there.
    now: datetime | None = None


NO_CHART = ChartOptions()


@dataclass(frozen=True)
class SeriesSpan:
    """One series' bucketed read of a chart request: which series, the range, the retention
    cutoff, the buckets and the options; what the aggregates and the fill read by."""

    numeric: bool
    data_type: str
    device: int
    field: int
    start: datetime
    end: datetime
    cutoff: datetime
    site: int | None
    resolution: Resolution
    agg: str
    tz: str | None
    options: ChartOptions


def parse_chart(
    *,
    bucketed: bool,
    agg: str | None,
    now: datetime,
    fill: str | None = None,
    fill_max_gap: str | None = None,
    max_points: str | None = None,
    method: str | None = None,
    state: str | None = None,
) -> ChartOptions:
    """The section 3 parameters of a request; a 400 `invalid_parameter` naming the rule."""
    rule = parse_fill(fill, fill_max_gap, bucketed)
    points = None
    if max_points is not None:
        if bucketed:
            raise invalid_parameter("maxPoints", "applies to resolution=raw only")
        try:
            points = int(max_points)
        except ValueError:
            points = None
        if points is None or not downsample.MIN_POINTS <= points <= downsample.MAX_POINTS:
            raise invalid_parameter(
                "maxPoints",
                f"must be an integer from {downsample.MIN_POINTS} to {downsample.MAX_POINTS}",
            )
    if method is not None:
        if method not in downsample.METHODS:
            raise invalid_parameter("downsample", "must be lttb or minmax")
        if points is None:
            raise invalid_parameter("downsample", "applies only with maxPoints")
    if state is not None and agg != "duration":
        raise invalid_parameter("state", "applies only with agg=duration")
    if agg == "duration" and state is None:
        raise invalid_parameter("state", "agg=duration needs state=<value> (the state timed)")
    return ChartOptions(rule, points, method or "lttb", state, now)


def check_field(
    options: ChartOptions, agg: str | None, data_type: str, measurement: str | None
) -> None:
    """The rules that depend on the field: each new aggregate on its measurement, maxPoints
    on numbers, fill=zero with count or sum, linear on numeric aggregates."""
    field = f"this is a {data_type} field of measurement {measurement or 'null'}"
    if agg in aggregates.COUNTER_AGGS and measurement != "counter":
        raise invalid_parameter("agg", f"{agg} applies to counter fields only; {field}")
    if agg in aggregates.WEIGHTED_AGGS and data_type != "number":
        raise invalid_parameter("agg", f"{agg} applies to number fields only; {field}")
    if agg in aggregates.STATE_AGGS and measurement != "state":
        raise invalid_parameter("agg", f"{agg} applies to state fields only; {field}")
    if options.max_points is not None and data_type != "number":
        raise invalid_parameter("maxPoints", f"applies to number fields, not {data_type}")
    if agg is not None:
        numeric_value = data_type == "number" or agg == "count" or agg in aggregates.NEW_AGGS
        check_fill_agg(options.fill, agg, numeric_value)


def state_value(options: ChartOptions, data_type: str) -> Any:
    """The state timed by duration, as the readings hold it (a boolean's true or false)."""
    if data_type == "boolean":
        if options.state not in ("true", "false"):
            raise invalid_parameter("state", "a boolean field's state is true or false")
        return options.state == "true"
    return options.state


async def last_before(
    connection: Any,
    numeric: bool,
    device: int,
    field: int,
    cutoff: datetime,
    start: datetime,
    site: int | None,
) -> aggregates.Reading | None:
    """The last reading before `start` within retention, if any."""
    row = await connection.fetchrow(
        QUERIES["history.last_before_num" if numeric else "history.last_before_other"],
        device, field, cutoff, start, site,
    )  # fmt: skip
    if row is None:
        return None
    return aggregates.Reading(row["time_us"], row["value"])


def _limit(options: ChartOptions, end: datetime) -> datetime:
    return min(end, options.now) if options.now is not None else end


async def read_aggregate(connection: Any, span: SeriesSpan) -> dict[int, aggregates.BucketResult]:
    """increase, twa, integral or duration per bucket label (epoch microseconds), from the
    partials of the packed readings where they serve (`_read_parts`)."""
    lo = to_micros(span.start)
    weighted = span.agg != "increase"
    end = _limit(span.options, span.end) if weighted else span.end
    if to_micros(end) <= lo:
        return {}
    cut = pieces(lo, to_micros(end), span.resolution, span.tz)
    return await _read_parts(connection, span, end, cut)


def _check_readings(count: int) -> None:
    if count > MAX_RANGE_READINGS:
        raise invalid_parameter(
            "from", f"the range holds more than {MAX_RANGE_READINGS} readings; ask a shorter one"
        )


async def _read_parts(
    connection: Any, span: SeriesSpan, end: datetime, cut: list[Any]
) -> dict[int, aggregates.BucketResult]:
    """increase, twa, integral or duration of a series over [span.start, end): the
    readings of the range's edges and raw rows, the hourly partials and daily rollups of
    its packed readings where whole hours and days nest in the buckets (the planner's
    segments), and the reading before it; periods whose partials cannot serve are read
    reading by reading (a second statement, only then)."""
    segments = plan_segments(span.start, end, span.resolution, zone_kind(span.tz, span.start, end))
    bounds = (
        span.device, span.field, span.start, end, span.site, MAX_RANGE_READINGS + 1,
        span.cutoff, segments.hour_lo, segments.day_lo, segments.day_hi, segments.hour_hi,
    )  # fmt: skip
    state = None
    if span.numeric:
        row = await connection.fetchrow(
            QUERIES["history.span_parts_num"], *bounds, span.agg == "increase"
        )
        values: list[Any] = row["values"] or []
        blocks = aggregates.hour_blocks(row, span.agg == "increase") + aggregates.day_blocks(row)
    else:
        row = await connection.fetchrow(QUERIES["history.span_parts_other"], *bounds)
        values = _decode_values(row["values"]) if row["values"] is not None else []
        state = state_value(span.options, span.data_type)
        blocks = aggregates.state_blocks(row, state)
    times: list[int] = row["times"] or []
    _check_readings(len(times))
    before = None
    if row["before_time"] is not None:
        before = aggregates.Reading(row["before_time"], row["before_value"])
    nested = span.tz is None and not span.resolution.months
    unread = aggregates.impure_periods(blocks, times, None if nested else cut)
    while True:
        if unread:
            blocks = [b for b in blocks if (b.lo, b.hi) not in unread]
            times, values = await _read_periods(connection, span, unread, times, values)
            unread = set()
        items = aggregates.elements(times, values, blocks)
        if span.agg != "increase":
            return aggregates.blocked_weighted(span.agg, items, before, cut, state)
        result = aggregates.blocked_increase(items, before, cut)
        if isinstance(result, dict):
            return result
        unread = result


async def _read_periods(
    connection: Any,
    span: SeriesSpan,
    periods: set[tuple[int, int]],
    times: list[int],
    values: list[Any],
) -> tuple[list[int], list[Any]]:
    """`times` and `values` with every reading of `periods` (raw rows already among them
    included once), oldest first."""
    ordered = sorted(periods)
    row = await connection.fetchrow(
        QUERIES["history.ranges_num" if span.numeric else "history.ranges_other"],
        span.device, span.field, [from_micros(lo) for lo, _ in ordered],
        [from_micros(hi) for _, hi in ordered], span.site,
    )  # fmt: skip
    read = row["values"] or []
    if not span.numeric and row["values"] is not None:
        read = _decode_values(row["values"])
    starts = [lo for lo, _ in ordered]
    kept = [(t, v) for t, v in zip(times, values, strict=True) if not _inside(starts, ordered, t)]
    kept.extend(zip(row["times"] or [], read, strict=True))
    # By time only, stably: each list is in the statements' order (time, value, site), and
    # no time is in both (the kept readings lie outside the periods).
    kept.sort(key=itemgetter(0))
    _check_readings(len(kept))
    return [t for t, _ in kept], [v for _, v in kept]


def _inside(starts: list[int], periods: list[tuple[int, int]], time: int) -> bool:
    at = bisect.bisect_right(starts, time) - 1
    return at >= 0 and time < periods[at][1]


async def aggregate_points(connection: Any, span: SeriesSpan) -> list[HistoryPoint]:
    """The points of increase, twa, integral or duration, oldest first, filled when asked."""
    buckets = await read_aggregate(connection, span)
    points = [HistoryPoint(from_micros(label), b.value) for label, b in sorted(buckets.items())]
    if span.options.fill is None:
        return points
    return await fill_points(
        connection, points, {label: b.newest for label, b in buckets.items()}, span
    )


async def newest_per_bucket(
    connection: Any,
    numeric: bool,
    device: int,
    field: int,
    start: datetime,
    end: datetime,
    site: int | None,
    resolution: Resolution,
    tz: str | None,
) -> dict[int, int]:
    """The time of the newest reading of each non-empty bucket (for fillMaxGap)."""
    segments = plan_segments(start, end, resolution, zone_kind(tz, start, end))
    rows = await connection.fetch(
        QUERIES["history.bucket_newest_num" if numeric else "history.bucket_newest_other"],
        device, field, start, end, resolution.interval, tz, site,
        segments.hour_lo, segments.hour_hi,
    )  # fmt: skip
    return {row["bucket"]: row["newest"] for row in rows}


async def fill_points(
    connection: Any, points: list[HistoryPoint], newest: dict[int, int] | None, span: SeriesSpan
) -> list[HistoryPoint]:
    """`points` (the non-empty buckets, oldest first) with every bucket of the range."""
    rule = span.options.fill
    assert rule is not None
    limit = to_micros(_limit(span.options, span.end))
    lo = to_micros(span.start)
    labels = labels_in(lo, limit, span.resolution, span.tz)
    by_label = {to_micros(p.time): p for p in points}
    known = {
        label: Bucket(p.value, newest.get(label) if newest else None)
        for label, p in by_label.items()
    }
    before = None
    if rule.mode == "previous":
        if rule.max_gap is not None and newest is None:
            newest = await newest_per_bucket(
                connection, span.numeric, span.device, span.field, span.start, span.end,
                span.site, span.resolution, span.tz,
            )  # fmt: skip
            known = {label: Bucket(b.value, newest.get(label)) for label, b in known.items()}
        # The reading before `from` matters only when the range opens with empty buckets.
        if labels and labels[0] not in known:
            reading = await last_before(
                connection, span.numeric, span.device, span.field, span.cutoff, span.start,
                span.site,
            )  # fmt: skip
            if reading is not None:
                before = Bucket(previous_seed(span.agg, reading.value), reading.time)
    out: list[HistoryPoint] = []
    for point in fill_buckets(labels, known, rule, before):
        if point.filled:
            out.append(HistoryPoint(from_micros(point.label), point.value, filled=True))
        else:  # a non-empty bucket: its own point, marked
            own = by_label[point.label]
            own.filled = False
            out.append(own)
    return out


async def read_downsampled(
    connection: Any,
    device: int,
    field: int,
    start: datetime,
    end: datetime,
    site: int | None,
    options: ChartOptions,
    whole: bool,
    multi_site: bool,
) -> tuple[list[HistoryPoint], Downsampled | None]:
    """Every numeric reading of [start, end) reduced to options.max_points real readings,
    oldest first, with what was reduced (None when nothing was): app/history/downsample.py
    reads them (the packed weeks expanded there, not in SQL) and picks those kept."""
    max_points = options.max_points
    assert max_points is not None
    readings = await downsample.read_numbers(
        connection, device, field, start, end, site, MAX_RANGE_READINGS
    )
    if options.method == "minmax":
        kept = downsample.minmax(
            readings.times, readings.values, to_micros(start), to_micros(end), max_points
        )
    else:
        kept = downsample.lttb(readings.times, readings.values, max_points)
    times: list[int] = readings.times[kept].tolist()
    values: list[Any] = readings.values[kept].tolist()
    if whole:
        values = [int(value) for value in values]
    site_ids: list[uuid.UUID | None] | None = None
    if multi_site:
        site_nums: list[int] = readings.sites[kept].tolist()
        named = sorted({num for num in site_nums if num})
        ids: dict[int, uuid.UUID] = {}
        if named:
            rows = await connection.fetch(QUERIES["history.downsample_site_ids"], named)
            ids = {row["num"]: row["id"] for row in rows}
        site_ids = [ids.get(num) for num in site_nums]
    points = [
        HistoryPoint(from_micros(time), value, site_ids[index] if site_ids is not None else None)
        for index, (time, value) in enumerate(zip(times, values, strict=True))
    ]
    if len(kept) == len(readings.times):
        return points, None
    reduced = Downsampled(method=options.method, readings=len(readings.times), points=len(kept))
    return points, reduced
