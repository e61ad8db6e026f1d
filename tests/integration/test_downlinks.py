"""Downlink templates and queueing a downlink (api-spec 2.8, 3.4, 4.6; decisions D13)."""

from __future__ import annotations

import asyncio
import struct
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import pytest
from litestar.testing import AsyncTestClient

from testkit.factories import Writer, loaded
from tests.support.helpers import assert_error, bearer
from tests.support.servers import LiveServer

ALL_TYPES_LAYOUT = [
    {"field": "a", "type": "uint8"},
    {"field": "b", "type": "int8"},
    {"field": "c", "type": "uint16be"},
    {"field": "d", "type": "uint16le"},
    {"field": "e", "type": "int16be"},
    {"field": "f", "type": "int16le"},
    {"field": "g", "type": "uint32be"},
    {"field": "h", "type": "uint32le"},
    {"field": "i", "type": "int32be"},
    {"field": "j", "type": "int32le"},
    {"field": "k", "type": "float32be"},
    {"field": "l", "type": "bool8"},
]
ALL_TYPES_SAMPLE = {
    "a": 255,
    "b": -2,
    "c": 0x1234,
    "d": 0x1234,
    "e": -2,
    "f": -2,
    "g": 0x01020304,
    "h": 0x01020304,
    "i": -5,
    "j": -5,
    "k": 1.5,
    "l": True,
}


class Setup(Writer):
    """One partner with write access, a sub-account, a profile with templates, devices."""

    def __init__(self, api_write: bool = True, rate: int = 30, expiry: int | None = None):
        super().__init__(api_write)
        world = self.world
        self.interval = world.downlink_template(
            self.profile, key="set_interval", name="Set interval", fPort=10
        )
        self.all_types = world.downlink_template(
            self.profile,
            key="all_types",
            name="All types",
            fPort=20,
            confirmed=True,
            layout=ALL_TYPES_LAYOUT,
            sampleData=ALL_TYPES_SAMPLE,
        )
        self.device = world.device(
            self.sub, self.profile, downlinkRatePerHour=rate, downlinkExpirySeconds=expiry
        )
        self.foreign = world.device(self.other_sub, self.profile)
        self.inventory = world.device(self.partner, self.profile)
        self.archived = world.device(self.sub, self.profile, status="archived")
        self.write = world.key(self.sub, scopes=["devices:read", "downlinks:write"])
        self.read_only = world.key(self.sub, scopes=["devices:read"])
        self.partner_key = world.key(self.partner, scopes=["devices:read", "downlinks:write"])


@pytest.fixture
async def s(pool: asyncpg.Pool) -> Setup:
    """A fresh Setup, loaded: the world most tests of this file start from."""
    return await loaded(pool, Setup())


async def send(client: AsyncTestClient, key: str, device: str, body: Any, **headers: str) -> Any:
    return await client.post(
        f"/api/v1/devices/{device}/downlinks",
        json=body,
        headers={**bearer(key), **headers},
    )


async def stored(pool: asyncpg.Pool, item_id: str) -> asyncpg.Record:
    return await pool.fetchrow(
        "SELECT q.*, d.id AS device_id FROM downlink_queue q"
        " JOIN devices d ON d.num = q.device_num WHERE q.id = $1",
        uuid.UUID(item_id),
    )


async def queued(pool: asyncpg.Pool, device_id: str) -> int:
    """How many downlinks the queue holds for the device."""
    count: int = await pool.fetchval(
        "SELECT count(*) FROM downlink_queue q JOIN devices d ON d.num = q.device_num"
        " WHERE d.id = $1",
        uuid.UUID(device_id),
    )
    return count


async def backdate(pool: asyncpg.Pool, device_id: str, age: timedelta, which: str) -> None:
    """Makes the device's queued items that match `which` (SQL on q) `age` old."""
    await pool.execute(
        "UPDATE downlink_queue q SET created_at = now() - $2::interval"
        f"  FROM devices d WHERE d.num = q.device_num AND d.id = $1 AND {which}",
        uuid.UUID(device_id),
        age,
    )


