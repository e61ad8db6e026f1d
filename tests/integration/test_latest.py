"""GET /devices/{id}/latest: body rules, ETag/304, order of checks, tenancy."""

from __future__ import annotations

import asyncio
import random
import threading
import time
import uuid
from datetime import timedelta
from typing import Any

import asyncpg
import httpx
import pytest
from litestar.testing import AsyncTestClient

from app.auth.cache import RENEWAL_WAIT_S
from app.latest.lean import LeanLatest
from testkit.factories import Entity, Secret, World, load
from tests.support import chirpstack as cs
from tests.support.chirpstack import INGEST, latest, th_world, up
from tests.support.helpers import assert_error, bearer, committed, settled_day_count


async def test_static_values_and_formulas_over_them_before_the_first_uplink(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    w = World()
    p, sa = w.tenancy({})
    prof = w.profile(
        p,
        fields=[
            w.field("temperature"),
            w.field("height", kind="static", default=2.5),
            w.field("floors", kind="static"),
            w.formula("area", "height * floors"),
            w.mapping("tall", "floors", {"10": "yes"}, "no"),
            w.formula("warm", "temperature > 20", dataType="boolean"),
            w.field("installed", kind="static", dataType="date"),
        ],
    )
    dev = w.device(sa, prof, static={"floors": 10, "installed": "2026-03-01"})
    plain = w.device(sa, w.profile(p))
    key = w.key(sa, scopes=["telemetry:read"])
    await load(pool, w)

    data = await latest(client, key, dev)
    assert data == {
        "deviceId": dev["id"],
        "time": None,
        "values": {
            "height": 2.5,
            "floors": 10,
            "installed": "2026-03-01",
            "area": 25.0,
            "tall": "yes",
        },
        "signalQuality": None,
        "derived": {"area": 25.0, "tall": "yes"},
    }
    assert await latest(client, key, plain) == {
        "deviceId": plain["id"],
        "time": None,
        "values": {},
        "signalQuality": None,
    }


async def test_calibrated_device_has_derived_even_without_formulas(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    w = World()
    p, sa = w.tenancy({})
    prof = w.profile(p, fields=[w.field("temperature"), w.field("humidity")])
    dev = w.device(sa, prof, calibration={"temperature": {"scale": 2, "offset": 1}})
    key = w.key(sa, scopes=["telemetry:read"])
    w.uplink(dev, at="now-PT1M", values={"temperature": 10, "humidity": 5})
    await load(pool, w)
    data = await latest(client, key, dev)
    assert data["values"] == {"temperature": 21.0, "humidity": 5}
    assert data["derived"] == {"temperature": 21.0}


async def test_etag_and_conditional_requests(client: AsyncTestClient, th: dict[str, Any]) -> None:
    url = f"/api/v1/devices/{th['device']['id']}/latest"
    first = await client.get(url, headers=bearer(th["key"]))
    assert first.status_code == 200
    etag = first.headers["etag"]
    assert etag.startswith('"') and etag.endswith('"')
    assert first.headers["cache-control"] == "private, no-cache"
    assert first.headers["content-type"].startswith("application/json")

    for header in (etag, f'"nope", {etag}', "*", f"W/{etag}"):
        response = await client.get(url, headers=bearer(th["key"], **{"If-None-Match": header}))
        assert response.status_code == 304, header
        assert response.content == b""
        assert response.headers["etag"] == etag
        assert response.headers["cache-control"] == "private, no-cache"
        assert "x-ratelimit-remaining" in response.headers
    response = await client.get(url, headers=bearer(th["key"], **{"If-None-Match": '"other"'}))
    assert response.status_code == 200 and response.json() == first.json()

    # An uplink changes the body, and so the ETag.
    await up(client, th, {"temperature": 3})
    changed = await client.get(url, headers=bearer(th["key"], **{"If-None-Match": etag}))
    assert changed.status_code == 200
    assert changed.headers["etag"] != etag
    assert changed.json()["data"]["values"]["temperature"] == 3
    # Stable while nothing changes; a replay of a stored event changes nothing.
    again = await client.get(
        url, headers=bearer(th["key"], **{"If-None-Match": changed.headers["etag"]})
    )
    assert again.status_code == 304
    # The DevEUI addresses the device too, in any case and with separators.
    eui = th["device"]["devEui"].upper()
    dashed = "-".join(eui[i : i + 2] for i in range(0, 16, 2))
    by_eui = await client.get(f"/api/v1/devices/{dashed}/latest", headers=bearer(th["key"]))
    assert by_eui.status_code == 200 and by_eui.headers["etag"] == changed.headers["etag"]


async def test_latest_reads_its_own_writes_at_once(
    client: AsyncTestClient, th: dict[str, Any]
) -> None:
    """A dashboard that sees 204 from ingest and asks /latest at once gets the new body,
    even when the worker has not yet read PostgreSQL's notification of the commit."""
    url = f"/api/v1/devices/{th['device']['id']}/latest"
    etag = (await client.get(url, headers=bearer(th["key"]))).headers["etag"]
    for value in range(40):
        assert await up(client, th, {"temperature": value}) == 204
        response = await client.get(url, headers=bearer(th["key"], **{"If-None-Match": etag}))
        assert response.status_code == 200, value
        assert response.json()["data"]["values"]["temperature"] == value
        etag = response.headers["etag"]


async def test_304_counts_toward_the_rate_limit(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    w = World()
    _, sa, dev = w.tenancy_with_device(tier={"perMinute": 3, "perDay": 1000})
    key = w.key(sa, scopes=["telemetry:read"])
    await load(pool, w)
    url = f"/api/v1/devices/{dev['id']}/latest"
    first = await client.get(url, headers=bearer(key))
    assert first.headers["x-ratelimit-limit"] == "3"
    assert first.headers["x-ratelimit-remaining"] == "2"
    conditional = bearer(key, **{"If-None-Match": first.headers["etag"]})
    second = await client.get(url, headers=conditional)
    assert second.status_code == 304 and second.headers["x-ratelimit-remaining"] == "1"
    third = await client.get(url, headers=conditional)
    assert third.status_code == 304 and third.headers["x-ratelimit-remaining"] == "0"
    fourth = await client.get(url, headers=conditional)
    assert_error(fourth, 429, "rate_limited")
    assert int(fourth.headers["retry-after"]) >= 1


async def test_order_of_checks_and_tenancy(client: AsyncTestClient, pool: asyncpg.Pool) -> None:
    w, t = th_world()
    p, sa, prof = t["partner"], t["sa"], t["profile"]
    inventory = w.device(p, prof)
    archived = w.device(sa, prof, status="archived")
    other_sa = w.sub_account(p)
    sibling = w.device(other_sa, prof)
    stranger = w.partner()
    stranger_dev = w.device(w.sub_account(stranger), w.profile(stranger))
    no_scope = w.key(sa, scopes=["devices:read"])
    partner_key = w.key(p, scopes=["telemetry:read"])
    revoked = w.key(sa, scopes=["telemetry:read"], revoked=True)
    await load(pool, w)

    async def get(key: str, ref: str) -> tuple[int, str | None, Any]:
        response = await client.get(f"/api/v1/devices/{ref}/latest", headers=bearer(key))
        code = response.json()["error"]["code"] if response.status_code >= 400 else None
        return response.status_code, code, response.headers

    status, code, headers = await get("svc_live_" + "x" * 40, t["device"]["id"])
    assert (status, code) == (401, "unauthorized")
    assert headers["www-authenticate"] == "Bearer"
    assert (await get(revoked, t["device"]["id"]))[:2] == (401, "key_revoked")
    response = await client.get(f"/api/v1/devices/{t['device']['id']}/latest")
    assert response.status_code == 401
    # Scope comes before resolution: even a missing device is 403 without the scope.
    status, code, headers = await get(no_scope, str(uuid.uuid4()))
    assert (status, code) == (403, "insufficient_scope")
    assert "x-ratelimit-remaining" in headers
    for ref in (
        inventory["id"],
        archived["id"],
        sibling["id"],
        stranger_dev["id"],
        stranger_dev["devEui"],
        str(uuid.uuid4()),
        "not-a-device",
    ):
        status, code, headers = await get(t["key"], ref)
        assert (status, code) == (404, "not_found"), ref
        assert "x-ratelimit-remaining" in headers
    # A partner key reads every sub-account's assigned devices, never inventory ones.
    assert (await get(partner_key, sibling["id"]))[0] == 200
    assert (await get(partner_key, inventory["id"]))[:2] == (404, "not_found")
    assert (await get(partner_key, archived["devEui"]))[:2] == (404, "not_found")


async def test_world_file_telemetry_goes_through_the_pipeline(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    w, t = th_world(retain=True)
    dev, gw = t["device"], t["gateway"]
    skipped = w.device(t["partner"], t["profile"])
    w.uplink(
        dev,
        at="now-PT10M",
        values={"temperature": 21.5, "battery": 87, "door_raw": 1},
        rssi=-80,
        snr=7.5,
        gatewayEui=gw["gatewayEui"],
        fPort=1,
    )
    w.uplink({"id": dev["devEui"]}, at="now-PT5M", values={"humidity": 40})
    w.uplink(dev, at="now-PT20M", values={"temperature": 10})  # out of order in the file
    w.uplink(skipped, at="now-PT5M", values={"temperature": 1})
    w.status_event(dev, at="now-PT5M", battery="external")
    w.gateway_stats(gw, at="now-PT2M")
    now = cs.at(0)
    summary = await load(pool, w, now=now)
    assert summary.uplinks == 4

    data = await latest(client, t["key"], dev)
    ten, five = cs.iso(now - timedelta(minutes=10)), cs.iso(now - timedelta(minutes=5))
    assert data["time"] == five
    assert data["values"]["temperature"] == 21.5
    assert data["values"]["humidity"] == 40
    assert data["values"]["door"] == "open"
    assert data["retained"] == {
        "temperature": ten,
        "battery": ten,
        "door_raw": ten,
        "temp_f": ten,
        "door": ten,
    }
    # The second uplink had no rxInfo: the signal of the newest uplink that had one.
    assert data["signalQuality"] == 74
    state = await pool.fetchrow(
        "SELECT s.battery FROM device_state s JOIN devices d ON d.num = s.device_num"
        " WHERE d.id = $1",
        dev["id"],
    )
    assert state["battery"] == {"state": "external", "value": None, "at": five, "source": "status"}
    gateway = await pool.fetchrow(
        "SELECT last_seen_at, last_stats_at FROM gateways WHERE id = $1", gw["id"]
    )
    two = now - timedelta(minutes=2)
    assert gateway["last_seen_at"] == two and gateway["last_stats_at"] == two
    count = await pool.fetchval(
        "SELECT count(*) FROM readings_num r JOIN devices d ON d.num = r.device_num"
        " WHERE d.id = $1",
        skipped["id"],
    )
    assert count == 0


async def test_world_file_naming_an_unknown_device_is_refused(pool: asyncpg.Pool) -> None:
    from app.world.errors import WorldError

    w, t = th_world()
    w.uplink({"id": str(uuid.uuid4())}, at="now", values={"temperature": 1})
    try:
        await load(pool, w)
    except WorldError as exc:
        assert exc.message.startswith("uplinks[0].device:")
    else:
        raise AssertionError("the world was loaded")
    exists = await pool.fetchval("SELECT count(*) FROM devices WHERE id = $1", t["device"]["id"])
    assert exists == 0


async def test_live_ingest_and_conditional_get_over_a_real_socket(
    live_server: Any, th: dict[str, Any]
) -> None:
    url = f"/api/v1/devices/{th['device']['id']}/latest"
    async with live_server.client() as http:
        response = await http.post(
            f"{INGEST}?event=up",
            content=cs.uplink(th["device"]["devEui"], {"temperature": 19.5}, time=cs.at(1)),
            headers=cs.bearer(th["token"]),
        )
        assert response.status_code == 204 and response.content == b""
        first = await http.get(url, headers=bearer(th["key"]))
        assert first.status_code == 200
        assert first.json()["data"]["values"]["temperature"] == 19.5
        etag = first.headers["etag"]
        again = await http.get(url, headers=bearer(th["key"], **{"If-None-Match": etag}))
        assert again.status_code == 304 and again.content == b""
        assert int(again.headers["x-ratelimit-remaining"]) < int(
            first.headers["x-ratelimit-remaining"]
        )


async def test_a_thousand_events_with_duplicates_store_exactly_the_distinct_ones(
    live_server: Any, pool: asyncpg.Pool
) -> None:
    w = World()
    p, sa = w.tenancy({})
    prof = w.profile(p, fields=[w.field(name) for name in ("a", "b", "c", "d")])
    devices = [w.device(sa, prof) for _ in range(20)]
    token = w.integration(p)
    await load(pool, w)

    distinct = []
    for index in range(800):
        device = devices[index % len(devices)]
        distinct.append(
            cs.uplink(
                device["devEui"],
                {"a": index, "b": 1, "c": 2, "d": 3},
                time=cs.at(60, index),
                dedup=f"dedup-{index}",
            )
        )
    bodies = distinct + random.Random(7).sample(distinct, 200)
    random.Random(8).shuffle(bodies)
    semaphore = asyncio.Semaphore(16)

    async with live_server.client() as http:

        async def send(body: str) -> int:
            async with semaphore:
                response = await http.post(
                    f"{INGEST}?event=up", content=body, headers=cs.bearer(token)
                )
                return response.status_code

        statuses = await asyncio.gather(*(send(body) for body in bodies))
    assert statuses == [204] * 1000
    nums = [await pool.fetchval("SELECT num FROM devices WHERE id = $1", d["id"]) for d in devices]
    stored = await pool.fetchval(
        "SELECT count(*) FROM readings_num WHERE device_num = ANY($1::int[]) AND field_num <> 0",
        nums,
    )
    assert stored == 800 * 4
    values = await pool.fetchval(
        "SELECT count(DISTINCT value) FROM readings_num r JOIN profile_fields f"
        " ON f.num = r.field_num WHERE r.device_num = ANY($1::int[]) AND f.identifier = 'a'",
        nums,
    )
    assert values == 800


async def device_with_a_reading(pool: asyncpg.Pool) -> tuple[Entity, Secret]:
    """A device with a temperature reading a minute old, and a `telemetry:read` key of its
    sub-account whose rate limit no test here reaches."""
    w = World()
    _, sa, dev = w.tenancy_with_device(
        [w.field("temperature")], tier={"perMinute": 100_000, "perDay": 1_000_000}
    )
    w.uplink(dev, at="now-PT1M", values={"temperature": 20.5})
    key = w.key(sa, scopes=["telemetry:read"])
    await load(pool, w)
    return dev, key


def watch_lean_answers(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """A list that records, for each request LeanLatest sees from now on, whether it
    answered it (True) or passed it on to the route (False)."""
    lean: list[bool] = []
    answer = LeanLatest.answer

    async def observed(self: LeanLatest, scope: Any) -> Any:
        found = await answer(self, scope)
        lean.append(found is not None)
        return found

    monkeypatch.setattr(LeanLatest, "answer", observed)
    return lean


async def test_the_lean_path_answers_as_the_full_path_does(
    client: AsyncTestClient, pool: asyncpg.Pool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the key, a leased permit and the device's body are in the worker's memory,
    LeanLatest (app/latest/lean.py) answers below Litestar: the same status, headers and
    body as the route, under the route's template in the access line, one permit spent
    each; anything else (a query string, a long poll, a revoked key) goes to the route."""
    dev, key = await device_with_a_reading(pool)
    lean = watch_lean_answers(monkeypatch)
    routes: list[str] = []
    sink = client.app.asgi_handler.log
    record = sink.request

    def noted(*args: Any) -> Any:
        routes.append(args[2])
        return record(*args)

    monkeypatch.setattr(sink, "request", noted)
    url = f"/api/v1/devices/{dev['id']}/latest"

    async def until_lean(path: str, headers: dict[str, str]) -> list[httpx.Response]:
        """Requests until one is answered lean (a reference's body is cached from its
        second read on, and a lease holds spare permits once the key is busy)."""
        lean.clear()
        answers = [await client.get(path, headers=headers) for _ in range(2)]
        while not lean[-1] and len(answers) < 30:
            answers.append(await client.get(path, headers=headers))
        assert lean[-1] and lean.count(True) == 1
        return answers

    def same(answer: httpx.Response, route: httpx.Response) -> None:
        assert answer.status_code == route.status_code
        assert answer.content == route.content
        varying = {"x-ratelimit-remaining", "ratelimit", "x-request-id", "date"}
        assert [(k, v) for k, v in answer.headers.items() if k not in varying] == [
            (k, v) for k, v in route.headers.items() if k not in varying
        ]
        assert answer.headers["x-request-id"] != route.headers["x-request-id"]

    plain = await until_lean(url, bearer(key))
    same(plain[-1], plain[-2])
    assert plain[-1].json()["data"]["values"] == {"temperature": 20.5}
    remaining = [int(r.headers["x-ratelimit-remaining"]) for r in plain]
    assert remaining == list(range(99_999, 99_999 - len(plain), -1))
    assert len(set(routes)) == 1 and "{device_ref" in routes[0]

    conditional = bearer(key, **{"If-None-Match": plain[-1].headers["etag"]})
    not_modified = (await until_lean(url, conditional))[-1]
    lean.clear()
    routed = await client.get(url + "?unused=1", headers=conditional)
    held = await client.get(url, headers={**conditional, "Prefer": "wait=1"})
    assert lean == [False, False]
    same(not_modified, routed)
    assert (not_modified.status_code, not_modified.content) == (304, b"")
    assert "content-type" not in not_modified.headers
    assert (held.status_code, held.headers["preference-applied"]) == (304, "wait=1")
    assert len(set(routes)) == 1
    served = len(routes)
    assert await settled_day_count(pool, key.id, served) == served

    await committed(
        client, pool, "UPDATE api_keys SET revoked_at = now() WHERE id = $1", uuid.UUID(key.id)
    )
    lean.clear()
    assert_error(await client.get(url, headers=conditional), 401, "key_revoked")
    assert lean == [False]


async def test_the_lean_path_waits_briefly_for_a_lease_being_renewed(
    client: AsyncTestClient, pool: asyncpg.Pool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A request that finds its key's permits spent while another request is renewing
    the lease waits for the renewal (up to RENEWAL_WAIT_S) and is answered lean; past
    that wait it takes the route, which waits for the same lease."""
    dev, key = await device_with_a_reading(pool)
    url = f"/api/v1/devices/{dev['id']}/latest"
    for _ in range(3):  # the key, a lease and the body cached
        etag = (await client.get(url, headers=bearer(key))).headers["etag"]
    lean = watch_lean_answers(monkeypatch)
    lease = client.app.state.auth_cache.leases[uuid.UUID(key.id)]
    conditional = bearer(key, **{"If-None-Match": etag})

    async def renewal(held_s: float, holding: threading.Event) -> None:
        """A renewal in flight on the app's loop: the lease locked and empty for
        `held_s`, then granted 10 permits."""
        async with lease.lock:
            lease.left = 0
            holding.set()
            await asyncio.sleep(held_s)
            lease.left, lease.deadline = 10, time.monotonic() + 5

    for held_s, answered_lean in ((0.005, True), (RENEWAL_WAIT_S * 5, False)):
        holding = threading.Event()
        renewed = client.blocking_portal.start_task_soon(renewal, held_s, holding)
        assert await asyncio.to_thread(holding.wait, 5)
        response = await client.get(url, headers=conditional)
        await asyncio.wrap_future(renewed)
        assert response.status_code == 304
        assert lean[-1] is answered_lean
        assert lease.left == 9, "one permit of the renewal spent"
