"""Sub-account reads, paging and their tenancy (api-spec 4.10, decisions D7)."""

from __future__ import annotations

import uuid

import asyncpg
from litestar.testing import AsyncTestClient

from testkit.factories import World, load, partner_key
from tests.support.helpers import bearer


async def test_partner_key_lists_every_sub_account_by_name(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    world = World()
    partner = world.partner()
    names = ["Charlie", "alpha", "Bravo", "Delta"]
    subs = [world.sub_account(partner, name=name) for name in names]
    key = world.key(partner)
    await load(pool, world)

    response = await client.get("/api/v1/sub-accounts", headers=bearer(key))
    body = response.json()
    assert body["pagination"] == {"limit": 50, "offset": 0, "total": 4}
    assert [s["name"] for s in body["data"]] == sorted(names)
    first = body["data"][0]
    assert set(first) == {"id", "name", "status", "createdAt", "updatedAt"}
    assert first["status"] == "active"
    assert first["createdAt"].endswith("Z")
    assert {s["id"] for s in body["data"]} == {s["id"] for s in subs}


async def test_pages_neither_overlap_nor_skip(client: AsyncTestClient, pool: asyncpg.Pool) -> None:
    world = World()
    partner = world.partner()
    for index in range(7):
        world.sub_account(partner, name=f"Same name {index % 2}")
    key = world.key(partner)
    await load(pool, world)
    seen: list[str] = []
    for offset in range(0, 8, 3):
        page = (
            await client.get(f"/api/v1/sub-accounts?limit=3&offset={offset}", headers=bearer(key))
        ).json()
        assert page["pagination"] == {"limit": 3, "offset": offset, "total": 7}
        seen.extend(s["id"] for s in page["data"])
    assert len(seen) == 7 == len(set(seen))
    past_end = (await client.get("/api/v1/sub-accounts?offset=100", headers=bearer(key))).json()
    assert past_end == {"data": [], "pagination": {"limit": 50, "offset": 100, "total": 7}}


async def test_sub_account_key_sees_only_its_own(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    world = World()
    partner = world.partner()
    own = world.sub_account(partner, name="Own")
    sibling = world.sub_account(partner, name="Sibling")
    _, foreign = world.tenancy({})
    key = world.key(own, scopes=["devices:read"])
    await load(pool, world)

    listing = (await client.get("/api/v1/sub-accounts", headers=bearer(key))).json()
    assert [s["id"] for s in listing["data"]] == [own["id"]]
    assert listing["pagination"]["total"] == 1

    ok = await client.get(f"/api/v1/sub-accounts/{own['id']}", headers=bearer(key))
    assert ok.json()["data"]["name"] == "Own"
    missing = await client.get(f"/api/v1/sub-accounts/{uuid.uuid4()}", headers=bearer(key))
    for other in (sibling["id"], foreign["id"], "not-a-uuid"):
        response = await client.get(f"/api/v1/sub-accounts/{other}", headers=bearer(key))
        assert response.status_code == 404
        assert response.json() == missing.json()


async def test_paging_parameters_are_validated(client: AsyncTestClient, pool: asyncpg.Pool) -> None:
    _, key = await partner_key(pool)
    for query, name in [
        ("limit=0", "limit"),
        ("limit=201", "limit"),
        ("limit=abc", "limit"),
        ("offset=-1", "offset"),
        ("offset=1.5", "offset"),
        ("offset=139246493219964567552", "offset"),
    ]:
        response = await client.get(f"/api/v1/sub-accounts?{query}", headers=bearer(key))
        assert response.status_code == 400, query
        error = response.json()["error"]
        assert error["code"] == "invalid_parameter"
        assert name in error["message"]
    ignored = await client.get("/api/v1/sub-accounts?unknown=1", headers=bearer(key))
    assert ignored.status_code == 200