async def test_template_list_is_enveloped_and_paged(client: AsyncTestClient, s: Setup) -> None:
    response = await client.get(
        f"/api/v1/devices/{s.device['devEui']}/downlinks", headers=bearer(s.read_only)
    )
    assert response.status_code == 200
    body = response.json()
    assert body["pagination"] == {"limit": 50, "offset": 0, "total": 2}
    assert body["data"] == [
        {
            "templateId": s.all_types["id"],
            "key": "all_types",
            "name": "All types",
            "fPort": 20,
            "confirmed": True,
            "sampleData": ALL_TYPES_SAMPLE,
        },
        {
            "templateId": s.interval["id"],
            "key": "set_interval",
            "name": "Set interval",
            "fPort": 10,
            "confirmed": False,
            "sampleData": {"minutes": 15},
        },
    ]
    response = await client.get(
        f"/api/v1/devices/{s.device['id']}/downlinks?limit=1&offset=1",
        headers=bearer(s.read_only),
    )
    assert response.json()["pagination"] == {"limit": 1, "offset": 1, "total": 2}
    assert [t["key"] for t in response.json()["data"]] == ["set_interval"]
    response = await client.get(
        f"/api/v1/devices/{s.device['id']}/downlinks?limit=0", headers=bearer(s.read_only)
    )
    assert response.json()["error"]["code"] == "invalid_parameter"


