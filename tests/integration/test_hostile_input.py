"""Input the database cannot store is a 400 in the envelope, never a 500 (found by fuzzing
the OpenAPI document with schemathesis)."""

from __future__ import annotations

import asyncpg
from litestar.testing import AsyncTestClient

from tests.factories import World, load


async def test_nul_characters_are_refused_in_bodies_and_queries(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    world = World()
    partner = world.partner()
    key = world.key(partner)
    await load(pool, world)
    headers = {"Authorization": f"Bearer {key}"}

    response = await client.post(
        "/api/v1/members/validate",
        content=b'{"email": "a\\u0000b@example.com", "password": "whatever-long"}',
        headers={**headers, "Content-Type": "application/json"},
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_body"

    response = await client.get("/api/v1/devices?search=a%00b", headers=headers)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_parameter"


async def test_offsets_beyond_any_list_are_invalid(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    world = World()
    partner = world.partner()
    key = world.key(partner)
    await load(pool, world)
    headers = {"Authorization": f"Bearer {key}"}
    for path in ("/api/v1/devices", "/api/v1/multicast-groups", "/api/v1/device-profiles"):
        response = await client.get(f"{path}?offset=504715958699948507136", headers=headers)
        assert response.status_code == 400, path
        assert response.json()["error"]["code"] == "invalid_parameter"
