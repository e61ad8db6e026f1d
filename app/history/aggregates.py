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

Readings of packed weeks come as their partials where those serve (`Block`, below): the
same rules over readings and blocks, in `blocked_increase` and `blocked_weighted`.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

import msgspec

from app.history.buckets import Piece

MICROS_PER_HOUR = 3_600_000_000
MICROS_PER_DAY = 24 * MICROS_PER_HOUR
MICROS_PER_SECOND = 1_000_000
COUNTER_AGGS = ("increase",)
WEIGHTED_AGGS = ("twa", "integral")
STATE_AGGS = ("duration",)
NEW_AGGS = (*COUNTER_AGGS, *WEIGHTED_AGGS, *STATE_AGGS)
_decode_json = msgspec.json.decode


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
    the range the readings were read from (readings only: `blocked_increase`)."""
    result = blocked_increase(elements(times, values, ()), before, pieces)
    assert isinstance(result, dict)  # readings alone never need more readings
    return result


def weighted(
    agg: str,
    times: Sequence[int],
    values: Sequence[Any],
    before: Reading | None,
    pieces: Sequence[Piece],
    state: Any = None,
) -> dict[int, BucketResult]:
    """twa, integral or duration (of `state`) of each bucket where a value holds, by
    bucket label; `pieces` cover [from, the earlier of to and now) (readings only:
    `blocked_weighted`)."""
    return blocked_weighted(agg, elements(times, values, ()), before, pieces, state)


def _amount(duration: bool, value: Any, span: int, state: Any) -> float:
    """What `value` held for `span` microseconds adds: value x time, or for duration the
    time itself when the value is the state timed."""
    if duration:
        return float(span) if _is_state(value, state) else 0.0
    return float(value * span)


# Partials (schema/180-composable-partials.sql) ---------------------------------------------
#
# A packed week's hour or a day's rollup summarises the readings of its period at one
# site. Where no other reading falls in that period (a raw row, another site's), its
# readings are consecutive in the series, so it stands for them in the computations above:
# `Block` holds what they need of it, and a bucket's answer is the merge of its blocks and
# readings plus the boundary terms (the value held into a block until its first reading,
# the growth of its first reading over the reading before it), as the Toolkit's
# counter_agg and time_weight merge. Periods where that does not hold are read reading by
# reading (`impure_periods`, `increase_blocks`), so answers stay exact.


@dataclass(slots=True)
class Block:
    lo: int  # its period [lo, hi), epoch microseconds
    hi: int
    site: int
    first: int  # the time of its first reading
    last: int  # and of its last
    last_value: float
    area: float  # the integral of its readings from first to last, value x microseconds
    # increase: with first_value (a day, or the first hour of a packed week), its growth
    # after its first reading; otherwise (an hour) its growth including the first reading,
    # over the reading before it in its week, (prev_time, prev_value). None: not kept.
    first_value: float | None
    growth: float | None
    prev_time: int | None = None
    prev_value: float | None = None

    def increase_after(self, before: Reading | None) -> float | None:
        """Its increase when `before` is the reading before its first one (None: none
        within retention); None when that needs its readings."""
        if self.growth is None:
            return None
        if self.first_value is not None:
            return _growth(None if before is None else before.value, self.first_value) + self.growth
        if before is None or before.time != self.prev_time or before.value != self.prev_value:
            return None
        return self.growth


def _growth(before: float | None, value: float) -> float:
    """A reading's growth over the value before it (None: none within retention): a
    smaller value is a reset, from zero."""
    if before is None:
        return 0.0
    return float(value) if value < before else float(value - before)


def hour_blocks(row: Any, counting: bool) -> list[Block]:
    """The hourly partials of a span_parts_num row as blocks (the derived values filled
    in: an evenly spaced hour's integral and, when `counting`, a reset-free hour's
    increase)."""
    out: list[Block] = []
    if row["h_start"] is None:
        return out
    for (
        start, site, n, total, first, last, last_value, growth, area, prev_time, prev_value,
        week_first, counted,
    ) in zip(
        row["h_start"], row["h_site"], row["h_n"], row["h_sum"], row["h_first"],
        row["h_last"], row["h_last_value"], row["h_increase"], row["h_integral"],
        row["h_prev_time"], row["h_prev_value"], row["h_week_first"], row["h_counted"],
        strict=True,
    ):  # fmt: skip
        if area is None:  # evenly spaced readings: step x (sum of all but the last)
            area = 0.0 if n == 1 else (total - last_value) * ((last - first) / (n - 1))
        first_value = week_first if prev_time is None else None
        if not counting or not counted:
            growth = None
        elif growth is None:  # no reset: the values telescope
            growth = last_value - (week_first if prev_time is None else prev_value)
        out.append(
            Block(start, start + MICROS_PER_HOUR, site, first, last, last_value, area,
                  first_value, growth, prev_time, prev_value)
        )  # fmt: skip
    return out


def day_blocks(row: Any) -> list[Block]:
    """The daily rollups of a span_parts_num row as blocks."""
    out: list[Block] = []
    if row["d_start"] is None:
        return out
    for start, site, first, first_value, last, last_value, growth, area in zip(
        row["d_start"], row["d_site"], row["d_first"], row["d_first_value"], row["d_last"],
        row["d_last_value"], row["d_increase"], row["d_integral"], strict=True,
    ):  # fmt: skip
        out.append(
            Block(start, start + MICROS_PER_DAY, site, first, last, last_value, area,
                  first_value, growth)
        )  # fmt: skip
    return out


def state_blocks(row: Any, state: Any) -> list[Block]:
    """The hourly partials and daily rollups of a span_parts_other row as blocks for the
    duration of `state`: their `area` is the microseconds it held between their first
    reading and their last (an hour without durations held its last value throughout)."""
    out: list[Block] = []
    for prefix, width in (("h", MICROS_PER_HOUR), ("d", MICROS_PER_DAY)):
        if row[f"{prefix}_start"] is None:
            continue
        last_values = _decode_json(row[f"{prefix}_last_value"])
        durations = _decode_json(row[f"{prefix}_durations"])
        for start, site, first, last, last_value, held in zip(
            row[f"{prefix}_start"], row[f"{prefix}_site"], row[f"{prefix}_first"],
            row[f"{prefix}_last"], last_values, durations, strict=True,
        ):  # fmt: skip
            if held is None:
                area = float(last - first) if _is_state(last_value, state) else 0.0
            else:
                area = float(
                    sum(m for key, m in held.items() if _is_state(_decode_json(key), state))
                )
            out.append(Block(start, start + width, site, first, last, last_value, area, None, None))
    return out


def _is_state(value: Any, state: Any) -> bool:
    return bool(value == state and type(value) is type(state))


def impure_periods(
    blocks: Sequence[Block], times: Sequence[int], pieces: Sequence[Piece] | None
) -> set[tuple[int, int]]:
    """The periods whose blocks cannot stand for their readings: a reading of another
    source inside, another site's block of the same period, or a period across two
    `pieces` (never, by the planner's segments; checked where buckets follow a zone or the
    calendar, None where they are UTC fixed widths, which whole hours and days nest in)."""
    seen: set[tuple[int, int]] = set()
    out: set[tuple[int, int]] = set()
    starts = [p.lo for p in pieces] if pieces is not None else []
    # The hours and days that hold a reading read one by one (raw rows, edges).
    hours = {t - t % MICROS_PER_HOUR for t in times}
    days = {t - t % MICROS_PER_DAY for t in times}
    for block in blocks:
        period = (block.lo, block.hi)
        if period in seen:
            out.add(period)
        seen.add(period)
        if block.lo in (hours if block.hi - block.lo == MICROS_PER_HOUR else days):
            out.add(period)
        if pieces is not None:
            at = bisect.bisect_right(starts, block.lo) - 1
            if at < 0 or pieces[at].hi < block.hi:
                out.add(period)
    return out


# Later than any time of a range (epoch microseconds; 9999-12-31 is 2.5e17).
_AFTER_ALL = 2**63

Element = tuple[int, Any, Block | None]  # (time, value, block): a reading or a block


def elements(times: Sequence[int], values: Sequence[Any], blocks: Sequence[Block]) -> list[Element]:
    """Readings and blocks in the series' order (a block by its first reading; no other
    reading lies in its period)."""
    out: list[Element] = [(t, v, None) for t, v in zip(times, values, strict=True)]
    out.extend((b.first, b.last_value, b) for b in blocks)
    # By time, stably: readings come in the statements' order (time, value, site), and a
    # block's first reading is at no reading's time.
    out.sort(key=itemgetter(0))
    return out


def blocked_increase(
    items: Sequence[Element], before: Reading | None, pieces: Sequence[Piece]
) -> dict[int, BucketResult] | set[tuple[int, int]]:
    """`increase` over readings and blocks; or the periods of the blocks whose increase
    needs their readings (the reading before them is not the one their week saw)."""
    out: dict[int, BucketResult] = {}
    need: set[tuple[int, int]] = set()
    # The reading before the current item as plain values (a Reading object per reading
    # was a third of this loop); one is made for a block only.
    previous_time = before.time if before is not None else 0
    previous_value = before.value if before is not None else None
    at = 0
    upto = pieces[0].hi if pieces else 0
    for time, value, block in items:
        if block is None:
            growth = _growth(previous_value, value)
            previous_time, previous_value, newest = time, value, time
        else:
            found = block.increase_after(
                None if previous_value is None else Reading(previous_time, previous_value)
            )
            if found is None:
                need.add((block.lo, block.hi))
                found = 0.0
            growth = found
            previous_time, previous_value, newest = block.last, block.last_value, block.last
        while upto <= time:
            at += 1
            upto = pieces[at].hi
        label = pieces[at].label
        bucket = out.get(label)
        if bucket is None:
            out[label] = BucketResult(growth, newest)
        else:
            bucket.value += growth
            bucket.newest = newest
    return need if need else out


def blocked_weighted(
    agg: str,
    items: Sequence[Element],
    before: Reading | None,
    pieces: Sequence[Piece],
    state: Any = None,
) -> dict[int, BucketResult]:
    """twa, integral or duration (of `state`) over readings and blocks, as `weighted`: a
    block adds the value held into it until its first reading, then its own integral (or
    duration), and holds its last value."""
    duration = agg == "duration"
    # Per label: [microseconds covered, weighted sum, time of the value held at its end].
    # The loop runs once per piece and per item (a month of hourly buckets: ~1,500 turns),
    # so it reads each item once, compares against a sentinel past every time instead of
    # None, and multiplies numbers in place (the value held is a float; only a state's
    # duration needs _amount); the arithmetic and its order are as before.
    sums: dict[int, list[Any]] = {}
    held: Any = before.value if before is not None else None
    held_time = before.time if before is not None else None
    n = len(items)
    j = 0
    following = items[0][0] if n else _AFTER_ALL
    for at, hi, label in pieces:
        span_sum, amount = 0, 0.0
        while following < hi:
            time, value, block = items[j]
            if held_time is not None and time > at:
                span_sum += time - at
                amount += (
                    _amount(True, held, time - at, state) if duration else float(held * (time - at))
                )
            if block is None:
                held, held_time = value, time
            else:
                span_sum += block.last - block.first
                amount += block.area
                held, held_time = block.last_value, block.last
            if held_time > at:
                at = held_time
            j += 1
            following = items[j][0] if j < n else _AFTER_ALL
        if held_time is not None and hi > at:
            span_sum += hi - at
            amount += _amount(True, held, hi - at, state) if duration else float(held * (hi - at))
        if span_sum == 0:
            continue
        assert held_time is not None
        found = sums.get(label)
        if found is None:
            sums[label] = [span_sum, amount, held_time]
        else:
            found[0] += span_sum
            found[1] += amount
            found[2] = held_time
    out: dict[int, BucketResult] = {}
    for label, (span, total, newest) in sums.items():
        if agg == "twa":
            value = total / span
        elif agg == "integral":
            value = total / MICROS_PER_HOUR
        else:
            value = total / MICROS_PER_SECOND
        out[label] = BucketResult(value, newest)
    return out
