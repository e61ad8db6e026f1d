"""POST /multicast-groups/{group_id}/execute (api-spec 4.7, 8; decisions D13, D18)."""

from __future__ import annotations

import uuid
from typing import Any

import asyncpg
import pytest
from litestar.testing import AsyncTestClient

from testkit.factories import Writer, loaded
from tests.support.helpers import assert_error, bearer


class Setup(Writer):
    def __init__(self, api_write: bool = True) -> None:
        super().__init__(api_write)
        world = self.world
        self.template = world.downlink_template(self.profile, key="set_interval", fPort=10)
        # A second profile whose `set_interval` has another layout, and no `reboot`.
        self.profile_b = world.profile(self.partner)
        self.template_b = world.downlink_template(
            self.profile_b,
            key="set_interval",
            fPort=11,
            layout=[{"field": "minutes", "type": "uint8"}],
            sampleData={"minutes": 5},
        )
        self.reboot = world.downlink_template(
            self.profile, key="reboot", fPort=99, layout=[], sampleData={}
        )
        self.d1 = world.device(self.sub, self.profile, name="A one")
        self.d2 = world.device(self.sub, self.profile, name="B two", downlinkRatePerHour=1)
        self.d3 = world.device(self.sub, self.profile_b, name="C three")
        self.archived = world.device(self.sub, self.profile, name="D archived", status="archived")
        # A member in the partner's inventory: listed by the group, skipped by execute.
        self.pooled = world.device(self.partner, self.profile, name="E pooled")
        self.group = world.multicast_group(
            self.sub, [self.d1, self.d2, self.d3, self.archived, self.pooled]
        )
        self.other_group = world.multicast_group(self.other_sub, [])
        self.key = world.key(self.sub, scopes=["devices:read", "downlinks:write"])
        self.partner_key = world.key(self.partner, scopes=["downlinks:write"])


@pytest.fixture
async def s(pool: asyncpg.Pool) -> Setup:
    """A fresh Setup, loaded: the world most tests of this file start from."""
    return await loaded(pool, Setup())


async def execute(client: AsyncTestClient, key: str, group: str, body: Any) -> Any:
    return await client.post(
        f"/api/v1/multicast-groups/{group}/execute", json=body, headers=bearer(key)
    )


async def queued_payloads(pool: asyncpg.Pool, group_id: str) -> dict[str, tuple[int, bytes]]:
    rows = await pool.fetch(
        "SELECT d.id, q.f_port, q.payload FROM downlink_queue q"
        " JOIN devices d ON d.num = q.device_num"
        " JOIN multicast_members m ON m.device_id = d.id WHERE m.group_id = $1",
        uuid.UUID(group_id),
    )
    return {str(r["id"]): (r["f_port"], bytes(r["payload"])) for r in rows}


async def test_execute_by_key_uses_each_members_own_template(
    client: AsyncTestClient, pool: asyncpg.Pool, s: Setup
) -> None:
    await pool.execute(  # d2 has used its one downlink of the hour.
        "INSERT INTO downlink_queue (device_num, template_id, f_port, payload, confirmed)"
        " SELECT num, $2, 10, '\\x00'::bytea, false FROM devices WHERE id = $1",
        uuid.UUID(s.d2["id"]),
        uuid.UUID(s.template["id"]),
    )
    response = await execute(
        client, s.key, s.group["id"], {"key": "set_interval", "data": {"minutes": 200}}
    )
    assert response.status_code == 202, response.text
    data = response.json()["data"]
    assert (data["deviceCount"], data["enqueuedCount"], data["rateLimitedCount"]) == (3, 2, 1)
    assert data["failedCount"] == 0
    per = {item["deviceId"]: item for item in data["perDevice"]}
    assert [item["deviceId"] for item in data["perDevice"]] == [
        s.d1["id"],
        s.d2["id"],
        s.d3["id"],
    ]
    assert s.archived["id"] not in per
    assert s.pooled["id"] not in per
    assert per[s.d1["id"]]["status"] == "queued"
    assert per[s.d1["id"]]["devEui"] == s.d1["devEui"]
    assert per[s.d1["id"]]["error"] is None
    assert per[s.d2["id"]]["status"] == "rate_limited"
    assert per[s.d2["id"]]["queueItemId"] is None
    assert per[s.d2["id"]]["error"].startswith("rate_limited")
    payloads = await queued_payloads(pool, s.group["id"])
    assert payloads[s.d1["id"]] == (10, b"\x00\xc8")
    assert payloads[s.d3["id"]] == (11, b"\xc8")
    item = await pool.fetchval(
        "SELECT q.id FROM downlink_queue q JOIN devices d ON d.num = q.device_num WHERE d.id = $1",
        uuid.UUID(s.d3["id"]),
    )
    assert per[s.d3["id"]]["queueItemId"] == str(item)


async def test_members_without_the_template_or_unable_to_encode_fail(
    client: AsyncTestClient, s: Setup
) -> None:
    # `reboot` exists only in the first profile: d3 fails, the others are queued.
    response = await execute(client, s.key, s.group["id"], {"key": "reboot"})
    assert response.status_code == 202
    data = response.json()["data"]
    assert (data["deviceCount"], data["enqueuedCount"], data["failedCount"]) == (3, 2, 1)
    failed = next(item for item in data["perDevice"] if item["status"] == "failed")
    assert failed["deviceId"] == s.d3["id"]
    assert failed["queueItemId"] is None
    assert failed["error"].startswith("template_not_found")
    # 300 fits uint16be (profile A) but not uint8 (profile B): only d3 fails.
    response = await execute(
        client, s.key, s.group["id"], {"key": "set_interval", "data": {"minutes": 300}}
    )
    data = response.json()["data"]
    statuses = {item["deviceId"]: item["status"] for item in data["perDevice"]}
    assert statuses[s.d3["id"]] == "failed"
    assert statuses[s.d1["id"]] == "queued"
    error = next(i["error"] for i in data["perDevice"] if i["deviceId"] == s.d3["id"])
    assert error.startswith("invalid_data: data.minutes")
    assert (
        data["deviceCount"]
        == data["enqueuedCount"] + data["rateLimitedCount"] + data["failedCount"]
    )


