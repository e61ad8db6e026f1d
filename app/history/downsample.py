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

from collections.abc import Sequence

import numpy as np

METHODS = ("lttb", "minmax")
MIN_POINTS = 2
MAX_POINTS = 10_000


def lttb(times_us: Sequence[int], values: Sequence[float], max_points: int) -> list[int]:
    n = len(times_us)
    if n <= max_points:
        return list(range(n))
    if max_points == MIN_POINTS:
        return [0, n - 1]
    x = np.asarray(times_us, dtype=np.float64) / 1e6
    y = np.asarray(values, dtype=np.float64)
    buckets = max_points - 2
    span = n - 2

    def bound(i: int) -> int:
        return (i * span) // buckets + 1

    kept = [0]
    a = 0
    for i in range(buckets):
        # The next bucket; after the last one, the last reading alone (bound(buckets) is
        # n - 1 and bound(buckets + 1) at least n).
        lo, hi = bound(i), bound(i + 1)
        next_lo, next_hi = hi, min(bound(i + 2), n)
        avg_x = x[next_lo:next_hi].mean()
        avg_y = y[next_lo:next_hi].mean()
        xs, ys = x[lo:hi], y[lo:hi]
        areas = np.abs((x[a] - avg_x) * (ys - y[a]) - (x[a] - xs) * (avg_y - y[a]))
        a = lo + int(np.argmax(areas))
        kept.append(a)
    kept.append(n - 1)
    return kept


def minmax(
    times_us: Sequence[int], values: Sequence[float], start_us: int, end_us: int, max_points: int
) -> list[int]:
    n = len(times_us)
    if n <= max_points:
        return list(range(n))
    slices = max_points // 2
    t = np.asarray(times_us, dtype=np.int64)
    y = np.asarray(values, dtype=np.float64)
    # Slice i is [start + i * w, start + (i + 1) * w) with w = (end - start) / slices, its
    # bounds in exact integer arithmetic (rounded up: the first microsecond at or after
    # the real bound); the last ends at `end`.
    width = end_us - start_us
    bounds = [start_us + -(-(i * width) // slices) for i in range(slices)] + [end_us]
    edges = np.searchsorted(t, np.asarray(bounds, dtype=np.int64), side="left")
    kept: list[int] = []
    for i in range(slices):
        lo, hi = int(edges[i]), int(edges[i + 1])
        if lo >= hi:
            continue
        part = y[lo:hi]
        low, high = lo + int(np.argmin(part)), lo + int(np.argmax(part))
        kept.extend(sorted({low, high}))
    return kept
