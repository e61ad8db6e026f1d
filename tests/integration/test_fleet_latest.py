"""GET /api/v1/latest (fleet latest) and long polls (analytics.md section 1, issue 24)."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

import asyncpg
import httpx
import pytest
from litestar.testing import AsyncTestClient

from app.core.sql import QUERIES
from testkit.factories import World, load
from tests.support import chirpstack as cs
from tests.support.chirpstack import post
from tests.support.fleet import fleet_world
from tests.support.helpers import assert_error, bearer
from tests.support.servers import LiveServer, serving

FLEET = "/api/v1/latest"


async def uplink(http: Any, t: dict[str, Any], device: dict[str, Any], **values: Any) -> None:
    assert await post(http, t["token"], "up", cs.uplink(device["devEui"], values)) == 204


async def single(http: Any, key: str, device: dict[str, Any]) -> Any:
    response = await http.get(f"/api/v1/devices/{device['id']}/latest", headers=bearer(key))
    assert response.status_code == 200, response.text
    return response.json()["data"]


async def test_selection_by_ids_and_filters(client: AsyncTestClient, pool: asyncpg.Pool) -> None:
    w, t = fleet_world()
    await load(pool, w)
    for n, device in enumerate(t["in_site"]):
        await uplink(client, t, device, temperature=20 + n, humidity=50)
    site_ids = sorted(d["id"] for d in t["in_site"])
    first = t["in_site"][0]
    named = [
        first["id"],
        first["devEui"].upper(),  # the same device by DevEUI: once
        t["in_site"][1]["id"],
        t["sibling"]["id"],  # another sub-account's: invisible to this key
        t["inventory"]["id"],
        t["foreign"]["devEui"],
        str(uuid.uuid4()),
        t["elsewhere"]["id"],
    ]
    response = await client.get(
        FLEET, params={"deviceIds": ",".join(named)}, headers=bearer(t["key"])
    )
    assert response.status_code == 200, response.text
    body = response.json()
    expected_ids = sorted([first["id"], t["in_site"][1]["id"], t["elsewhere"]["id"]])
    assert [item["deviceId"] for item in body["data"]] == expected_ids
    assert body["pagination"] == {"limit": 50, "offset": 0, "total": 3}
    for item in body["data"]:
        assert item == await single(client, t["key"], {"id": item["deviceId"]})
    assert response.headers["cache-control"] == "private, no-cache"
    assert response.headers["etag"].startswith('"')

    by_site = await client.get(FLEET, params={"siteId": t["site"]["id"]}, headers=bearer(t["key"]))
    assert by_site.status_code == 200, by_site.text
    assert [item["deviceId"] for item in by_site.json()["data"]] == site_ids
    assert by_site.json()["data"][0]["values"]["temperature"] in (20, 21, 22)
    paged = await client.get(
        FLEET,
        params={"siteId": t["site"]["id"], "limit": "1", "offset": "1"},
        headers=bearer(t["key"]),
    )
    assert [item["deviceId"] for item in paged.json()["data"]] == site_ids[1:2]
    assert paged.json()["pagination"] == {"limit": 1, "offset": 1, "total": 3}
    assert paged.headers["etag"] != by_site.headers["etag"]
    past = await client.get(
        FLEET, params={"siteId": t["site"]["id"], "offset": "10"}, headers=bearer(t["key"])
    )
    assert past.json() == {"data": [], "pagination": {"limit": 50, "offset": 10, "total": 3}}
    # Without filters: every assigned device the key sees; a partner key sees both
    # sub-accounts' but never the inventory.
    everything = await client.get(FLEET, headers=bearer(t["partner_key"]))
    listed = {item["deviceId"] for item in everything.json()["data"]}
    assert listed == {*site_ids, t["elsewhere"]["id"], t["sibling"]["id"]}
    searched = await client.get(FLEET, params={"search": first["name"]}, headers=bearer(t["key"]))
    assert [item["deviceId"] for item in searched.json()["data"]] == [first["id"]]


async def test_fields_restrict_values_and_derived(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    w, t = fleet_world(devices=1)
    await load(pool, w)
    device = t["in_site"][0]
    await uplink(client, t, device, temperature=10, humidity=40)
    params = {"deviceIds": device["id"], "fields": "humidity,nothing"}
    response = await client.get(FLEET, params=params, headers=bearer(t["key"]))
    assert response.status_code == 200, response.text
    item = response.json()["data"][0]
    assert item["values"] == {"humidity": 40}
    assert "derived" not in item and "signalQuality" in item
    params["fields"] = "temp_f"
    item = (await client.get(FLEET, params=params, headers=bearer(t["key"]))).json()["data"][0]
    assert item["values"] == {"temp_f": 50.0} and item["derived"] == {"temp_f": 50.0}


async def test_etag_304_and_a_change(client: AsyncTestClient, pool: asyncpg.Pool) -> None:
    w, t = fleet_world()
    await load(pool, w)
    ids = ",".join(d["id"] for d in t["in_site"])
    first = await client.get(FLEET, params={"deviceIds": ids}, headers=bearer(t["key"]))
    etag = first.headers["etag"]
    again = await client.get(
        FLEET, params={"deviceIds": ids}, headers=bearer(t["key"], **{"If-None-Match": etag})
    )
    assert again.status_code == 304 and again.content == b""
    assert again.headers["etag"] == etag
    assert "x-ratelimit-remaining" in again.headers
    await uplink(client, t, t["in_site"][2], temperature=5)
    changed = await client.get(
        FLEET, params={"deviceIds": ids}, headers=bearer(t["key"], **{"If-None-Match": etag})
    )
    assert changed.status_code == 200 and changed.headers["etag"] != etag
    values = {item["deviceId"]: item["values"] for item in changed.json()["data"]}
    assert values[t["in_site"][2]["id"]]["temperature"] == 5


async def test_a_cached_304_reads_nothing_from_the_database(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    w, t = fleet_world()
    await load(pool, w)
    for device in t["in_site"]:
        await uplink(client, t, device, temperature=1)
    ids = ",".join(d["id"] for d in t["in_site"])
    by_site = {"siteId": t["site"]["id"]}
    headers = bearer(t["key"])
    etags = {}
    await asyncio.sleep(0.5)  # the load's own notifications have come
    for params in ({"deviceIds": ids}, by_site):
        for _ in range(3):  # a reference is cached from its second miss on
            answer = await client.get(FLEET, params=params, headers=headers)
        etags[str(params)] = answer.headers["etag"]
    # Every statement the app sends while answering, but the rate limiter's lease of
    # permits (once a second per key, whatever the route).
    pool_class = type(client.app.state.pool)
    reads: list[str] = []
    lease = QUERIES["auth.lease"]

    def counting(method: Any) -> Any:
        async def read(self: Any, query: str, *args: Any, **kwargs: Any) -> Any:
            if query != lease:
                reads.append(query)
            return await method(self, query, *args, **kwargs)

        return read

    with pytest.MonkeyPatch.context() as patch:
        for name in ("fetch", "fetchrow", "fetchval", "execute"):
            patch.setattr(pool_class, name, counting(getattr(pool_class, name)))
        for params in ({"deviceIds": ids}, by_site):
            condition = bearer(t["key"], **{"If-None-Match": etags[str(params)]})
            response = await client.get(FLEET, params=params, headers=condition)
            assert response.status_code == 304, params
    assert reads == []


async def test_a_filter_selection_follows_moves_and_the_site_tree(
    live_server: LiveServer, pool: asyncpg.Pool
) -> None:
    """A selection by filters is kept per worker between reads: a device moved into the
    site, and a site moved under the selected one, show at the next read all the same."""
    w, t = fleet_world(devices=1)
    await load(pool, w)
    params = {"siteId": t["site"]["id"], "includeDescendants": "true"}

    async def listed(http: httpx.AsyncClient) -> set[str]:
        answer = await http.get(FLEET, params=params, headers=bearer(t["key"]))
        assert answer.status_code == 200, answer.text
        return {item["deviceId"] for item in answer.json()["data"]}

    async def eventually(http: httpx.AsyncClient, wanted: set[str]) -> None:
        deadline = time.monotonic() + 3
        while (seen := await listed(http)) != wanted:
            assert time.monotonic() < deadline, seen
            await asyncio.sleep(0.1)

    async with live_server.client() as http:
        first = t["in_site"][0]["id"]
        for _ in range(4):  # both workers keep the membership
            assert await listed(http) == {first}
        await pool.execute(
            "UPDATE devices SET site_id = $1 WHERE id = $2", t["site"]["id"], t["elsewhere"]["id"]
        )
        await eventually(http, {first, t["elsewhere"]["id"]})
        # A new site under the selected one, holding a device: the tree moved.
        child = uuid.uuid4()
        sub_account = await pool.fetchval(
            "SELECT sub_account_id FROM sites WHERE id = $1", t["site"]["id"]
        )
        await pool.execute(
            "INSERT INTO sites (id, sub_account_id, name, depth) VALUES ($1, $2, 'Annex', 1)",
            child,
            sub_account,
        )
        await pool.execute(
            "UPDATE devices SET site_id = $1 WHERE id = $2", child, t["elsewhere"]["id"]
        )
        await eventually(http, {first})
        await pool.execute(
            "UPDATE sites SET parent_site_id = $1, depth = 2 WHERE id = $2", t["site"]["id"], child
        )
        await eventually(http, {first, t["elsewhere"]["id"]})


async def test_bad_input(client: AsyncTestClient, pool: asyncpg.Pool) -> None:
    w, t = fleet_world(devices=1)
    no_scope = w.key(t["partner"], scopes=["devices:read"])
    await load(pool, w)
    device = t["in_site"][0]
    cases = {
        "colour": {"colour": "red"},
        "deviceIds": {"deviceIds": f"{device['id']},not-a-device"},
        "limit": {"limit": "0"},
        "offset": {"offset": "-1"},
        "online": {"online": "yes"},
        "fields": {"fields": "temp-f"},
        "siteId": {"siteId": "somewhere"},
    }
    for name, params in cases.items():
        response = await client.get(FLEET, params=params, headers=bearer(t["key"]))
        assert_error(response, 400, "invalid_parameter")
        assert name in response.json()["error"]["message"], (name, response.text)
    both = await client.get(
        FLEET,
        params={"deviceIds": device["id"], "siteId": t["site"]["id"]},
        headers=bearer(t["key"]),
    )
    assert_error(both, 400, "invalid_parameter")
    assert "deviceIds" in both.json()["error"]["message"]
    many = ",".join(str(uuid.uuid4()) for _ in range(201))
    too_many = await client.get(FLEET, params={"deviceIds": many}, headers=bearer(t["key"]))
    assert_error(too_many, 400, "invalid_parameter")
    exactly = ",".join(str(uuid.uuid4()) for _ in range(200))
    assert (
        await client.get(FLEET, params={"deviceIds": exactly}, headers=bearer(t["key"]))
    ).json()["pagination"]["total"] == 0
    assert_error(await client.get(FLEET, headers=bearer(no_scope)), 403, "insufficient_scope")


async def test_feature_switches_come_first(client: AsyncTestClient, pool: asyncpg.Pool) -> None:
    w = World()
    p = w.partner(features={"networks": False, "multiSite": False})
    key = w.key(w.sub_account(p), scopes=["telemetry:read"])
    await load(pool, w)
    site = await client.get(FLEET, params={"siteId": "x", "limit": "0"}, headers=bearer(key))
    assert_error(site, 403, "multi_site_disabled")
    network = await client.get(FLEET, params={"networkId": "none"}, headers=bearer(key))
    assert_error(network, 403, "networks_disabled")


async def test_long_poll_wakes_on_a_change_and_times_out(
    live_server: LiveServer, pool: asyncpg.Pool
) -> None:
    w, t = fleet_world()
    await load(pool, w)
    async with live_server.client() as client:
        await long_poll_wakes_on_a_change_and_times_out(client, t)


async def long_poll_wakes_on_a_change_and_times_out(
    client: httpx.AsyncClient, t: dict[str, Any]
) -> None:
    params = {"siteId": t["site"]["id"]}
    etag = (await client.get(FLEET, params=params, headers=bearer(t["key"]))).headers["etag"]
    held = bearer(t["key"], **{"If-None-Match": etag, "Prefer": "wait=20"})

    async def change_soon() -> None:
        await asyncio.sleep(0.5)
        await uplink(client, t, t["in_site"][1], temperature=42)

    started = time.monotonic()
    response, _ = await asyncio.gather(
        client.get(FLEET, params=params, headers=held), change_soon()
    )
    took = time.monotonic() - started
    assert response.status_code == 200, took
    assert response.headers["preference-applied"] == "wait=20"
    assert response.headers["etag"] != etag
    assert 0.5 <= took < 5, took
    by_id = {item["deviceId"]: item for item in response.json()["data"]}
    assert by_id[t["in_site"][1]["id"]]["values"]["temperature"] == 42

    # Unchanged for the whole wait: 304, with the wait applied.
    etag = response.headers["etag"]
    started = time.monotonic()
    timeout = await client.get(
        FLEET,
        params=params,
        headers=bearer(t["key"], **{"If-None-Match": etag, "Prefer": "wait=1"}),
    )
    assert timeout.status_code == 304 and timeout.headers["preference-applied"] == "wait=1"
    assert time.monotonic() - started >= 0.9
    # An unreadable wait is ignored: at once, and no Preference-Applied.
    for prefer in ("wait=abc", "wait=0", "wait=-3", "wait=1.5"):
        started = time.monotonic()
        ignored = await client.get(
            FLEET,
            params=params,
            headers=bearer(t["key"], **{"If-None-Match": etag, "Prefer": prefer}),
        )
        assert ignored.status_code == 304, prefer
        assert "preference-applied" not in ignored.headers, prefer
        assert time.monotonic() - started < 0.9, prefer
    # Without If-None-Match nothing waits, and no wait is applied.
    plain = await client.get(FLEET, params=params, headers=bearer(t["key"], Prefer="wait=5"))
    assert plain.status_code == 200 and "preference-applied" not in plain.headers
    # A wait over 60 is applied as 60; a stale ETag answers 200 at once with it.
    stale = await client.get(
        FLEET,
        params=params,
        headers=bearer(t["key"], **{"If-None-Match": '"old"', "Prefer": "wait=600"}),
    )
    assert stale.status_code == 200 and stale.headers["preference-applied"] == "wait=60"


async def test_long_poll_on_one_device_and_it_counts_once(
    live_server: LiveServer, pool: asyncpg.Pool
) -> None:
    w = World()
    p, sa, device = w.tenancy_with_device(
        [w.field("temperature")], tier={"perMinute": 5, "perDay": 1000}
    )
    key = w.key(sa, scopes=["telemetry:read"])
    token = w.integration(p)
    await load(pool, w)
    async with live_server.client() as client:
        await one_device_long_poll(client, device, key, token)


async def one_device_long_poll(
    client: httpx.AsyncClient, device: dict[str, Any], key: str, token: str
) -> None:
    url = f"/api/v1/devices/{device['id']}/latest"
    first = await client.get(url, headers=bearer(key))
    assert first.headers["x-ratelimit-remaining"] == "4"
    held = bearer(key, **{"If-None-Match": first.headers["etag"], "Prefer": "wait=10"})

    async def change_soon() -> None:
        await asyncio.sleep(1.5)
        body = cs.uplink(device["devEui"], {"temperature": 7})
        assert await post(client, token, "up", body) == 204

    response, _ = await asyncio.gather(client.get(url, headers=held), change_soon())
    assert response.status_code == 200
    assert response.json()["data"]["values"] == {"temperature": 7}
    assert response.headers["preference-applied"] == "wait=10"
    # Held for 1.5 s and counted once.
    assert response.headers["x-ratelimit-remaining"] == "3"
    after = await client.get(url, headers=bearer(key))
    assert after.headers["x-ratelimit-remaining"] == "2"


async def test_shutdown_answers_held_requests(migrated: str, pool: asyncpg.Pool) -> None:
    """`telemetry serve` stopped while long polls are held: each is answered 304 (with
    its ETag) before the worker exits, not cut."""
    w, t = fleet_world(devices=1)
    await load(pool, w)
    device = t["in_site"][0]
    with serving(migrated) as server:
        async with server.client() as http:
            url = f"/api/v1/devices/{device['id']}/latest"
            etag = (await http.get(url, headers=bearer(t["key"]))).headers["etag"]
            fleet_etag = (
                await http.get(FLEET, params={"deviceIds": device["id"]}, headers=bearer(t["key"]))
            ).headers["etag"]
            wait = {"Prefer": "wait=60"}
            held = [
                asyncio.create_task(
                    http.get(url, headers=bearer(t["key"], **{"If-None-Match": etag}, **wait))
                )
                for _ in range(3)
            ] + [
                asyncio.create_task(
                    http.get(
                        FLEET,
                        params={"deviceIds": device["id"]},
                        headers=bearer(t["key"], **{"If-None-Match": fleet_etag}, **wait),
                    )
                )
            ]
            await asyncio.sleep(1.5)
            assert not any(task.done() for task in held)
            started = time.monotonic()
            stopping = asyncio.get_running_loop().run_in_executor(None, server.stop)
            answers = await asyncio.gather(*held, return_exceptions=True)
            await stopping
    assert time.monotonic() - started < 10
    for answer in answers:
        assert isinstance(answer, httpx.Response), answer
        assert answer.status_code == 304
        assert answer.headers["preference-applied"] == "wait=60"


async def test_a_long_poll_on_any_etag_answers_the_change(
    live_server: LiveServer, pool: asyncpg.Pool
) -> None:
    """`If-None-Match: *` matches whatever the answer is: the wait still ends with 200 and
    the new body when a device changes (it answered 304 after the change before)."""
    w, t = fleet_world(devices=1)
    await load(pool, w)
    device = t["in_site"][0]
    held = bearer(t["key"], **{"If-None-Match": "*", "Prefer": "wait=20"})
    async with live_server.client() as client:
        for url, params in (
            (f"/api/v1/devices/{device['id']}/latest", {}),
            (FLEET, {"deviceIds": device["id"]}),
        ):

            async def change_soon(value: int) -> None:
                await asyncio.sleep(0.8)
                await uplink(client, t, device, temperature=value)

            value = 60 + len(params)
            response, _ = await asyncio.gather(
                client.get(url, params=params, headers=held), change_soon(value)
            )
            assert response.status_code == 200, url
            assert response.headers["preference-applied"] == "wait=20"
            assert f'"temperature": {value}' in response.text