async def test_template_id_fits_only_its_profile(
    client: AsyncTestClient, pool: asyncpg.Pool, s: Setup
) -> None:
    response = await execute(client, s.key, s.group["id"], {"templateId": s.template_b["id"]})
    assert response.status_code == 202
    statuses = {i["deviceId"]: i["status"] for i in response.json()["data"]["perDevice"]}
    assert statuses == {s.d1["id"]: "failed", s.d2["id"]: "failed", s.d3["id"]: "queued"}
    assert (await queued_payloads(pool, s.group["id"]))[s.d3["id"]] == (11, b"\x05")


async def test_requests_no_member_can_take_are_invalid_body(
    client: AsyncTestClient, pool: asyncpg.Pool, s: Setup
) -> None:
    cases = [
        ({}, "key"),
        ({"key": "nope"}, "key"),
        ({"templateId": str(uuid.uuid4())}, "templateId"),
        ({"templateId": "x"}, "templateId"),
        ({"key": "set_interval", "data": {"hours": 1}}, "data.hours"),
        ({"key": "set_interval", "data": {"minutes": -1}}, "data.minutes"),
        ({"key": "set_interval", "expiresInSeconds": 60.0}, "expiresInSeconds"),
        ({"key": "set_interval", "expiresInSeconds": 0}, "expiresInSeconds"),
    ]
    for body, field in cases:
        response = await execute(client, s.key, s.group["id"], body)
        assert response.status_code == 400, body
        error = response.json()["error"]
        assert error["code"] == "invalid_body"
        assert error["message"].startswith(field), (body, error)
    assert await queued_payloads(pool, s.group["id"]) == {}


async def test_expiry_applies_to_every_item(
    client: AsyncTestClient, pool: asyncpg.Pool, s: Setup
) -> None:
    response = await execute(
        client, s.key, s.group["id"], {"key": "set_interval", "expiresInSeconds": 120}
    )
    assert response.status_code == 202
    expiries = await pool.fetch(
        "SELECT q.expires_at - q.created_at AS ttl FROM downlink_queue q"
        " JOIN devices d ON d.num = q.device_num"
        " JOIN multicast_members m ON m.device_id = d.id WHERE m.group_id = $1",
        uuid.UUID(s.group["id"]),
    )
    assert len(expiries) == 3
    assert all(abs(r["ttl"].total_seconds() - 120) < 1 for r in expiries)


async def test_group_scope_guards_and_empty_groups(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    s = Setup()
    no_write_scope = s.world.key(s.sub, scopes=["devices:read"])
    empty = s.world.multicast_group(s.sub, [s.archived])
    await loaded(pool, s)
    # Another sub-account's group, an unknown id, garbage: 404.
    for group in (s.other_group["id"], str(uuid.uuid4()), "garbage"):
        response = await execute(client, s.key, group, {"key": "set_interval"})
        assert response.status_code == 404, group
        assert response.json()["error"]["code"] == "not_found"
    # A partner key reaches every sub-account's group.
    response = await execute(client, s.partner_key, s.other_group["id"], {"key": "set_interval"})
    assert response.status_code == 202
    assert response.json()["data"] == {
        "deviceCount": 0,
        "enqueuedCount": 0,
        "rateLimitedCount": 0,
        "failedCount": 0,
        "perDevice": [],
    }
    response = await execute(client, s.key, empty["id"], {"key": "set_interval"})
    assert response.json()["data"]["deviceCount"] == 0
    # Without assigned members, a request no profile could take is still the 400 of a send.
    for body, field in (
        ({"key": "nope"}, "key"),
        ({"templateId": str(uuid.uuid4())}, "templateId"),
        ({"key": "set_interval", "data": {"bogus": 1}}, "bogus"),
    ):
        response = await execute(client, s.key, empty["id"], body)
        assert response.status_code == 400, body
        error = response.json()["error"]
        assert error["code"] == "invalid_body" and field in error["message"], error
    response = await client.post(
        f"/api/v1/multicast-groups/{uuid.uuid4()}/execute",
        content=b"garbage",
        headers={**bearer(no_write_scope), "Content-Type": "text/plain"},
    )
    assert_error(response, 403, "insufficient_scope")


async def test_plan_without_write_access(client: AsyncTestClient, pool: asyncpg.Pool) -> None:
    s = await loaded(pool, Setup(api_write=False))
    response = await execute(client, s.key, s.group["id"], {"key": "set_interval"})
    assert_error(response, 403, "write_not_enabled")
    assert await queued_payloads(pool, s.group["id"]) == {}


async def test_repeated_execution_rate_limits_devices(client: AsyncTestClient, s: Setup) -> None:
    first = (await execute(client, s.key, s.group["id"], {"key": "reboot"})).json()["data"]
    second = (await execute(client, s.key, s.group["id"], {"key": "reboot"})).json()["data"]
    assert (first["enqueuedCount"], first["rateLimitedCount"], first["failedCount"]) == (2, 0, 1)
    # d2 allows one downlink an hour.
    assert (second["enqueuedCount"], second["rateLimitedCount"], second["failedCount"]) == (1, 1, 1)
