"""Reading series: the one implementation behind GET /devices/{id}/history and POST /query.

A series is one field of one device. Its points are read three ways, each written once:

- `read_buckets`: bucketed points of several series in one statement per kind of value
  (sql/history/history.sql bucketed_num/_other take arrays of series); /history reads a
  batch of one, POST /query batches of many.
- `read_newest`: the newest raw readings, newest first (/history's page of 500).
- `read_from`: raw readings oldest first from a key on (POST /query's keyset pages).

The points are built by the same functions (`raw_points`, `bucket_point`), so a series
answered by /history and by POST /query is the same list, only in opposite order.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import repeat
from typing import Any

import msgspec

from app.core.sql import QUERIES
from app.history.planner import Resolution, plan_segments
from app.history.structs import HistoryPoint
from app.history.zones import ZoneKind, week_hours_across_midnight, zone_kind

NON_NUMERIC_AGGS = ("count", "last")
# The aggregates whose local days are read as UTC days' rollups with hours moved between
# them (sql/history/history.sql bucketed_num_local_days): they add up, so an hour can be
# taken out of a day.
ADDITIVE_AGGS = ("avg", "sum", "count")
_decode_times = msgspec.json.Decoder(list[datetime]).decode
_decode_site_ids = msgspec.json.Decoder(dict[int, uuid.UUID]).decode


@dataclass(frozen=True)
class Series:
    """One device field as the reads need it."""

    device_num: int
    field_num: int  # 0: signal quality
    numeric: bool
    # Signal quality is an integer 0-100 (D15): its readings, min, max, last, sum and count
    # are integers; avg stays a number.
    whole: bool
    # Whether raw points carry the id of their site (the device's sub-account has
    # multi-site on).
    multi_site: bool
    # Static fields have no history: no points, and nothing is read.
    static: bool = False


@dataclass(frozen=True)
class Bucketing:
    """How bucketed points are asked for: width, aggregate and zone."""

    resolution: Resolution
    agg: str
    tz: str | None


@dataclass(frozen=True)
class RawKey:
    """Where a raw reading sorts in a series: time, then value, then site num (0: none)."""

    time: datetime
    value: Any
    site_num: int


async def read_buckets(
    connection: Any,
    series: Sequence[Series],
    start: datetime,
    end: datetime,
    bucketing: Bucketing,
    site_num: int | None = None,
) -> list[list[HistoryPoint]]:
    """The buckets of each series in [start, end), oldest first: one statement for the
    numeric series and one for the others (none for static ones)."""
    answers: list[list[HistoryPoint]] = [[] for _ in series]
    for numeric in (True, False):
        chosen = [i for i, s in enumerate(series) if s.numeric == numeric and not s.static]
        if not chosen:
            continue
        name, args = bucketed_statement(
            [series[i].device_num for i in chosen],
            [series[i].field_num for i in chosen],
            numeric,
            start,
            end,
            bucketing,
            site_num,
        )
        rows = await connection.fetch(QUERIES[name], *args)
        for row in rows:
            index = chosen[row[0] - 1]
            answers[index].append(
                bucket_point(row[1:], numeric, bucketing.agg, series[index].whole)
            )
    return answers


def bucketed_statement(
    device_nums: list[int],
    field_nums: list[int],
    numeric: bool,
    start: datetime,
    end: datetime,
    bucketing: Bucketing,
    site_num: int | None,
) -> tuple[str, list[Any]]:
    """The named statement and its arguments that read the buckets of these series (all
    numeric or all not) in [start, end). Local days of avg, sum and count in a zone of
    whole-hour offsets read UTC days' rollups and move hours between them (no UTC day
    nests in a local day, but one nearly does)."""
    zone = zone_kind(bucketing.tz, start, end)
    name = "history.bucketed_num" if numeric else "history.bucketed_other"
    segments = plan_segments(start, end, bucketing.resolution, zone)
    extra: list[Any] = []
    if (
        numeric
        and bucketing.tz is not None
        and zone is ZoneKind.WHOLE_HOURS
        and bucketing.resolution.nests_days
        and bucketing.agg in ADDITIVE_AGGS
    ):
        name = "history.bucketed_num_local_days"
        segments = plan_segments(start, end, bucketing.resolution)
        extra = [week_hours_across_midnight(bucketing.tz, start, end)]
    return name, [
        device_nums,
        field_nums,
        start,
        end,
        bucketing.resolution.interval,
        segments.hour_lo,
        segments.day_lo,
        segments.day_hi,
        segments.hour_hi,
        site_num,
        bucketing.agg,
        bucketing.tz,
        *extra,
    ]


async def read_newest(
    connection: Any,
    series: Series,
    start: datetime,
    end: datetime,
    site_num: int | None,
    limit: int,
) -> list[HistoryPoint]:
    """The newest `limit` raw readings of the series in [start, end), newest first."""
    if series.static:
        return []
    raw = await connection.fetchrow(
        QUERIES["history.raw_num" if series.numeric else "history.raw_other"],
        series.device_num,
        series.field_num,
        start,
        end,
        limit,
        site_num,
    )
    return raw_points(raw, series.whole, series.multi_site)


@dataclass
class RawPage:
    """Raw readings of one series from a key on: the points, whether more follow, and the
    key of the last point with how many points of that very key were given in all
    (readings may repeat a key; the next page skips that many of it)."""

    points: list[HistoryPoint]
    more: bool
    last: RawKey | None
    given: int


async def read_from(
    connection: Any,
    series: Series,
    start: datetime,
    end: datetime,
    after: RawKey | None,
    given: int,
    limit: int,
) -> RawPage:
    """Up to `limit` raw readings of the series in [start, end), oldest first, from the
    key `after` on, less the `given` readings of that very key that came before."""
    if series.static:
        return RawPage([], False, None, 0)
    raw = await connection.fetchrow(
        QUERIES["history.raw_page_num" if series.numeric else "history.raw_page_other"],
        series.device_num,
        series.field_num,
        max(start, after.time) if after is not None else start,
        end,
        after.time if after is not None else None,
        after.value if after is not None else None,
        after.site_num if after is not None else None,
        limit + given + 1,
    )
    if raw["times"] is None:
        return RawPage([], False, None, 0)
    times, values, sites = _decode_times(raw["times"]), raw["values"], raw["sites"]
    # Keys are compared on the arrays as read: no object per reading (a page holds up to
    # 100,000 of them).
    first = 0
    if after is not None:
        while (
            first < min(given, len(times))
            and times[first] == after.time
            and values[first] == after.value
            and sites[first] == after.site_num
        ):
            first += 1
    stop = min(len(times), first + limit)
    if stop == first:
        return RawPage([], False, None, 0)
    last = RawKey(times[stop - 1], values[stop - 1], sites[stop - 1])
    ties = 1
    while (
        stop - 1 - ties >= first
        and times[stop - 1 - ties] == last.time
        and values[stop - 1 - ties] == last.value
        and sites[stop - 1 - ties] == last.site_num
    ):
        ties += 1
    if ties == stop - first and after == last:
        ties += given
    kept = {
        "values": values[first:stop],
        "sites": sites[first:stop],
        "site_ids": raw["site_ids"],
    }
    points = _points(kept, times[first:stop], series.whole, series.multi_site)
    return RawPage(points, len(times) > stop, last, ties)


def raw_points(raw: Any, whole: bool, multi_site: bool) -> list[HistoryPoint]:
    """The points of a raw answer (one row of arrays, NULLs when empty: history.raw_*),
    with the id of each point's site when multi-site is on. The times are decoded from
    their JSON array by msgspec, straight to datetimes."""
    if raw["times"] is None:
        return []
    return _points(raw, _decode_times(raw["times"]), whole, multi_site)


def _points(raw: Any, times: list[datetime], whole: bool, multi_site: bool) -> list[HistoryPoint]:
    values = [as_int(v) for v in raw["values"]] if whole else raw["values"]
    if not multi_site or raw["site_ids"] is None:
        # map over the columns: no Python call per point (500 points: 55-57 us -> 20-33).
        return list(map(HistoryPoint, times, values, repeat(None, len(times))))
    ids = _decode_site_ids(raw["site_ids"])
    return list(map(HistoryPoint, times, values, map(ids.get, raw["sites"])))


def as_int(value: Any) -> Any:
    return int(value) if isinstance(value, float) else value


def integral(agg: str, whole: bool) -> bool:
    """Whether the buckets of a numeric series hold whole numbers (given as floats)."""
    return agg == "count" or (whole and agg != "avg")


def bucket_point(row: Any, numeric: bool, agg: str, whole: bool = False) -> HistoryPoint:
    """A bucket row (bucket, value) of a numeric series, (bucket, n, last) of another."""
    if numeric:
        value = row[1]
        return HistoryPoint(time=row[0], value=as_int(value) if integral(agg, whole) else value)
    return HistoryPoint(time=row[0], value=row[1] if agg == "count" else row[2])


def numeric_bucket_points(
    times: str | None, values: list[Any] | None, agg: str, whole: bool
) -> list[HistoryPoint]:
    """The points of a numeric series' buckets read as arrays (history.device_buckets_num:
    the bucket starts a JSON array, NULLs when none), in their order: what `bucket_point`
    makes of each row, without a call per bucket."""
    if times is None or values is None:
        return []
    if integral(agg, whole):
        values = [as_int(v) for v in values]
    return list(map(HistoryPoint, _decode_times(times), values))
