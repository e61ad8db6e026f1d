"""Defects found by hostile clients (issue 11), each pinned by a test on the real database.

The numbers in the test names refer to the issue's list of defects.
"""

from __future__ import annotations

import json
import re
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
from litestar.testing import AsyncTestClient

from tests.factories import World, load
from tests.integration import test_ingest_helpers as cs
from tests.integration.test_ingest import th_world

RFC3339_Z = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$")

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


def _with_time(body: str, when: str) -> bytes:
    event = json.loads(body)
    event["time"] = when
    return json.dumps(event).encode()


async def test_2_ingest_times_outside_the_window_are_stored_with_the_receive_time(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    world, t = th_world()
    await load(pool, world)
    device, gateway = t["device"], t["gateway"]
    headers = {"Authorization": f"Bearer {t['key']}"}
    for n, when in enumerate(
        [
            "9999-12-31T23:59:59.999999Z",
            "0001-01-01T00:00:00Z",
            "1999-12-31T23:59:59Z",
            (datetime.now(UTC) + timedelta(minutes=10)).isoformat().replace("+00:00", "Z"),
        ]
    ):
        for event, body in (
            ("up", cs.uplink(device["devEui"], {"temperature": n})),
            ("status", cs.status(device["devEui"], level=50 + n)),
            ("join", cs.join(device["devEui"])),
        ):
            before = datetime.now(UTC) - timedelta(seconds=1)
            response = await client.post(
                f"/ingest/chirpstack?event={event}",
                content=_with_time(body, when),
                headers=cs.bearer(t["token"]),
            )
            after = datetime.now(UTC) + timedelta(seconds=1)
            assert response.status_code == 204, (when, event, response.text)
        latest = await client.get(f"/api/v1/devices/{device['id']}/latest", headers=headers)
        data = latest.json()["data"]
        assert data["values"]["temperature"] == n, (when, data)
        assert before <= _utc(data["time"]) <= after, (when, data["time"])
        detail = (await client.get(f"/api/v1/devices/{device['id']}", headers=headers)).json()
        assert before <= _utc(detail["data"]["lastSeenAt"]) <= after, (when, detail)
        assert detail["data"]["online"] is True
        relay = (await client.get(f"/api/v1/gateways/{gateway['id']}", headers=headers)).json()
        assert before - timedelta(seconds=60) <= _utc(relay["data"]["lastSeenAt"]) <= after
    # Inside the window the event's own time is kept.
    inside = datetime.now(UTC).replace(microsecond=0) + timedelta(minutes=2)
    body = cs.uplink(device["devEui"], {"temperature": 99}, time=inside)
    response = await client.post(
        "/ingest/chirpstack?event=up", content=body, headers=cs.bearer(t["token"])
    )
    assert response.status_code == 204
    latest = await client.get(f"/api/v1/devices/{device['id']}/latest", headers=headers)
    assert _utc(latest.json()["data"]["time"]) == inside


def _utc(text: str) -> datetime:
    assert RFC3339_Z.match(text), text
    return datetime.fromisoformat(text.replace("Z", "+00:00"))
