"""Defects found by hostile clients (issue 11), each pinned by a test on the real database.

The numbers in the test names refer to the issue's list of defects.
"""

from __future__ import annotations

import uuid
from typing import Any

import asyncpg
from litestar.testing import AsyncTestClient

from tests.factories import World, load
from tests.integration import test_ingest_helpers as cs

UNREADABLE_BODIES = {
    "invalid UTF-8": b'{"email": "\xff\xfe@example.com", "password": "x"}',
    "nested 10,000 deep": b'{"a":' * 10_000 + b"1" + b"}" * 10_000,
    "arrays nested 12,000 deep": b"[" * 12_000 + b"]" * 12_000,
}


async def _partner_world(pool: asyncpg.Pool) -> dict[str, Any]:
    world = World()
    partner = world.partner(plan={"apiWrite": True, "retentionDays": 90})
    sub_account = world.sub_account(partner)
    key = world.key(sub_account)
    token = world.integration(partner)
    await load(pool, world)
    return {"key": key, "token": token}


async def test_1_unreadable_json_is_400_invalid_body_on_every_json_route(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    setup = await _partner_world(pool)
    api_headers = {"Authorization": f"Bearer {setup['key']}", "Content-Type": "application/json"}
    routes = [
        ("/api/v1/members/validate", api_headers),
        ("/api/v1/members", api_headers),
        (f"/api/v1/devices/{uuid.uuid4()}/downlinks", api_headers),
        (f"/api/v1/multicast-groups/{uuid.uuid4()}/execute", api_headers),
        ("/ingest/chirpstack?event=up", cs.bearer(setup["token"])),
        ("/ingest/chirpstack?event=status", cs.bearer(setup["token"])),
    ]
    for path, headers in routes:
        for name, body in UNREADABLE_BODIES.items():
            response = await client.post(path, content=body, headers=headers)
            assert response.status_code == 400, (path, name, response.status_code, response.text)
            error = response.json()["error"]
            assert error["code"] == "invalid_body", (path, name, error)
