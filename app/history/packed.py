"""Packed weeks read as they are stored (schema/110-packed-readings.sql), their runs of times
expanded with numpy: maxPoints (app/history/downsample.py) and the raw wide export
(app/export/wide.py) read them so, since unpacking and sorting them in SQL cost more than
the rest of either request.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

Ints = npt.NDArray[np.int64]


def _runs(rows: Sequence[Any]) -> tuple[Ints, Ints, Ints, Ints]:
    """The runs of packed rows (at least one), all rows' runs in one array each: how many
    runs each row holds, and each run's count of times, step and first time (the row's
    `period` plus the run's offset, in epoch microseconds)."""
    runs = np.array([len(row["counts"]) for row in rows], dtype=np.int64)
    counts = np.concatenate([np.array(row["counts"], dtype=np.int64) for row in rows])
    offsets = np.concatenate([np.array(row["offsets"], dtype=np.int64) for row in rows])
    steps = np.concatenate([np.array(row["steps"], dtype=np.int64) for row in rows])
    periods = np.repeat(np.array([row["period"] for row in rows], dtype=np.int64), runs)
    return runs, counts, steps, periods + offsets


def packed_times(rows: Sequence[Any]) -> Ints:
    """The times (epoch microseconds) of packed rows, row after row, each row's in the
    order of its `values` array: run r of a row holds counts[r] times steps[r]
    microseconds apart from offsets[r] after the row's `period` (in epoch microseconds),
    as packed_times does in SQL (schema/definitions/035-packing.sql)."""
    if not rows:
        return np.empty(0, dtype=np.int64)
    _, counts, steps, first = _runs(rows)
    run_start = np.repeat(np.cumsum(counts) - counts, counts)
    within = np.arange(int(counts.sum()), dtype=np.int64) - run_start
    times: Ints = np.repeat(first, counts) + np.repeat(steps, counts) * within
    return times


def packed_count(rows: Sequence[Any], start_us: int, end_us: int) -> Ints:
    """How many of each packed row's times fall in [start_us, end_us), by arithmetic on
    its runs (no time expanded): run r holds the times period + offsets[r] + steps[r] * i
    for i in [0, counts[r]), and a run of one time has step 0."""
    if not rows:
        return np.empty(0, dtype=np.int64)
    runs, counts, steps, first = _runs(rows)
    step = np.maximum(steps, 1)  # a run of one time: any step gives that one time
    # The least i with first + step * i >= start, and the least with it >= end (ceiling
    # divisions in integers), each clamped to the run.
    low = np.clip(-((first - start_us) // step), 0, counts)
    high = np.clip(-((first - end_us) // step), 0, counts)
    inside = np.maximum(high - low, 0)
    owner = np.repeat(np.arange(len(rows)), runs)
    total: Ints = np.bincount(owner, weights=inside, minlength=len(rows)).astype(np.int64)
    return total
