"""The IETF RateLimit-Policy and RateLimit fields on every authenticated answer, the daily
quota included (issue 29, item 5; draft-ietf-httpapi-ratelimit-headers), on each path that
authenticates: the key cache, the per-request SQL (TELEMETRY_AUTH_CACHE=0) and /latest's
single statement."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import asyncpg
import msgspec
import pytest
from litestar.testing import AsyncTestClient

from app.core.config import Settings
from app.main import create_app
from testkit.factories import World, load
from tests.support.helpers import assert_error, bearer

FIELD = re.compile(r'^"minute";r=(\d+)(?:;t=(\d+))?, "day";r=(\d+)(?:;t=(\d+))?$')


@pytest.fixture
async def uncached_client(settings: Settings, migrated: str) -> AsyncIterator[AsyncTestClient]:
    uncached = msgspec.structs.replace(settings, auth_cache=False)  # TELEMETRY_AUTH_CACHE=0
    async with AsyncTestClient(app=create_app(uncached)) as test_client:
        yield test_client


def fields(headers: object) -> tuple[int, int | None, int, int | None]:
    match = FIELD.fullmatch(headers["ratelimit"])  # type: ignore[index]
    assert match is not None, headers
    minute, minute_t, day, day_t = match.groups()
    return (
        int(minute),
        None if minute_t is None else int(minute_t),
        int(day),
        None if day_t is None else int(day_t),
    )


async def a_key_with_a_device(pool: asyncpg.Pool, per_minute: int, per_day: int) -> tuple[str, str]:
    w = World()
    partner = w.partner(tier={"perMinute": per_minute, "perDay": per_day})
    profile = w.profile(partner)
    device = w.device(w.sub_account(partner), profile)  # assigned: a sub-account's
    key = w.key(partner)
    await load(pool, w)
    return key, device["id"]


@pytest.mark.parametrize("path", ["cached", "sql"])
async def test_every_answer_carries_the_policy_and_what_is_left_of_minute_and_day(
    client: AsyncTestClient, uncached_client: AsyncTestClient, pool: asyncpg.Pool, path: str
) -> None:
    http = client if path == "cached" else uncached_client
    key, device_id = await a_key_with_a_device(pool, per_minute=5, per_day=7)
    urls = ["/api/v1/me", f"/api/v1/devices/{device_id}/latest", f"/api/v1/devices/{device_id}"]
    seen: list[tuple[int, int | None, int, int | None]] = []
    for url in urls + urls[:2]:
        response = await http.get(url, headers=bearer(key))
        assert response.status_code == 200, response.text
        assert response.headers["ratelimit-policy"] == '"minute";q=5;w=60, "day";q=7;w=86400'
        seen.append(fields(response.headers))
        assert str(seen[-1][0]) == response.headers["x-ratelimit-remaining"]
    assert seen == [(4, None, 6, None), (3, None, 5, None), (2, None, 4, None),
                    (1, None, 3, None), (0, None, 2, None)]  # fmt: skip
    # The minute window is spent: its 429 says when it has room (t), the day what is left.
    refused = await http.get("/api/v1/me", headers=bearer(key))
    assert_error(refused, 429, "rate_limited")
    minute, minute_t, day, day_t = fields(refused.headers)
    assert (minute, day, day_t) == (0, 2, None)
    assert minute_t == int(refused.headers["retry-after"])
    assert refused.headers["ratelimit-policy"] == '"minute";q=5;w=60, "day";q=7;w=86400'


async def test_the_daily_quota_refusal_names_the_day_with_its_reset(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    key, _ = await a_key_with_a_device(pool, per_minute=100, per_day=2)
    for left in (1, 0):
        response = await client.get("/api/v1/me", headers=bearer(key))
        assert fields(response.headers)[2] == left
    refused = await client.get("/api/v1/me", headers=bearer(key))
    assert_error(refused, 429, "quota_exceeded")
    minute, minute_t, day, day_t = fields(refused.headers)
    assert (day, minute_t) == (0, None)
    assert minute == 98
    assert day_t == int(refused.headers["retry-after"]) >= 1


async def test_a_large_budget_counts_the_day_across_leased_permits(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    """Above TELEMETRY_LEASE_EXACT_BELOW a worker leases permits in blocks: what is left of
    the day still goes down by one per answer (the block's unspent permits are not spent)."""
    key, _ = await a_key_with_a_device(pool, per_minute=100_000, per_day=1_000_000)
    days = []
    for _ in range(20):
        response = await client.get("/api/v1/me", headers=bearer(key))
        days.append(fields(response.headers)[2])
    assert days == list(range(999_999, 999_979, -1))
