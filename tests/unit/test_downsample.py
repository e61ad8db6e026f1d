"""maxPoints' two methods (app/history/downsample.py, numpy inside) against the plain
implementations of the contract's text (tests/history_oracle_chart.py: exact fractions for
LTTB's bucket bounds and minmax's slices), on random series given as lists and as numpy
arrays, with repeated times and equal values (the ties the contract settles)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from app.history import downsample
from testkit.history_oracle_chart import lttb_reference, minmax_reference

T0 = 1_700_000_000_000_000


def series(rng: random.Random, n: int) -> tuple[list[int], list[float]]:
    if rng.random() < 0.3:  # readings three at a time, on one time each
        times = [T0 + (i // 3) * 1_000 for i in range(n)]
    else:
        times = sorted(T0 + rng.randint(0, 10**11) for _ in range(n))
    values = [float(rng.choice([rng.randint(0, 3), rng.gauss(0, 1)])) for _ in range(n)]
    return times, values


@pytest.mark.parametrize("seed", range(4))
def test_lttb_and_minmax_equal_the_contract_text(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(100):
        n = rng.choice([rng.randint(0, 30), rng.randint(30, 200)])
        max_points = rng.randint(2, 40) if rng.random() < 0.5 else rng.randint(2, max(2, n))
        times, values = series(rng, n)
        lo = T0 - rng.randint(0, 10**9)
        hi = (times[-1] if times else T0) + rng.randint(1, 10**9)
        want_lttb = lttb_reference([t / 1e6 for t in times], values, max_points)
        want_minmax = minmax_reference(times, values, lo, hi, max_points)
        for given_times, given_values in (
            (times, values),
            (np.array(times, dtype=np.int64), np.array(values, dtype=np.float64)),
        ):
            assert downsample.lttb(given_times, given_values, max_points) == want_lttb
            assert downsample.minmax(given_times, given_values, lo, hi, max_points) == (want_minmax)


def test_a_year_of_readings_keeps_its_ends_and_budget() -> None:
    rng = random.Random(7)
    n = 35_040
    times = [T0 + i * 900_000_000 for i in range(n)]
    values = [rng.gauss(20, 3) for _ in range(n)]
    kept = downsample.lttb(np.array(times), np.array(values), 1_000)
    assert kept == lttb_reference([t / 1e6 for t in times], values, 1_000)
    assert len(kept) == 1_000 and kept[0] == 0 and kept[-1] == n - 1
    # minmax's reference scans every reading per slice: a tenth of the year is enough.
    part = n // 10
    slices = downsample.minmax(times[:part], values[:part], times[0], times[part], 100)
    assert slices == minmax_reference(times[:part], values[:part], times[0], times[part], 100)
