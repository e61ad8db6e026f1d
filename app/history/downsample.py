"""Downsampling raw series to a point budget (analytics.md section 3, `maxPoints`).

Both methods pick real readings: they return the indices (ascending) of the readings
kept, so every point keeps its own time, value and site. Written over arrays (times in
epoch microseconds, values as numbers, oldest first) so that /history and POST /query
reduce each series alike.

- `lttb`: Largest-Triangle-Three-Buckets (Steinarsson 2013) with the contract's exact
  buckets: the first and last readings kept, the n - 2 between them split by count into
  `max_points - 2` buckets, bucket i holding indices floor(i * every) + 1 up to, not
  including, floor((i + 1) * every) + 1 with every = (n - 2) / (max_points - 2) (computed
  in integers, so no float rounding moves a bound); from each the reading forming the
  largest triangle with the one kept before it and the average of the next bucket (the
  first of equal areas). x is the time in epoch seconds.
- `minmax`: [from, to) cut into max_points // 2 equal time slices, the last ending at
  `to`; each slice with readings gives its minimum and maximum reading (the earliest of
  equal ones), once when they are the same reading.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

METHODS = ("lttb", "minmax")
MIN_POINTS = 2
MAX_POINTS = 10_000


def lttb(times_us: Sequence[int], values: Sequence[float], max_points: int) -> list[int]:
    n = len(times_us)
    if n <= max_points:
        return list(range(n))
    if max_points == MIN_POINTS:
        return [0, n - 1]
    # Plain floats in lists: a bucket holds a few dozen readings at most in practice, and
    # per-bucket array calls cost more than the arithmetic they replace (30 ms for a year
    # of 15-minute readings with numpy, a third of that in this loop).
    x = [t / 1e6 for t in times_us]
    y = [float(v) for v in values]
    buckets = max_points - 2
    span = n - 2
    bounds = [(i * span) // buckets + 1 for i in range(buckets + 1)] + [n]
    kept = [0]
    a = 0
    for i in range(buckets):
        lo, hi = bounds[i], bounds[i + 1]
        # The next bucket; after the last one, the last reading alone (bounds[buckets] is
        # n - 1).
        next_lo, next_hi = hi, min(bounds[i + 2], n)
        count = next_hi - next_lo
        avg_x = sum(x[next_lo:next_hi]) / count
        avg_y = sum(y[next_lo:next_hi]) / count
        xa, ya = x[a], y[a]
        dx, dy = xa - avg_x, avg_y - ya
        best, best_area = lo, -1.0
        for j in range(lo, hi):
            area = abs(dx * (y[j] - ya) - (xa - x[j]) * dy)
            if area > best_area:
                best, best_area = j, area
        kept.append(best)
        a = best
    kept.append(n - 1)
    return kept


def minmax(
    times_us: Sequence[int], values: Sequence[float], start_us: int, end_us: int, max_points: int
) -> list[int]:
    n = len(times_us)
    if n <= max_points:
        return list(range(n))
    slices = max_points // 2
    # Slice i is [start + i * w, start + (i + 1) * w) with w = (end - start) / slices, its
    # bounds in exact integer arithmetic (rounded up: the first microsecond at or after
    # the real bound); the last ends at `end`.
    width = end_us - start_us
    bounds = [start_us + -(-(i * width) // slices) for i in range(slices)] + [end_us]
    edges = [bisect_left(times_us, bound) for bound in bounds]
    kept: list[int] = []
    for i in range(slices):
        lo, hi = edges[i], edges[i + 1]
        if lo >= hi:
            continue
        # The first of equal values is the earliest (readings are in time order).
        low = min(range(lo, hi), key=values.__getitem__)
        high = max(range(lo, hi), key=lambda j: (values[j], -j))
        kept.extend(sorted({low, high}))
    return kept
