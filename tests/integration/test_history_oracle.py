"""The history oracle (issues 4, 16): the route equals time_bucket over the raw tables,
in UTC and with `tz` (integrations.md section 5).

A few hundred cases here (datasets x requests); the long mode runs 10,000:
`python -m benchmarks.history_oracle --cases 10000` (long mode; the oracle itself is
testkit/history_oracle.py).
"""

from __future__ import annotations

import asyncpg
import pytest
from hypothesis import given
from litestar.testing import AsyncTestClient

from testkit.history_oracle import (
    Dataset,
    Oracle,
    QueryRequest,
    Request,
    check_case,
    dataset_cases,
    make_oracle,
    oracle_settings,
)

DATASETS = 25  # x QUERIES_PER_DATASET requests = 300 cases


@pytest.fixture(scope="module")
async def oracle(client: AsyncTestClient, pool: asyncpg.Pool) -> Oracle:
    return await make_oracle(client, pool)


@oracle_settings(DATASETS)
@given(case=dataset_cases)
async def test_route_equals_time_bucket_over_raw(
    oracle: Oracle, case: tuple[Dataset, list[Request | QueryRequest]]
) -> None:
    await check_case(oracle, case)


def test_the_oracle_saw_packed_and_raw_readings(oracle: Oracle) -> None:
    """Runs after the cases above (same module, same oracle): both sources were read."""
    assert oracle.stats.get("packed readings", 0) > 0, oracle.stats
    assert oracle.stats.get("raw readings", 0) > 0, oracle.stats
    assert oracle.non_empty_share() > 0.5, oracle.stats
    # POST /query cases (several devices, cursors followed) compared non-empty series, and
    # pages were followed.
    assert oracle.stats.get("query non-empty", 0) > 0, oracle.stats
    assert oracle.stats.get("query pages", 0) > oracle.stats.get("query", 0), oracle.stats