async def test_template_list_needs_devices_read(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    s = Setup()
    telemetry_only = s.world.key(s.sub, scopes=["telemetry:read"])
    await loaded(pool, s)
    response = await client.get(
        f"/api/v1/devices/{s.device['id']}/downlinks", headers=bearer(telemetry_only)
    )
    assert_error(response, 403, "insufficient_scope")


async def test_inventory_archived_foreign_and_unknown_devices_are_404_on_both_routes(
    client: AsyncTestClient, s: Setup
) -> None:
    cases = [
        (s.partner_key, s.inventory["id"]),
        (s.partner_key, s.archived["id"]),
        (s.write, s.archived["id"]),
        (s.write, s.foreign["id"]),
        (s.write, str(uuid.uuid4())),
        (s.write, "not-a-device"),
    ]
    for key, device in cases:
        listed = await client.get(f"/api/v1/devices/{device}/downlinks", headers=bearer(key))
        assert listed.status_code == 404, device
        assert listed.json() == {"error": {"code": "not_found", "message": "device not found"}}
        sent = await send(client, key, device, {"key": "set_interval"})
        assert sent.status_code == 404, device
        assert sent.json()["error"]["code"] == "not_found"
    # A partner key reaches an assigned device of any of its sub-accounts.
    sent = await send(client, s.partner_key, s.foreign["id"], {"key": "set_interval"})
    assert sent.status_code == 202


async def test_send_by_key_queues_the_encoded_payload(
    client: AsyncTestClient, pool: asyncpg.Pool, s: Setup
) -> None:
    before = datetime.now(UTC)
    response = await send(client, s.write, s.device["devEui"].upper(), {"key": "set_interval"})
    assert response.status_code == 202
    data = response.json()["data"]
    assert data["status"] == "queued"
    assert data["fPort"] == 10
    assert data["byteCount"] == 2
    assert data["expiresAt"] is None
    row = await stored(pool, data["queueItemId"])
    assert str(row["device_id"]) == s.device["id"]
    assert str(row["template_id"]) == s.interval["id"]
    assert bytes(row["payload"]) == b"\x00\x0f"
    assert row["f_port"] == 10
    assert row["confirmed"] is False
    assert row["expires_at"] is None
    assert row["created_at"] >= before - timedelta(seconds=5)


async def test_data_overrides_sample_and_every_layout_type_encodes(
    client: AsyncTestClient, pool: asyncpg.Pool, s: Setup
) -> None:
    response = await send(
        client,
        s.write,
        s.device["id"],
        {"templateId": s.all_types["id"], "data": {"a": 7, "k": -2.25, "l": False}},
    )
    assert response.status_code == 202, response.text
    data = response.json()["data"]
    expected = (
        bytes([7, 0xFE])
        + struct.pack(">H", 0x1234)
        + struct.pack("<H", 0x1234)
        + struct.pack(">h", -2)
        + struct.pack("<h", -2)
        + struct.pack(">I", 0x01020304)
        + struct.pack("<I", 0x01020304)
        + struct.pack(">i", -5)
        + struct.pack("<i", -5)
        + struct.pack(">f", -2.25)
        + b"\x00"
    )
    assert data["byteCount"] == len(expected) == 31
    assert data["fPort"] == 20
    row = await stored(pool, data["queueItemId"])
    assert bytes(row["payload"]) == expected
    assert row["confirmed"] is True


async def test_key_and_template_id_together_must_name_the_same_template(
    client: AsyncTestClient, s: Setup
) -> None:
    same = await send(
        client, s.write, s.device["id"], {"key": "set_interval", "templateId": s.interval["id"]}
    )
    assert same.status_code == 202
    different = await send(
        client, s.write, s.device["id"], {"key": "set_interval", "templateId": s.all_types["id"]}
    )
    assert_error(different, 400, "invalid_body")
    assert "templateId" in different.json()["error"]["message"]


async def test_template_reference_errors_are_invalid_body(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    s = Setup()
    other_profile = s.world.profile(s.partner)
    elsewhere = s.world.downlink_template(other_profile, key="elsewhere")
    await loaded(pool, s)
    cases = [
        ({}, "key"),
        ({"data": {"minutes": 1}}, "key"),
        ({"key": "no_such_key"}, "key"),
        ({"templateId": str(uuid.uuid4())}, "templateId"),
        ({"templateId": "garbage"}, "templateId"),
        ({"templateId": elsewhere["id"]}, "templateId"),
        ({"key": "elsewhere"}, "key"),
    ]
    for body, field in cases:
        response = await send(client, s.write, s.device["id"], body)
        assert response.status_code == 400, body
        error = response.json()["error"]
        assert error["code"] == "invalid_body", body
        assert error["message"].startswith(field), (body, error)


async def test_data_field_errors_name_the_field(
    client: AsyncTestClient, pool: asyncpg.Pool, s: Setup
) -> None:
    cases = [
        ("set_interval", {"hours": 1}, "data.hours"),
        ("set_interval", {"minutes": 65536}, "data.minutes"),
        ("set_interval", {"minutes": -1}, "data.minutes"),
        ("set_interval", {"minutes": 15.0}, "data.minutes"),
        ("set_interval", {"minutes": "15"}, "data.minutes"),
        ("set_interval", {"minutes": True}, "data.minutes"),
        ("set_interval", {"minutes": None}, "data.minutes"),
        ("all_types", {"a": 256}, "data.a"),
        ("all_types", {"b": -129}, "data.b"),
        ("all_types", {"b": 128}, "data.b"),
        ("all_types", {"e": 32768}, "data.e"),
        ("all_types", {"g": 2**32}, "data.g"),
        ("all_types", {"i": -(2**31) - 1}, "data.i"),
        ("all_types", {"k": 1e39}, "data.k"),
        ("all_types", {"k": "1.5"}, "data.k"),
        ("all_types", {"k": True}, "data.k"),
        ("all_types", {"l": 1}, "data.l"),
    ]
    for key, data, field in cases:
        response = await send(client, s.write, s.device["id"], {"key": key, "data": data})
        assert response.status_code == 400, (key, data)
        error = response.json()["error"]
        assert error["code"] == "invalid_body", (key, data)
        assert error["message"].startswith(field + ":"), (key, data, error)
    # Bounds are inclusive.
    for data in ({"a": 0, "b": -128, "g": 2**32 - 1, "i": -(2**31), "k": 3}, {"b": 127}):
        response = await send(client, s.write, s.device["id"], {"key": "all_types", "data": data})
        assert response.status_code == 202, data
    assert await queued(pool, s.device["id"]) == 2


async def test_missing_value_without_sample_is_invalid_body(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    s = Setup()
    s.world.downlink_template(
        s.profile, key="no_sample", layout=[{"field": "level", "type": "uint8"}], sampleData={}
    )
    await loaded(pool, s)
    response = await send(client, s.write, s.device["id"], {"key": "no_sample"})
    assert response.status_code == 400
    assert response.json()["error"]["message"].startswith("data.level:")
    response = await send(
        client, s.write, s.device["id"], {"key": "no_sample", "data": {"level": 3}}
    )
    assert response.status_code == 202
    assert bytes((await stored(pool, response.json()["data"]["queueItemId"]))["payload"]) == b"\x03"


async def test_expiry_from_request_then_device_then_none(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    s = Setup(expiry=600)
    plain = s.world.device(s.sub, s.profile)
    await loaded(pool, s)

    before = datetime.now(UTC)
    response = await send(
        client, s.write, s.device["id"], {"key": "set_interval", "expiresInSeconds": 60}
    )
    assert response.status_code == 202
    expires = datetime.fromisoformat(response.json()["data"]["expiresAt"].replace("Z", "+00:00"))
    assert before + timedelta(seconds=55) <= expires <= datetime.now(UTC) + timedelta(seconds=65)
    row = await stored(pool, response.json()["data"]["queueItemId"])
    assert row["expires_at"] == expires

    response = await send(client, s.write, s.device["id"], {"key": "set_interval"})
    expires = datetime.fromisoformat(response.json()["data"]["expiresAt"].replace("Z", "+00:00"))
    assert before + timedelta(seconds=595) <= expires <= datetime.now(UTC) + timedelta(seconds=605)

    response = await send(
        client, s.write, plain["id"], {"key": "set_interval", "expiresInSeconds": 2592000}
    )
    assert response.status_code == 202
    assert response.json()["data"]["expiresAt"] is not None
    response = await send(client, s.write, plain["id"], {"key": "set_interval"})
    assert response.json()["data"]["expiresAt"] is None


async def test_expires_in_seconds_is_a_strict_whole_number_in_range(
    client: AsyncTestClient, s: Setup
) -> None:
    for bad in (0, -5, 2592001, 60.0, 60.5, "60", True, [60], {"s": 60}):
        response = await send(
            client, s.write, s.device["id"], {"key": "set_interval", "expiresInSeconds": bad}
        )
        assert response.status_code == 400, bad
        error = response.json()["error"]
        assert error["code"] == "invalid_body", bad
        assert error["message"].startswith("expiresInSeconds:"), (bad, error)
    for bad_body in ({"key": 5}, {"key": "set_interval", "data": [1]}, {"templateId": 12}):
        response = await send(client, s.write, s.device["id"], bad_body)
        assert response.status_code == 400, bad_body
        assert response.json()["error"]["code"] == "invalid_body"


async def test_scope_and_write_access_come_before_the_body_and_the_device(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    s = Setup(api_write=False)
    both = s.world.key(s.sub, scopes=["devices:read", "downlinks:write"])
    await loaded(pool, s)
    # No scope: 403 insufficient_scope even with a broken body and an unknown device.
    response = await client.post(
        f"/api/v1/devices/{uuid.uuid4()}/downlinks",
        content=b"{not json",
        headers={**bearer(s.read_only), "Content-Type": "text/plain"},
    )
    assert_error(response, 403, "insufficient_scope")
    # Scope but no plan write access: write_not_enabled, again before body and device.
    response = await client.post(
        f"/api/v1/devices/{uuid.uuid4()}/downlinks",
        content=b"{not json",
        headers={**bearer(both), "Content-Type": "application/json"},
    )
    assert_error(response, 403, "write_not_enabled")
    # Body validation comes before device resolution (400 before 404).
    writer = await loaded(pool, Setup())
    response = await send(
        client, writer.write, str(uuid.uuid4()), {"key": "x", "expiresInSeconds": "60"}
    )
    assert response.status_code == 400


async def test_rate_limit_per_device_with_retry_after(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    s = Setup(rate=3)
    other = s.world.device(s.sub, s.profile, downlinkRatePerHour=3)
    await loaded(pool, s)
    for _ in range(3):
        response = await send(client, s.write, s.device["id"], {"key": "set_interval"})
        assert response.status_code == 202
    response = await send(client, s.write, s.device["id"], {"key": "set_interval"})
    assert_error(response, 429, "rate_limited")
    retry = int(response.headers["retry-after"])
    assert 3500 <= retry <= 3600
    # Another device has its own window.
    response = await send(client, s.write, other["id"], {"key": "set_interval"})
    assert response.status_code == 202
    # Items older than an hour leave the window; the oldest in-window item sets Retry-After.
    oldest = "q.id = (SELECT q2.id FROM downlink_queue q2 WHERE q2.device_num = d.num"
    oldest += " ORDER BY q2.created_at LIMIT 1)"
    await backdate(pool, s.device["id"], timedelta(minutes=59, seconds=50), oldest)
    response = await send(client, s.write, s.device["id"], {"key": "set_interval"})
    assert response.status_code == 429
    assert 1 <= int(response.headers["retry-after"]) <= 11
    aged = "q.created_at < now() - interval '59 minutes'"
    await backdate(pool, s.device["id"], timedelta(minutes=61), aged)
    response = await send(client, s.write, s.device["id"], {"key": "set_interval"})
    assert response.status_code == 202


async def test_zero_rate_never_queues(client: AsyncTestClient, pool: asyncpg.Pool) -> None:
    s = await loaded(pool, Setup(rate=0))
    response = await send(client, s.write, s.device["id"], {"key": "set_interval"})
    assert response.status_code == 429
    assert int(response.headers["retry-after"]) >= 1


async def test_concurrent_sends_never_exceed_the_rate(
    live_server: LiveServer, pool: asyncpg.Pool
) -> None:
    s = await loaded(pool, Setup(rate=5))
    async with live_server.client() as http:
        responses = await asyncio.gather(
            *(
                http.post(
                    f"/api/v1/devices/{s.device['id']}/downlinks",
                    json={"key": "set_interval"},
                    headers=bearer(s.write),
                )
                for _ in range(12)
            )
        )
    codes = sorted(r.status_code for r in responses)
    assert codes.count(202) == 5, codes
    assert codes.count(429) == 7, codes
    assert await queued(pool, s.device["id"]) == 5
