"""Input the database cannot store is a 400 in the envelope, never a 500 (found by fuzzing
the OpenAPI document with schemathesis)."""

from __future__ import annotations

import uuid

import asyncpg
from litestar.testing import AsyncTestClient

from tests.factories import World, load, partner_key
from tests.helpers import assert_error


async def test_nul_characters_are_refused_in_bodies_and_queries(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    _, key = await partner_key(pool)
    headers = {"Authorization": f"Bearer {key}"}

    response = await client.post(
        "/api/v1/members/validate",
        content=b'{"email": "a\\u0000b@example.com", "password": "whatever-long"}',
        headers={**headers, "Content-Type": "application/json"},
    )
    assert_error(response, 400, "invalid_body")

    response = await client.get("/api/v1/devices?search=a%00b", headers=headers)
    assert_error(response, 400, "invalid_parameter")


async def test_offsets_beyond_any_list_are_invalid(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    _, key = await partner_key(pool)
    headers = {"Authorization": f"Bearer {key}"}
    for path in ("/api/v1/devices", "/api/v1/multicast-groups", "/api/v1/device-profiles"):
        response = await client.get(f"{path}?offset=504715958699948507136", headers=headers)
        assert response.status_code == 400, path
        assert response.json()["error"]["code"] == "invalid_parameter"


async def test_a_nul_character_in_a_path_id_is_not_found(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    world = World()
    partner = world.partner(features={"networks": True, "multiSite": True})
    key = world.key(
        partner, scopes=["devices:read", "telemetry:read", "profiles:read", "downlinks:write"]
    )
    await load(pool, world)
    headers = {"Authorization": f"Bearer {key}"}
    # D6: a path id that names nothing in the key's scope is 404, never 400, NUL or not.
    for path in (
        "/devices/a%00b",
        "/devices/a%00b/latest",
        "/devices/a%00b/history?field=x&from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z",
        "/devices/a%00b/downlinks",
        "/gateways/a%00b",
        "/device-profiles/a%00b",
        "/networks/a%00b",
        "/sites/a%00b",
        "/multicast-groups/a%00b",
        "/sub-accounts/a%00b",
    ):
        response = await client.get(f"/api/v1{path}", headers=headers)
        assert response.status_code == 404, (path, response.text)
        assert response.json()["error"]["code"] == "not_found"
        unknown = await client.get(
            f"/api/v1{path.replace('a%00b', str(uuid.uuid4()))}", headers=headers
        )
        assert (unknown.status_code, unknown.content) == (404, response.content), path
    response = await client.get("/api/v1/devices?search=a%00b", headers=headers)
    assert response.json()["error"]["message"] == "search: must not contain NUL characters"
