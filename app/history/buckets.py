"""The buckets of a range as time_bucket forms them, with their extents in time.

Fill (every bucket of the range, empty ones included) and the time-weighted aggregates
(twa, integral and duration weigh each value by the time it holds inside its bucket) need
more than the label time_bucket gives a reading: they need every bucket of the range and
the instants each one covers. With `tz` a bucket follows the local clock, so on a DST day
a daily bucket is 23 or 25 hours long, and on the night the clock goes back an hourly
bucket covers two UTC hours (and a 15-minute bucket two separate quarters). The range is
therefore cut into pieces: stretches of constant offset, cut again at every local bucket
boundary; each piece lies in exactly one bucket, and a bucket is the union of its pieces.

Times are epoch microseconds throughout (integers, exact). The label of a bucket is what
time_bucket(width, time, tz) returns: the local start converted back to UTC as
PostgreSQL converts a local time, an ambiguous one (the hour repeated when the clock goes
back) as the later instant, one that does not exist (skipped when it goes forward) with
the offset before the change.
"""

from __future__ import annotations

import functools
import zoneinfo
from datetime import UTC, datetime, timedelta
from itertools import repeat
from typing import NamedTuple, cast

from app.history.planner import FIXED_ORIGIN_US, Resolution, from_micros, to_micros

WEEK_US = 7 * 86_400 * 1_000_000
# No zone has kept an offset for less than a week since 1970 (app/history/zones.py), so
# stepping a week at a time finds every change of offset.
_STEP = timedelta(days=7)


class Piece(NamedTuple):
    """[lo, hi) in epoch microseconds, inside the bucket labelled `label` (a named tuple:
    an hourly read over a month makes 720 of them, three times faster than a frozen
    dataclass)."""

    lo: int
    hi: int
    label: int


@functools.cache
def _zone(tz: str) -> zoneinfo.ZoneInfo:
    return zoneinfo.ZoneInfo(tz)


def _offset_us(zone: zoneinfo.ZoneInfo, micros: int) -> int:
    offset = from_micros(micros).astimezone(zone).utcoffset()
    assert offset is not None
    return offset // timedelta(microseconds=1)


def offset_spans(tz: str | None, lo: int, hi: int) -> list[tuple[int, int, int]]:
    """[lo, hi) cut where the zone's offset changes: (start, end, offset), microseconds."""
    if tz is None:
        return [(lo, hi, 0)]
    zone = _zone(tz)
    spans: list[tuple[int, int, int]] = []
    start, offset = lo, _offset_us(zone, lo)
    step = _STEP // timedelta(microseconds=1)
    probe = lo
    while probe < hi:
        following = min(probe + step, hi)
        changed = _offset_us(zone, following)
        if changed != offset:
            # The first microsecond with the new offset, by bisection: the offset is
            # `offset` at `low` and `changed` at `high`.
            low, high = probe, following
            while high - low > 1:
                middle = (low + high) // 2
                if _offset_us(zone, middle) == offset:
                    low = middle
                else:
                    high = middle
            spans.append((start, high, offset))
            start, offset = high, changed
        probe = following
    spans.append((start, hi, offset))
    return [s for s in spans if s[0] < s[1]]


def local_bucket_start(resolution: Resolution, local_us: int) -> int:
    """time_bucket's start of the bucket holding `local_us` (a wall-clock time as epoch
    microseconds): fixed widths from Monday 2000-01-03, months from 2000-01-01."""
    if resolution.months:
        moment = from_micros(local_us)
        index = ((moment.year - 2000) * 12 + moment.month - 1) // resolution.months
        months = index * resolution.months
        return to_micros(datetime(2000 + months // 12, months % 12 + 1, 1, tzinfo=UTC))
    return FIXED_ORIGIN_US + (local_us - FIXED_ORIGIN_US) // resolution.micros * resolution.micros


def next_local_start(resolution: Resolution, local_start: int) -> int:
    if resolution.months:
        moment = from_micros(local_start)
        months = (moment.year - 2000) * 12 + moment.month - 1 + resolution.months
        if months // 12 + 2000 > 9999:
            return to_micros(datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)) + 1
        return to_micros(datetime(2000 + months // 12, months % 12 + 1, 1, tzinfo=UTC))
    return local_start + resolution.micros


def label_of(tz: str | None, local_start: int) -> int:
    """The UTC instant PostgreSQL gives the wall-clock time `local_start` in `tz`."""
    if tz is None:
        return local_start
    zone = _zone(tz)
    naive = from_micros(local_start).replace(tzinfo=None)
    early = naive.replace(tzinfo=zone, fold=0)
    late = naive.replace(tzinfo=zone, fold=1)
    if early.utcoffset() == late.utcoffset():
        return to_micros(early)
    if early.astimezone(UTC).astimezone(zone).replace(tzinfo=None) != naive:
        return to_micros(early)  # skipped by the clock: the offset before the change
    return to_micros(late)  # repeated by the clock: the later instant


def pieces(lo: int, hi: int, resolution: Resolution, tz: str | None) -> list[Piece]:
    """[lo, hi) cut into pieces, each inside one bucket, in time order."""
    if tz is None and not resolution.months:  # UTC fixed widths: plain integer steps
        width = resolution.micros
        starts = range(local_bucket_start(resolution, lo), hi, width)
        # tuple.__new__ over zipped steps builds the pieces in C, three times faster than
        # calling the named tuple per piece (720 of them for a month of hours); the first
        # and last are then clipped to the range.
        ends = range(starts.start + width, hi + width, width)
        steps = zip(starts, ends, starts, strict=True)
        fixed = cast(list[Piece], list(map(tuple.__new__, repeat(Piece), steps)))
        fixed[0] = fixed[0]._replace(lo=lo)
        fixed[-1] = fixed[-1]._replace(hi=hi)
        return fixed
    out: list[Piece] = []
    labels: dict[int, int] = {}
    for start, end, offset in offset_spans(tz, lo, hi):
        local = local_bucket_start(resolution, start + offset)
        at = start
        while at < end:
            following = next_local_start(resolution, local)
            cut = min(end, following - offset)
            label = labels.get(local)
            if label is None:
                label = labels[local] = label_of(tz, local)
            out.append(Piece(at, cut, label))
            at, local = cut, following
    return out


def bucket_labels(all_pieces: list[Piece]) -> list[int]:
    """The distinct buckets of the pieces, oldest label first. Labels can run backwards
    in time: where the clock goes back, a bucket of the repeated hour is labelled with
    its later instant (06:45 UTC for New York's 01:45 on its first night of standard
    time, a bucket whose readings start at 05:45 UTC), so answers sort by label as
    time_bucket's GROUP BY does."""
    return sorted({piece.label for piece in all_pieces})


def labels_in(lo: int, hi: int, resolution: Resolution, tz: str | None) -> list[int]:
    """The buckets with instants in [lo, hi), oldest label first. In UTC with a fixed width
    they are plain steps (a range of integers: no pieces needed, the common case a chart
    asks for); otherwise the distinct labels of the pieces."""
    if hi <= lo:
        return []
    if tz is None and not resolution.months:
        return list(range(local_bucket_start(resolution, lo), hi, resolution.micros))
    return bucket_labels(pieces(lo, hi, resolution, tz))


def bucket_of(resolution: Resolution, tz: str | None, micros: int) -> int:
    """The label of the bucket holding the instant `micros` (time_bucket with tz)."""
    offset = 0 if tz is None else _offset_us(_zone(tz), micros)
    return label_of(tz, local_bucket_start(resolution, micros + offset))
