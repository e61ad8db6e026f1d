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

`read_numbers` reads every reading of the range for them (sql/history/downsample.sql): the
packed weeks as stored, their runs of times expanded with numpy (app/history/packed.py),
since unpacking and sorting a year of readings in SQL cost more than the rest of the request.
(`tsdownsample`'s Rust LTTB was tried: its buckets differ from the contract's in about a
fifth of random cases, so it is not used.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import pairwise
from typing import Any

import numpy as np
import numpy.typing as npt

from app.core.errors import invalid_parameter
from app.core.sql import QUERIES
from app.history.packed import packed_times
from app.history.planner import to_micros

METHODS = ("lttb", "minmax")
MIN_POINTS = 2
MAX_POINTS = 10_000

Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]


def lttb(
    times_us: Sequence[int] | Ints, values: Sequence[float] | Floats, max_points: int
) -> list[int]:
    n = len(times_us)
    if n <= max_points:
        return list(range(n))
    if max_points == MIN_POINTS:
        return [0, n - 1]
    x_array = np.asarray(times_us, dtype=np.int64) / 1e6
    y_array = np.asarray(values, dtype=np.float64)
    buckets = max_points - 2
    span = n - 2
    # bounds[i] is bucket i's first index; bounds[buckets] is n - 1, the last reading,
    # which stands as the bucket after the last one.
    bounds = (np.arange(buckets + 1, dtype=np.int64) * span) // buckets + 1
    # The triangle loop stays in plain floats: each bucket depends on the reading kept in
    # the one before it, and per-bucket array calls cost more than the few dozen
    # multiplications they would replace. The averages are summed in order, as the
    # contract's arithmetic reads (numpy's pairwise sums may differ in the last bit).
    x = x_array.tolist()
    y = y_array.tolist()
    starts = [*bounds.tolist(), n]
    avg_x = [sum(x[lo:hi]) / (hi - lo) for lo, hi in pairwise(starts)]
    avg_y = [sum(y[lo:hi]) / (hi - lo) for lo, hi in pairwise(starts)]
    kept = [0]
    a = 0
    for i in range(buckets):
        lo, hi = starts[i], starts[i + 1]
        xa, ya = x[a], y[a]
        dx, dy = xa - avg_x[i + 1], avg_y[i + 1] - ya
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
    times_us: Sequence[int] | Ints,
    values: Sequence[float] | Floats,
    start_us: int,
    end_us: int,
    max_points: int,
) -> list[int]:
    n = len(times_us)
    if n <= max_points:
        return list(range(n))
    times = np.asarray(times_us, dtype=np.int64)
    value = np.asarray(values, dtype=np.float64)
    slices = max_points // 2
    # Slice i is [start + i * w, start + (i + 1) * w) with w = (end - start) / slices, its
    # bounds in exact integer arithmetic (rounded up: the first microsecond at or after
    # the real bound); the last ends at `end`. Python integers: i * width may pass int64.
    width = end_us - start_us
    bounds = [start_us + -(-(i * width) // slices) for i in range(slices)] + [end_us]
    edges = np.searchsorted(times, np.array(bounds, dtype=np.int64), side="left")
    # The slices are consecutive, so the readings of the non-empty ones are the run
    # edges[0]..edges[-1]: per slice its minimum and maximum at once, then the earliest
    # reading equal to each.
    lo, hi = edges[:-1], edges[1:]
    filled = lo < hi
    if not filled.any():
        return []
    base = int(edges[0])
    chosen = value[base : int(edges[-1])]
    starts = lo[filled] - base
    slice_of = np.repeat(np.arange(starts.size), (hi - lo)[filled])
    low = _first_where(chosen == np.minimum.reduceat(chosen, starts)[slice_of], slice_of)
    high = _first_where(chosen == np.maximum.reduceat(chosen, starts)[slice_of], slice_of)
    pairs = np.stack([np.minimum(low, high), np.maximum(low, high)], axis=1) + base
    keep = np.ones(pairs.shape, dtype=bool)
    keep[:, 1] = low != high  # one point when the minimum and the maximum are one reading
    return pairs[keep].tolist()


def _first_where(match: npt.NDArray[np.bool_], slice_of: Ints) -> Ints:
    """Per slice, the position of its first reading where `match` holds (each has one)."""
    hits = np.flatnonzero(match)
    _, first_hit = np.unique(slice_of[hits], return_index=True)
    return hits[first_hit]


@dataclass(frozen=True)
class Readings:
    """Every numeric reading of a range, oldest first (ties: smallest value, then site)."""

    times: Ints  # epoch microseconds
    values: Floats
    sites: Ints  # site nums, 0: none


async def read_numbers(
    connection: Any,
    device: int,
    field: int,
    start: datetime,
    end: datetime,
    site: int | None,
    limit: int,
) -> Readings:
    """The readings of a numeric series in [start, end): raw rows and the packed weeks'
    runs expanded; a 400 past `limit` readings (the read takes a week more at most)."""
    rows = await connection.fetch(
        QUERIES["history.downsample_parts_num"], device, field, start, end, site, limit + 1
    )
    raw, packed = rows[0], rows[1:]
    parts_times: list[Ints] = []
    parts_values: list[Floats] = []
    parts_sites: list[Ints] = []
    if packed:
        parts_times.append(packed_times(packed))
        sizes = np.array([len(row["values"]) for row in packed], dtype=np.int64)
        parts_values.append(
            np.array([value for row in packed for value in row["values"]], dtype=np.float64)
        )
        sites = np.array([row["site_num"] for row in packed], dtype=np.int64)
        parts_sites.append(np.repeat(sites, sizes))
    if raw["times"] is not None:  # the raw readings, one row of arrays
        parts_times.append(np.array(raw["times"], dtype=np.int64))
        parts_values.append(np.array(raw["values"], dtype=np.float64))
        parts_sites.append(np.array(raw["sites"], dtype=np.int64))
    if not parts_times:
        empty = np.empty(0, dtype=np.int64)
        return Readings(empty, np.empty(0, dtype=np.float64), empty)
    times, values = np.concatenate(parts_times), np.concatenate(parts_values)
    sites_of = np.concatenate(parts_sites)
    inside = (times >= to_micros(start)) & (times < to_micros(end))
    if not inside.all():
        times, values, sites_of = times[inside], values[inside], sites_of[inside]
    if len(times) > limit:
        raise invalid_parameter(
            "from", f"the range holds more than {limit} readings; ask a shorter one"
        )
    # Packed weeks come oldest first and a series' raw readings mostly after them: when
    # the times already ascend strictly, no sort is needed (ties, other sites' weeks and
    # late readings sort by time, value, then site).
    if len(times) > 1 and not bool(np.all(times[1:] > times[:-1])):
        order = np.lexsort((sites_of, values, times))
        times, values, sites_of = times[order], values[order], sites_of[order]
    return Readings(times, values, sites_of)
