"""Authentication, scopes, rate limit and daily quota (api-spec 5 and 8, decisions D2-D4)."""

from __future__ import annotations

import asyncio
import uuid

import asyncpg
import httpx
from litestar.testing import AsyncTestClient

from app.auth.principal import hash_secret
from testkit.factories import World, load, partner_key
from tests.support.helpers import assert_error, bearer
from tests.support.servers import LiveServer


async def test_missing_malformed_and_unknown_keys_are_unauthorized(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    cases = [
        {},
        {"Authorization": "Basic abc"},
        {"Authorization": "Bearer svc_live_short"},
        {"Authorization": "Bearer " + "svc_test_" + "a" * 40},
        bearer("svc_live_" + "z" * 40),
    ]
    for headers in cases:
        response = await client.get("/api/v1/me", headers=headers)
        assert response.status_code == 401, headers
        assert response.headers["www-authenticate"] == "Bearer"
        assert response.json()["error"]["code"] == "unauthorized"


async def test_expired_and_revoked_keys_have_their_own_codes(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    world = World()
    partner = world.partner()
    expired = world.key(partner, expiresAt="now-PT1M")
    revoked = world.key(partner, revoked=True)
    future = world.key(partner, expiresAt="now+P1D")
    await load(pool, world)

    response = await client.get("/api/v1/me", headers=bearer(expired))
    assert_error(response, 401, "key_expired")
    response = await client.get("/api/v1/me", headers=bearer(revoked))
    assert_error(response, 401, "key_revoked")
    response = await client.get("/api/v1/me", headers=bearer(future))
    assert response.status_code == 200


async def test_me_needs_no_scope_and_describes_the_binding(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    world = World()
    partner = world.partner(plan={"apiWrite": True, "retentionDays": 90})
    sub = world.sub_account(partner, name="Customer A")
    partner_key = world.key(partner, scopes=[])
    sub_key = world.key(sub, scopes=["devices:read"])
    await load(pool, world)

    body = (await client.get("/api/v1/me", headers=bearer(partner_key))).json()["data"]
    assert body["boundTo"] == "partner"
    assert body["partnerId"] == partner["id"]
    assert body["subAccountId"] is None
    assert body["scopes"] == []
    assert body["apiWrite"] is True
    assert body["retentionDays"] == 90

    body = (await client.get("/api/v1/me", headers=bearer(sub_key))).json()["data"]
    assert body["boundTo"] == "sub_account"
    assert body["subAccountId"] == sub["id"]
    assert body["subAccountName"] == "Customer A"
    assert body["scopes"] == ["devices:read"]


async def test_missing_scope_is_403_insufficient_scope(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    _, key = await partner_key(pool, scopes=["telemetry:read"])
    response = await client.get("/api/v1/sub-accounts", headers=bearer(key))
    assert_error(response, 403, "insufficient_scope")


async def test_per_minute_limit_counts_down_then_429_with_retry_after(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    partner, key = await partner_key(pool, tier={"perMinute": 5, "perDay": 1000})

    remaining = []
    for _ in range(5):
        response = await client.get("/api/v1/me", headers=bearer(key))
        assert response.status_code == 200
        assert response.headers["x-ratelimit-limit"] == "5"
        remaining.append(int(response.headers["x-ratelimit-remaining"]))
    assert remaining == [4, 3, 2, 1, 0]

    for _ in range(3):
        response = await client.get("/api/v1/me", headers=bearer(key))
        assert_error(response, 429, "rate_limited")
        assert 1 <= int(response.headers["retry-after"]) <= 61
        assert response.headers["x-ratelimit-remaining"] == "0"
    used = await pool.fetchval(
        "SELECT day_count FROM api_key_usage u JOIN api_keys k ON k.id = u.key_id "
        "WHERE k.partner_id = $1::uuid",
        partner["id"],
    )
    assert used == 5, "a request answered 429 does not count"


async def test_sub_account_key_gets_the_lower_tier(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    world = World()
    partner = world.partner(tier={"perMinute": 100, "perDay": 1000})
    sub = world.sub_account(partner, tier={"perMinute": 3, "perDay": 1000})
    generous_sub = world.sub_account(partner, tier={"perMinute": 1000, "perDay": 5000})
    key = world.key(sub)
    generous_key = world.key(generous_sub)
    await load(pool, world)
    response = await client.get("/api/v1/me", headers=bearer(key))
    assert response.headers["x-ratelimit-limit"] == "3"
    response = await client.get("/api/v1/me", headers=bearer(generous_key))
    assert response.headers["x-ratelimit-limit"] == "100"


async def test_daily_quota_is_429_quota_exceeded_until_midnight(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    _, key = await partner_key(pool, tier={"perMinute": 100, "perDay": 2})
    for _ in range(2):
        assert (await client.get("/api/v1/me", headers=bearer(key))).status_code == 200
    response = await client.get("/api/v1/me", headers=bearer(key))
    assert_error(response, 429, "quota_exceeded")
    seconds_to_midnight = await pool.fetchval(
        "SELECT extract(epoch FROM date_trunc('day', now() AT TIME ZONE 'UTC') + interval '1 day'"
        " - (now() AT TIME ZONE 'UTC'))::int"
    )
    assert abs(int(response.headers["retry-after"]) - seconds_to_midnight) <= 5


async def test_rate_limit_headers_on_authenticated_errors_too(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    _, key = await partner_key(pool, tier={"perMinute": 50, "perDay": 1000})
    response = await client.get(f"/api/v1/sub-accounts/{uuid.uuid4()}", headers=bearer(key))
    assert response.status_code == 404
    assert response.json() == {"error": {"code": "not_found", "message": "sub-account not found"}}
    assert response.headers["x-ratelimit-limit"] == "50"
    assert response.headers["x-ratelimit-remaining"] == "49"


async def test_unknown_path_does_not_count(client: AsyncTestClient, pool: asyncpg.Pool) -> None:
    _, key = await partner_key(pool, tier={"perMinute": 50, "perDay": 1000})
    for _ in range(3):
        response = await client.get("/api/v1/nothing-here", headers=bearer(key))
        assert response.status_code == 404
    response = await client.get("/api/v1/me", headers=bearer(key))
    assert response.headers["x-ratelimit-remaining"] == "49"


async def test_wrong_method_is_405_in_the_envelope(client: AsyncTestClient) -> None:
    response = await client.delete("/api/v1/health")
    assert_error(response, 405, "method_not_allowed")


async def test_61st_request_is_429_across_two_workers(
    live_server: LiveServer, pool: asyncpg.Pool
) -> None:
    _, key = await partner_key(pool, tier={"perMinute": 60, "perDay": 100000})
    async with live_server.client() as http:

        async def call() -> httpx.Response:
            return await http.get("/api/v1/me", headers=bearer(key))

        # New connections per request land on both granian workers.
        responses = []
        for _ in range(6):
            batch = await asyncio.gather(*(call() for _ in range(10)))
            responses.extend(batch)
        assert [r.status_code for r in responses].count(200) == 60
        last = await call()
    assert_error(last, 429, "rate_limited")


LEASE_AT = "SELECT * FROM api_lease($1, $2, $3, $4, $5, $6, 100000, 8, $7)"


async def test_each_slot_frees_60_seconds_after_it_was_spent(pool: asyncpg.Pool) -> None:
    """D4 at virtual times: one-second buckets freed a request of second s at s + 60, so
    three at s + 0.9 and a fourth at s + 60.0 were admitted within 59.1 s."""
    _, key = await partner_key(pool, tier={"perMinute": 3, "perDay": 1000})
    s = 1_900_001_000

    async def ask(at: float) -> asyncpg.Record:
        return await pool.fetchrow(LEASE_AT, uuid.UUID(key.id), at, 1, 0, 0, 3, 1024)

    assert [(await ask(s + 0.9))["granted"] for _ in range(3)] == [1, 1, 1]
    refused = await ask(s + 60.0)
    assert (refused["outcome"], refused["retry_after"], refused["hold_ms"]) == (
        "rate_limited",
        1,
        0,
    )
    assert (await ask(s + 60.899))["granted"] == 0
    # 60 s after the first three, their time rounded up to the millisecond (never sooner).
    assert [(await ask(s + 60.901))["granted"] for _ in range(3)] == [1, 1, 1]
    again = await ask(s + 60.901)
    assert (again["granted"], again["retry_after"], again["hold_ms"]) == (0, 60, 0)
    late = await ask(s + 61.5)
    assert (late["outcome"], late["retry_after"]) == ("rate_limited", 60), "59.4 s, rounded up"
    assert (await ask(s + 120.95))["granted"] == 1


async def test_a_block_counts_until_the_end_of_its_second_and_the_refusal_is_held(
    pool: asyncpg.Pool,
) -> None:
    """A block of permits may be spent by a worker until the end of the second it was
    granted in, so it frees its slots 60 s after that end. A window granted wholly in
    blocks within the current second frees just over 60 s later: Retry-After says 60 and
    hold_ms how long the answer waits for that to be true."""
    per_minute = 200
    _, key = await partner_key(pool, tier={"perMinute": per_minute, "perDay": 100_000})
    key_id = uuid.UUID(key.id)
    s = 1_900_002_000

    first = await pool.fetchrow(LEASE_AT, key_id, s + 0.25, 64, 0, 0, per_minute, 1)
    assert (first["granted"], first["second"], first["valid_ms"]) == (25, s, 750)
    # 20 of them go back unused.
    returned = await pool.fetchrow(LEASE_AT, key_id, s + 0.5, 0, s, 20, per_minute, 1)
    assert returned["in_window"] == 5
    granted = 5
    while True:
        row = await pool.fetchrow(LEASE_AT, key_id, s + 0.5, 64, 0, 0, per_minute, 1)
        if row["granted"] == 0:
            break
        granted += row["granted"]
    assert granted == per_minute
    assert (row["outcome"], row["retry_after"], row["hold_ms"]) == ("rate_limited", 60, 500)
    # The per-request path cannot hold: it says 60, never 61.
    principal = await pool.fetchrow(
        "SELECT outcome, retry_after FROM api_authenticate($1, to_timestamp($2))",
        hash_secret(key),
        s + 0.5,
    )
    assert tuple(principal) == ("rate_limited", 60)
    before_end = await pool.fetchrow(LEASE_AT, key_id, s + 60.999, 1, 0, 0, per_minute, 1)
    assert (before_end["granted"], before_end["retry_after"]) == (0, 1)
    assert (await pool.fetchrow(LEASE_AT, key_id, s + 61, 1, 0, 0, per_minute, 1))["granted"]
