"""The per-worker key cache and leased permits (app/auth/cache.py) keep D2-D4 exact."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import asyncpg
import httpx
import msgspec
import pytest
from litestar.testing import AsyncTestClient

from app.auth.cache import AuthCache
from app.auth.principal import hash_secret
from app.core.config import Settings
from app.main import create_app
from testkit.factories import Secret, World, load, partner_key
from tests.support import chirpstack as cs
from tests.support.chirpstack import INGEST, th_world
from tests.support.cli import telemetry
from tests.support.helpers import assert_error, bearer, committed, day_count, settled_day_count
from tests.support.servers import LiveServer, serving


def cache_of(client: AsyncTestClient) -> AuthCache:
    cache: AuthCache = client.app.state.auth_cache
    return cache


async def after_change(
    client: AsyncTestClient, pool: asyncpg.Pool, key: Secret, change: str, path: str
) -> httpx.Response:
    """Sets `change` (SQL) on the key's row, waits for the app to hear of it, then asks `path`."""
    await committed(client, pool, f"UPDATE api_keys SET {change} WHERE id = $1", uuid.UUID(key.id))
    return await client.get(path, headers=bearer(key))


async def test_the_in_process_app_serves_from_the_cache(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    cache = cache_of(client)
    assert cache.active
    partner, key = await partner_key(pool)
    assert hash_secret(key) not in cache.keys
    assert (await client.get("/api/v1/me", headers=bearer(key))).status_code == 200
    # The key is now cached; its next request is answered from the same entry (no
    # notification, so no new lookup generation).
    assert hash_secret(key) in cache.keys
    lookups = cache.generation
    response = await client.get("/api/v1/me", headers=bearer(key))
    assert response.status_code == 200
    assert response.json()["data"]["partnerId"] == partner["id"]
    assert cache.generation == lookups


async def test_a_committed_revocation_drops_the_cached_key(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    _, key = await partner_key(pool)
    for _ in range(3):
        assert (await client.get("/api/v1/me", headers=bearer(key))).status_code == 200
    response = await after_change(client, pool, key, "revoked_at = now()", "/api/v1/me")
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"
    assert response.json()["error"]["code"] == "key_revoked"


async def test_expiry_is_checked_at_each_request(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    _, key = await partner_key(pool, key={"expiresAt": "now+PT2S"})
    assert (await client.get("/api/v1/me", headers=bearer(key))).status_code == 200
    expires = await pool.fetchval(
        "SELECT expires_at FROM api_keys WHERE id = $1", uuid.UUID(key.id)
    )
    for _ in range(50):
        if await pool.fetchval("SELECT now() >= $1", expires):
            break
        await asyncio.sleep(0.2)
    response = await client.get("/api/v1/me", headers=bearer(key))
    assert_error(response, 401, "key_expired")


async def test_tier_scope_and_feature_changes_are_seen(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    w = World()
    p, sa = w.tenancy({}, tier={"perMinute": 100, "perDay": 1000}, features={"networks": False})
    key = w.key(sa, scopes=["devices:read"])
    await load(pool, w)
    response = await client.get("/api/v1/networks", headers=bearer(key))
    assert_error(response, 403, "networks_disabled")
    assert response.headers["x-ratelimit-limit"] == "100"

    await committed(
        client,
        pool,
        "UPDATE sub_accounts SET networks_enabled = true, tier_per_minute = 40 WHERE id = $1",
        uuid.UUID(sa["id"]),
    )
    response = await client.get("/api/v1/networks", headers=bearer(key))
    assert response.status_code == 200, response.text
    assert response.json()["data"] == []
    assert response.headers["x-ratelimit-limit"] == "40"

    await committed(
        client, pool, "UPDATE partners SET tier_per_minute = 7 WHERE id = $1", uuid.UUID(p["id"])
    )
    response = await client.get("/api/v1/me", headers=bearer(key))
    assert response.headers["x-ratelimit-limit"] == "7"
    assert response.headers["x-ratelimit-remaining"] == "4", "3 requests so far"

    response = await after_change(client, pool, key, "scopes = '{}'", "/api/v1/networks")
    assert_error(response, 403, "insufficient_scope")


async def test_a_new_sub_account_changes_what_a_partner_key_sees(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    w = World()
    p = w.partner(features={"networks": False})
    w.sub_account(p)
    key = w.key(p, scopes=["devices:read"])
    await load(pool, w)
    response = await client.get("/api/v1/networks", headers=bearer(key))
    assert response.json()["error"]["code"] == "networks_disabled"
    await committed(
        client,
        pool,
        "INSERT INTO sub_accounts (id, partner_id, name, networks_enabled)"
        " VALUES ($1, $2, 'Late', true)",
        uuid.uuid4(),
        uuid.UUID(p["id"]),
    )
    response = await client.get("/api/v1/networks", headers=bearer(key))
    assert response.status_code == 200, response.text


async def test_me_names_come_from_the_cache_and_follow_renames(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    """GET /me answers its names and expiry from the key cache (no statement once read),
    and a committed rename of the key, its partner or its sub-account is seen by the next
    request."""
    w = World()
    p, sa = w.tenancy({})
    key = w.key(sa, scopes=["devices:read"])
    await load(pool, w)
    cache = cache_of(client)
    first = (await client.get("/api/v1/me", headers=bearer(key))).json()["data"]
    assert uuid.UUID(key.id) in cache.descriptions
    assert (first["partnerName"], first["subAccountName"]) == (p["name"], sa["name"])

    renames = [
        ("UPDATE api_keys SET name = 'Renamed key' WHERE id = $1", key.id, "keyName"),
        ("UPDATE partners SET name = 'Renamed partner' WHERE id = $1", p["id"], "partnerName"),
        (
            "UPDATE sub_accounts SET name = 'Renamed sub-account' WHERE id = $1",
            sa["id"],
            "subAccountName",
        ),
    ]
    for sql, row_id, name in renames:
        await committed(client, pool, sql, uuid.UUID(row_id))
        response = await client.get("/api/v1/me", headers=bearer(key))
        assert response.status_code == 200, response.text
        assert response.json()["data"][name] == sql.split("'")[1]
    expires = datetime.now(UTC) + timedelta(days=3)
    await committed(
        client,
        pool,
        "UPDATE api_keys SET expires_at = $2 WHERE id = $1",
        uuid.UUID(key.id),
        expires,
    )
    data = (await client.get("/api/v1/me", headers=bearer(key))).json()["data"]
    assert datetime.fromisoformat(data["expiresAt"].replace("Z", "+00:00")) == expires


async def test_unused_permits_are_given_back(client: AsyncTestClient, pool: asyncpg.Pool) -> None:
    _, key = await partner_key(pool, tier={"perMinute": 1_000_000, "perDay": 10_000_000})
    served = 0
    for _ in range(4):
        batch = await asyncio.gather(
            *(client.get("/api/v1/me", headers=bearer(key)) for _ in range(40))
        )
        assert [r.status_code for r in batch] == [200] * 40
        served += len(batch)
    assert await settled_day_count(pool, key.id, served) == served


async def test_leases_never_exceed_the_limit_across_two_workers(
    live_server: LiveServer, pool: asyncpg.Pool
) -> None:
    _, key = await partner_key(pool, tier={"perMinute": 200, "perDay": 100_000})
    limits = httpx.Limits(max_connections=300, max_keepalive_connections=0)
    async with httpx.AsyncClient(base_url=live_server.base_url, timeout=30, limits=limits) as http:
        responses = await asyncio.gather(
            *(http.get("/api/v1/me", headers=bearer(key)) for _ in range(300))
        )
    codes = [r.status_code for r in responses]
    assert codes.count(200) == 200
    assert codes.count(429) == 100
    limited = next(r for r in responses if r.status_code == 429)
    assert limited.json()["error"]["code"] == "rate_limited"
    assert limited.headers["x-ratelimit-remaining"] == "0"
    assert 1 <= int(limited.headers["retry-after"]) <= 61
    assert await settled_day_count(pool, key.id, 200) == 200


async def test_a_large_budget_burst_is_counted_exactly_across_two_workers(
    live_server: LiveServer, pool: asyncpg.Pool
) -> None:
    _, key = await partner_key(pool, tier={"perMinute": 1_000_000, "perDay": 10_000_000})
    limits = httpx.Limits(max_connections=64)
    async with httpx.AsyncClient(base_url=live_server.base_url, timeout=30, limits=limits) as http:
        responses = await asyncio.gather(
            *(http.get("/api/v1/me", headers=bearer(key)) for _ in range(300))
        )
        assert [r.status_code for r in responses].count(200) == 300
        remaining = {int(r.headers["x-ratelimit-remaining"]) for r in responses}
        assert max(remaining) < 1_000_000
        assert await settled_day_count(pool, key.id, 300) == 300


async def test_a_lease_being_granted_is_not_forgotten(
    live_server: LiveServer, pool: asyncpg.Pool
) -> None:
    """The flush loop forgot a lease with no permits left whose second was long past
    without looking at its lock, such as a new key's lease while its first grant was in
    flight: the requests already waiting on it leased into the forgotten object, whose
    unused permits were never given back (the burst test counted 306 for 300 once)."""
    _, key = await partner_key(pool, tier={"perMinute": 1_000_000, "perDay": 10_000_000})
    limits = httpx.Limits(max_connections=64)
    async with (
        httpx.AsyncClient(base_url=live_server.base_url, timeout=30, limits=limits) as http,
        pool.acquire() as connection,
    ):

        def burst() -> list[asyncio.Task[httpx.Response]]:
            me = "/api/v1/me"
            return [asyncio.create_task(http.get(me, headers=bearer(key))) for _ in range(20)]

        # The key's usage row, locked here: each worker's first grant waits for it, in
        # flight across two runs of the flush loop.
        transaction = connection.transaction()
        await transaction.start()
        await connection.execute(
            "INSERT INTO api_key_usage (key_id) VALUES ($1) ON CONFLICT (key_id)"
            " DO UPDATE SET day_count = api_key_usage.day_count",
            uuid.UUID(key.id),
        )
        first = burst()
        await asyncio.sleep(2.5)
        then = burst()
        await asyncio.sleep(0.3)
        await transaction.commit()
        responses = await asyncio.gather(*first, *then)
    assert [r.status_code for r in responses] == [200] * 40, responses[0].text
    assert await settled_day_count(pool, key.id, 40) == 40


async def test_a_steady_rate_never_admits_n_plus_1_in_any_60_seconds(
    migrated: str, pool: asyncpg.Pool
) -> None:
    """D4: at most N in any window of 60 seconds, across two instances of two workers.

    One-second buckets freed a request of second s at s + 60, so a steady 3 requests/s
    had N + 1 admitted within 59.33 s. Here a key of 10/min gets 3 requests/s for 64.5 s,
    by turns to two `telemetry serve` on one database, each on a new connection (so both
    workers of each answer): the first 10 are admitted at once, then each slot reopens 60 s
    after it was spent. The server decides each request between its sending and its
    answer, so N + 1 admissions with the (N + 1)-th answered less than 60 s after the first
    was sent are N + 1 within 60 s: that is checked for every N + 1 consecutive ones."""
    limit, rate, duration = 10, 3.0, 64.5
    _, key = await partner_key(pool, tier={"perMinute": limit, "perDay": 10_000})
    metrics_off = {"METRICS_PORT": "0"}
    fresh = httpx.Limits(max_keepalive_connections=0)
    with serving(migrated, env=metrics_off) as one, serving(migrated, env=metrics_off) as two:
        async with (
            httpx.AsyncClient(base_url=one.base_url, timeout=10, limits=fresh) as first,
            httpx.AsyncClient(base_url=two.base_url, timeout=10, limits=fresh) as second,
        ):
            instances = (first, second)
            start = time.monotonic() + 0.5

            async def request(k: int) -> tuple[float, float, httpx.Response]:
                await asyncio.sleep(start + k / rate - time.monotonic())
                sent = time.monotonic()
                response = await instances[k % 2].get("/api/v1/me", headers=bearer(key))
                return sent, time.monotonic(), response

            answers = await asyncio.gather(*(request(k) for k in range(int(duration * rate))))
    admitted = [(sent, answered) for sent, answered, r in answers if r.status_code == 200]
    refused = [r for _, _, r in answers if r.status_code != 200]
    assert len(admitted) > limit, "the window reopened during the test"
    assert {answers[k][2].status_code for k in (0, 1)} == {200}, "both instances admit"
    for i in range(len(admitted) - limit):
        first_sent, last_answered = admitted[i][0], admitted[i + limit][1]
        assert last_answered - first_sent >= 60, (
            f"{limit + 1} admitted within {last_answered - first_sent:.3f} s"
        )
    for response in refused:
        assert response.status_code == 429, response.text
        assert response.json()["error"]["code"] == "rate_limited"
        assert 1 <= int(response.headers["retry-after"]) <= 60
        assert response.headers["x-ratelimit-remaining"] == "0"
    # Every admitted request counted, the refused ones not.
    assert await day_count(pool, key.id) == len(admitted)


async def test_cli_revocation_is_seen_by_the_next_request_on_both_workers(
    live_server: LiveServer, migrated: str, pool: asyncpg.Pool
) -> None:
    _, key = await partner_key(pool)
    fresh = httpx.Limits(max_keepalive_connections=0)
    async with httpx.AsyncClient(base_url=live_server.base_url, timeout=10, limits=fresh) as http:
        for _ in range(6):
            assert (await http.get("/api/v1/me", headers=bearer(key))).status_code == 200
        run = await telemetry(migrated, "keys", "revoke", key.id)
        assert run.code == 0, run.stderr
        for _ in range(6):
            response = await http.get("/api/v1/me", headers=bearer(key))
            assert (response.status_code, response.json()["error"]["code"]) == (
                401,
                "key_revoked",
            )


@pytest.fixture
async def uncached_client(settings: Settings, migrated: str) -> AsyncIterator[AsyncTestClient]:
    uncached = msgspec.structs.replace(settings, auth_cache=False)  # TELEMETRY_AUTH_CACHE=0
    async with AsyncTestClient(app=create_app(uncached)) as test_client:
        yield test_client


async def test_telemetry_auth_cache_0_authenticates_per_request(
    uncached_client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    assert getattr(uncached_client.app.state, "auth_cache", None) is None
    _, key = await partner_key(pool, tier={"perMinute": 3, "perDay": 1000})
    remaining = []
    for _ in range(3):
        response = await uncached_client.get("/api/v1/me", headers=bearer(key))
        assert response.status_code == 200
        remaining.append(response.headers["x-ratelimit-remaining"])
    assert remaining == ["2", "1", "0"]
    response = await uncached_client.get("/api/v1/me", headers=bearer(key))
    assert_error(response, 429, "rate_limited")
    assert await day_count(pool, key.id) == 3
    await pool.execute("UPDATE api_keys SET revoked_at = now() WHERE id = $1", uuid.UUID(key.id))
    response = await uncached_client.get("/api/v1/me", headers=bearer(key))
    assert_error(response, 401, "key_revoked")


async def test_a_lost_listener_falls_back_then_the_cache_returns(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    cache = cache_of(client)
    _, key = await partner_key(pool, tier={"perMinute": 50, "perDay": 1000})
    assert (await client.get("/api/v1/me", headers=bearer(key))).status_code == 200
    assert cache._listener is not None
    pid = cache._listener.get_server_pid()
    # The worker's loop reopens a lost listener within a second. Left free, it could do so
    # between the termination and this test's next look, so that the fallback state was
    # never seen (the cause of this test's occasional failure): hold it until released.
    reopen = asyncio.Event()
    listener = cache.listener
    real_listen = listener.listen

    async def held_listen() -> None:
        await reopen.wait()
        await real_listen()

    listener.listen = held_listen  # type: ignore[method-assign]
    try:
        assert await pool.fetchval("SELECT pg_terminate_backend($1)", pid)
        for _ in range(100):
            if not cache.active:
                break
            await asyncio.sleep(0.05)
        assert not cache.active and not cache.keys

        response = await client.get("/api/v1/me", headers=bearer(key))
        assert response.status_code == 200
        assert response.headers["x-ratelimit-remaining"] == "48"
        assert not cache.active, "the request went through the per-request path"
    finally:
        del listener.listen
        reopen.set()

    for _ in range(100):
        if cache.active:
            break
        await asyncio.sleep(0.1)
    assert cache.active, "the worker listens again"
    response = await client.get("/api/v1/me", headers=bearer(key))
    assert response.headers["x-ratelimit-remaining"] == "47"
    response = await after_change(client, pool, key, "revoked_at = now()", "/api/v1/me")
    assert_error(response, 401, "key_revoked")


async def test_latest_through_the_cache_counts_and_checks_in_order(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    w = World()
    _, sa, dev = w.tenancy_with_device(
        [w.field("temperature")], tier={"perMinute": 4, "perDay": 1000}
    )
    w.uplink(dev, at="now-PT1M", values={"temperature": 20.5})
    key = w.key(sa, scopes=["telemetry:read"])
    no_scope = w.key(sa, scopes=["devices:read"])
    await load(pool, w)
    url = f"/api/v1/devices/{dev['id']}/latest"
    response = await client.get(url, headers=bearer(key))
    assert response.status_code == 200
    assert response.json()["data"]["values"]["temperature"] == 20.5
    etag = response.headers["etag"]
    response = await client.get(url, headers={**bearer(key), "If-None-Match": etag})
    assert (response.status_code, response.headers["x-ratelimit-remaining"]) == (304, "2")
    response = await client.get(f"/api/v1/devices/{dev['devEui']}/latest", headers=bearer(key))
    assert (response.status_code, response.headers["etag"]) == (200, etag)
    response = await client.get(f"/api/v1/devices/{uuid.uuid4()}/latest", headers=bearer(key))
    assert (response.status_code, response.headers["x-ratelimit-remaining"]) == (404, "0")
    response = await client.get(url, headers=bearer(key))
    assert_error(response, 429, "rate_limited")
    response = await client.get(url, headers=bearer(no_scope))
    assert_error(response, 403, "insufficient_scope")
    assert await day_count(pool, key.id) == 4
    response = await after_change(client, pool, key, "revoked_at = now()", url)
    assert_error(response, 401, "key_revoked")


async def test_a_new_uplink_is_seen_at_once_with_the_old_etag_over_the_live_server(
    live_server: LiveServer, pool: asyncpg.Pool
) -> None:
    w, t = th_world()
    w.uplink(t["device"], at="now-PT30M", values={"temperature": 10.0})
    await load(pool, w)
    url = f"/api/v1/devices/{t['device']['id']}/latest"
    eui_url = f"/api/v1/devices/{t['device']['devEui']}/latest"
    limits = httpx.Limits(max_keepalive_connections=0)
    async with httpx.AsyncClient(base_url=live_server.base_url, timeout=10, limits=limits) as http:
        for round_ in range(6):
            # Several new connections: both workers have the current answer cached.
            answers = [await http.get(u, headers=bearer(t["key"])) for u in (url, eui_url) * 3]
            etags = {r.headers["etag"] for r in answers}
            assert len(etags) == 1 and {r.status_code for r in answers} == {200}
            etag = etags.pop()
            for u in (url, eui_url):
                response = await http.get(u, headers={**bearer(t["key"]), "If-None-Match": etag})
                assert response.status_code == 304

            at = datetime.now(UTC) - timedelta(minutes=20 - round_)
            body = cs.uplink(t["device"]["devEui"], {"temperature": 11.0 + round_}, time=at)
            response = await http.post(
                f"{INGEST}?event=up", content=body, headers=cs.bearer(t["token"])
            )
            assert response.status_code == 204, response.text
            response = await http.get(
                url if round_ % 2 else eui_url,
                headers={**bearer(t["key"]), "If-None-Match": etag},
            )
            assert response.status_code == 200, round_
            assert response.headers["etag"] != etag
            assert response.json()["data"]["values"]["temperature"] == 11.0 + round_


async def test_a_device_leaving_the_tenancy_is_404_at_once(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    w, t = th_world()
    w.uplink(t["device"], at="now-PT30M", values={"temperature": 10.0})
    await load(pool, w)
    url = f"/api/v1/devices/{t['device']['id']}/latest"
    for _ in range(2):
        assert (await client.get(url, headers=bearer(t["key"]))).status_code == 200
    await committed(
        client,
        pool,
        "UPDATE devices SET status = 'archived' WHERE id = $1",
        uuid.UUID(t["device"]["id"]),
    )
    response = await client.get(url, headers=bearer(t["key"]))
    assert_error(response, 404, "not_found")
