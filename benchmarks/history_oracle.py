"""The long mode of the history oracle (testkit/history_oracle.py): random datasets and
requests against a scratch database of the project's cluster, until `--cases` requests
were compared with time_bucket over the raw tables (with and without `tz`), and the share
of cases that compared non-empty answers is printed:

    python -m benchmarks.history_oracle --cases 10000

With `--chart`, the cases are those of the chart oracle (testkit/history_oracle_chart.py:
increase, twa, integral, duration, fill and maxPoints, analytics.md section 3).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from typing import Any

from testkit.history_oracle import (
    QUERIES_PER_DATASET,
    Dataset,
    check_case,
    dataset_cases,
    make_oracle,
)


async def run_long(cases: int, seed: int | None, chart: bool = False) -> int:
    """Loads random datasets and checks QUERIES_PER_DATASET requests on each."""
    from hypothesis import HealthCheck, given, settings
    from litestar.testing import AsyncTestClient

    from app.core.config import Settings
    from app.core.db import create_pool
    from app.main import create_app
    from testkit.databases import scratch_database

    url = await asyncio.to_thread(scratch_database, "history_oracle", fresh=True)
    settings_ = Settings(database_url=url, pool_min_size=1, pool_max_size=4)
    pool = await create_pool(settings_)
    checked = 0
    started = time.monotonic()
    async with AsyncTestClient(app=create_app(settings_)) as client:
        oracle: Any
        cases_of: Any
        if chart:
            from testkit.history_oracle_chart import chart_cases, make_chart_oracle

            oracle, cases_of = await make_chart_oracle(client, pool), chart_cases
        else:
            oracle, cases_of = await make_oracle(client, pool), dataset_cases
        loop = asyncio.get_running_loop()
        datasets_needed = max(1, -(-cases // QUERIES_PER_DATASET))
        failures: list[BaseException] = []

        @settings(
            max_examples=datasets_needed,
            deadline=None,
            database=None,
            derandomize=seed is not None,
            suppress_health_check=list(HealthCheck),
        )
        @given(case=cases_of)
        def example(case: tuple[Dataset, list[Any]]) -> None:
            nonlocal checked
            future = asyncio.run_coroutine_threadsafe(check_case(oracle, case), loop)
            future.result()
            checked += len(case[1])
            if checked % 1000 < QUERIES_PER_DATASET:
                print(f"{checked} cases checked ({time.monotonic() - started:.0f} s)", flush=True)

        try:
            await asyncio.to_thread(example)
        except BaseException as exc:  # reported below, with hypothesis' minimal example
            failures.append(exc)
    await pool.close()
    if failures:
        print(f"FAILED after {checked} cases: {failures[0]!r}", file=sys.stderr)
        return 1
    print(f"ok: {checked} cases in {time.monotonic() - started:.0f} s: {oracle.stats}")
    print(f"non-empty answers compared: {oracle.non_empty_share():.1%} of the cases")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=None, help="derandomize (repeatable run)")
    parser.add_argument("--chart", action="store_true", help="the chart oracle's cases")
    args = parser.parse_args(argv)
    return asyncio.run(run_long(args.cases, args.seed, args.chart))


if __name__ == "__main__":
    raise SystemExit(main())
