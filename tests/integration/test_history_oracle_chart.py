"""The chart oracle (issue 26): increase, twa, integral, duration, every fill mode and
maxPoints through the route (/history, and POST /query followed page by page) equal the
same computation over a plain copy of the readings (tests/history_oracle_chart.py), over
packed, raw and mixed weeks, with and without `tz`.

A few hundred cases here; the long mode runs 10,000:
`python -m benchmarks.history_oracle --chart --cases 10000`.
"""

from __future__ import annotations

import asyncpg
import pytest
from hypothesis import given
from litestar.testing import AsyncTestClient

from testkit.history_oracle import Dataset, check_case, oracle_settings
from testkit.history_oracle_chart import ChartOracle, ChartRequest, chart_cases, make_chart_oracle

DATASETS = 20  # x QUERIES_PER_DATASET requests = 240 cases


@pytest.fixture(scope="module")
async def oracle(client: AsyncTestClient, pool: asyncpg.Pool) -> ChartOracle:
    return await make_chart_oracle(client, pool)


@oracle_settings(DATASETS)
@given(case=chart_cases)
async def test_route_equals_the_computation_over_raw(
    oracle: ChartOracle, case: tuple[Dataset, list[ChartRequest]]
) -> None:
    await check_case(oracle, case)


def test_the_oracle_compared_non_empty_answers(oracle: ChartOracle) -> None:
    """Runs after the cases above (same module, same oracle)."""
    assert oracle.stats.get("cases", 0) >= 200, oracle.stats
    assert oracle.non_empty_share() > 0.5, oracle.stats
    # About a third asked of POST /query in small pages (several pages each, on average).
    assert oracle.stats.get("query", 0) >= 40, oracle.stats
    assert oracle.stats.get("query pages", 0) > 2 * oracle.stats["query"], oracle.stats
