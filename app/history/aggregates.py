"""Counter, time-weighted and state aggregates (analytics.md section 3).

Computed over one series' readings of the range, oldest first (times in epoch
microseconds), with the last reading before the range (within retention) and the pieces
of the range's buckets (app/history/buckets.py), so every bucket width and `tz` work
alike:

- `increase`: per reading, its growth over the reading before it (its own value when it is
  lower: a reset, counted as growth from 0; nothing for the very first reading when none
  precedes it), summed per bucket. The reading before a bucket's first one is the last
  reading before it, so the increases of consecutive buckets add up.
- `twa`, `integral`, `duration`: each reading holds its value until the next one; the value
  at the range's start is that of the reading before it. Over each bucket's time inside
  [from, the earlier of to and now): the average weighted by time, the integral in
  value-hours, the seconds during which the value equalled `state`. A bucket where no value
  holds has no point; one that only has a value held into it has one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.history.buckets import Piece

MICROS_PER_HOUR = 3_600_000_000
MICROS_PER_SECOND = 1_000_000
COUNTER_AGGS = ("increase",)
WEIGHTED_AGGS = ("twa", "integral")
STATE_AGGS = ("duration",)
NEW_AGGS = (*COUNTER_AGGS, *WEIGHTED_AGGS, *STATE_AGGS)


@dataclass(frozen=True)
class Reading:
    time: int  # epoch microseconds
    value: Any


@dataclass
class BucketResult:
    value: Any
    newest: int  # the time of the newest reading that gave the bucket its value


def increase(
    times: Sequence[int], values: Sequence[float], before: Reading | None, pieces: Sequence[Piece]
) -> dict[int, BucketResult]:
    """The increase of each bucket that holds readings, by bucket label; `pieces` cover
    the range the readings were read from."""
    out: dict[int, BucketResult] = {}
    previous = before.value if before is not None else None
    at = 0
    for time, value in zip(times, values, strict=True):
        if previous is None:
            growth = 0.0
        elif value < previous:
            growth = value  # a reset: the count started again from 0
        else:
            growth = value - previous
        previous = value
        while pieces[at].hi <= time:
            at += 1
        label = pieces[at].label
        bucket = out.get(label)
        if bucket is None:
            out[label] = BucketResult(growth, time)
        else:
            bucket.value += growth
            bucket.newest = time
    return out


def weighted(
    agg: str,
    times: Sequence[int],
    values: Sequence[Any],
    before: Reading | None,
    pieces: Sequence[Piece],
    state: Any = None,
) -> dict[int, BucketResult]:
    """twa, integral or duration (of `state`) of each bucket where a value holds, by
    bucket label; `pieces` cover [from, the earlier of to and now)."""
    covered: dict[int, int] = {}
    weighted_sum: dict[int, float] = {}
    newest: dict[int, int] = {}
    held, held_time = (before.value, before.time) if before is not None else (None, None)
    duration = agg == "duration"
    n = len(times)
    j = 0
    for piece in pieces:
        # The piece's sums in locals, added to its bucket once (a bucket may have several
        # pieces on days the clock changes).
        at, label = piece.lo, piece.label
        span_sum, amount = 0, 0.0
        while j < n and times[j] < piece.hi:
            time = times[j]
            if held_time is not None and time > at:
                span_sum += time - at
                amount += _amount(duration, held, time - at, state)
            held, held_time = values[j], time
            if time > at:
                at = time
            j += 1
        if held_time is not None and piece.hi > at:
            span_sum += piece.hi - at
            amount += _amount(duration, held, piece.hi - at, state)
        if span_sum == 0:
            continue  # no value held in this piece
        assert held_time is not None
        covered[label] = covered.get(label, 0) + span_sum
        weighted_sum[label] = weighted_sum.get(label, 0.0) + amount
        newest[label] = held_time
    out: dict[int, BucketResult] = {}
    for label, span in covered.items():
        total = weighted_sum[label]
        if agg == "twa":
            value = total / span
        elif agg == "integral":
            value = total / MICROS_PER_HOUR
        else:
            value = total / MICROS_PER_SECOND
        out[label] = BucketResult(value, newest[label])
    return out


def _amount(duration: bool, value: Any, span: int, state: Any) -> float:
    """What `value` held for `span` microseconds adds: value x time, or for duration the
    time itself when the value is the state timed."""
    if duration:
        return float(span) if value == state and type(value) is type(state) else 0.0
    return float(value * span)
