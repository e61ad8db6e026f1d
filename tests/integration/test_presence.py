"""device_presence (schema/034, triggers in schema/definitions/050-directory.sql) follows
every write that decides whether a device is online: uplinks, threshold changes, moves
between networks and sub-accounts, status changes and deletes; and the lists and rollups
that read it flip exactly at the threshold (api-spec 4.3, 4.8; D17, D18)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
from litestar.testing import AsyncTestClient

from app.core.sql import QUERIES
from testkit.factories import World
from tests.support.devices import set_state
from tests.support.helpers import bearer
from tests.support.worlds import world_fixture

# Every assigned device has exactly the row its devices and device_state rows imply, and
# no other device has one.
DRIFT = """
WITH expected AS (
    SELECT d.num, d.id, d.partner_id, d.sub_account_id, d.network_id, d.site_id, d.name,
           d.offline_threshold_minutes AS offline_minutes,
           ds.last_uplink_at + make_interval(mins => d.offline_threshold_minutes)
               AS online_until
      FROM devices d LEFT JOIN device_state ds ON ds.device_num = d.num
     WHERE d.status = 'assigned'
)
SELECT count(*) FROM (
    (SELECT * FROM expected
     EXCEPT ALL
     SELECT device_num, id, partner_id, sub_account_id, network_id, site_id, name,
            offline_minutes, online_until FROM device_presence)
    UNION ALL
    (SELECT device_num, id, partner_id, sub_account_id, network_id, site_id, name,
            offline_minutes, online_until FROM device_presence
     EXCEPT ALL
     SELECT * FROM expected)
) drift
"""


class Setup:
    def __init__(self) -> None:
        w = World()
        self.world = w
        self.p, self.a, self.b = w.tenancy({}, {}, features={"networks": True, "multiSite": True})
        self.prof = w.profile(self.p)
        self.net1 = w.network(self.a, name="One")
        self.net2 = w.network(self.a, name="Two")
        self.net_b = w.network(self.b, name="B")
        self.d1 = w.device(self.a, self.prof, network=self.net1, name="P1")
        self.d2 = w.device(self.a, self.prof, network=self.net1, name="P2")
        self.d3 = w.device(self.a, self.prof, network=self.net2, name="P3")
        self.spare = w.device(self.p, self.prof, name="P spare")
        self.pkey, self.akey = w.keys(self.p, self.a, scopes=["devices:read"])


setup = world_fixture(Setup)


async def drift(pool: asyncpg.Pool) -> int:
    value: int = await pool.fetchval(DRIFT)
    return value


def did(device: dict[str, Any]) -> uuid.UUID:
    return uuid.UUID(device["id"])


async def online_ids(client: AsyncTestClient, key: str, **params: Any) -> set[str]:
    response = await client.get(
        "/api/v1/devices", params={"online": "true", **params}, headers=bearer(key)
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["pagination"]["total"] == len(body["data"])
    return {d["id"] for d in body["data"]}


async def network_online(client: AsyncTestClient, key: str, network: dict[str, Any]) -> int:
    response = await client.get(f"/api/v1/networks/{network['id']}", headers=bearer(key))
    assert response.status_code == 200, response.text
    count: int = response.json()["data"]["deviceOnlineCount"]
    return count


async def test_follows_uplinks_thresholds_moves_statuses_and_deletes(
    client: AsyncTestClient, pool: asyncpg.Pool, setup: Setup
) -> None:
    s = setup
    assert await drift(pool) == 0
    now = datetime.now(UTC)
    # Uplinks: inserted and updated state rows.
    await set_state(pool, s.d1, last_uplink_at=now - timedelta(minutes=5))
    await set_state(pool, s.d2, last_uplink_at=now - timedelta(minutes=50))
    await set_state(pool, s.spare, last_uplink_at=now)
    assert await drift(pool) == 0
    assert await online_ids(client, s.akey) == {s.d1["id"]}
    assert await network_online(client, s.akey, s.net1) == 1
    await set_state(pool, s.d2, last_uplink_at=now - timedelta(minutes=2))
    assert await drift(pool) == 0
    assert await online_ids(client, s.akey) == {s.d1["id"], s.d2["id"]}
    assert await network_online(client, s.akey, s.net1) == 2
    # A late uplink older than the stored one is what device_state says, nothing else.
    await set_state(pool, s.d2, last_uplink_at=now - timedelta(minutes=50))
    assert await drift(pool) == 0
    # Threshold change: 50 minutes ago is online with a 60-minute threshold.
    await pool.execute("UPDATE devices SET offline_threshold_minutes = 60 WHERE id = $1", did(s.d2))
    assert await drift(pool) == 0
    assert await online_ids(client, s.akey) == {s.d1["id"], s.d2["id"]}
    # Move between networks.
    await pool.execute("UPDATE devices SET network_id = $2 WHERE id = $1", did(s.d1),
                       uuid.UUID(s.net2["id"]))  # fmt: skip
    assert await drift(pool) == 0
    assert await network_online(client, s.akey, s.net1) == 1
    assert await network_online(client, s.akey, s.net2) == 1
    assert await online_ids(client, s.akey, networkId=s.net2["id"]) == {s.d1["id"]}
    # Move to another sub-account (and its network).
    await pool.execute(
        "UPDATE devices SET sub_account_id = $2, network_id = $3 WHERE id = $1",
        did(s.d1), uuid.UUID(s.b["id"]), uuid.UUID(s.net_b["id"]),
    )  # fmt: skip
    assert await drift(pool) == 0
    assert await online_ids(client, s.akey) == {s.d2["id"]}
    assert await online_ids(client, s.pkey) == {s.d1["id"], s.d2["id"]}
    assert await online_ids(client, s.pkey, subAccountId=s.b["id"]) == {s.d1["id"]}
    # Status: archived and inventory devices are never online; back to assigned they are.
    await pool.execute("UPDATE devices SET status = 'archived' WHERE id = $1", did(s.d2))
    assert await drift(pool) == 0
    assert await online_ids(client, s.pkey) == {s.d1["id"]}
    assert await online_ids(client, s.pkey, status="archived") == set()
    await pool.execute("UPDATE devices SET status = 'assigned' WHERE id = $1", did(s.d2))
    assert await drift(pool) == 0
    assert await online_ids(client, s.pkey) == {s.d1["id"], s.d2["id"]}
    await pool.execute(
        "UPDATE devices SET status = 'assigned', sub_account_id = $2 WHERE id = $1",
        did(s.spare), uuid.UUID(s.a["id"]),
    )  # fmt: skip
    assert await drift(pool) == 0
    assert await online_ids(client, s.akey) == {s.d2["id"], s.spare["id"]}
    # A renamed device keeps its place in list order.
    await pool.execute("UPDATE devices SET name = 'P0' WHERE id = $1", did(s.spare))
    assert await drift(pool) == 0
    # Deleted state: offline; deleted device: no row.
    await pool.execute(
        "DELETE FROM device_state WHERE device_num = (SELECT num FROM devices WHERE id = $1)",
        did(s.spare),
    )
    assert await drift(pool) == 0
    assert await online_ids(client, s.akey) == {s.d2["id"]}
    await pool.execute("DELETE FROM device_state WHERE device_num = "
                       "(SELECT num FROM devices WHERE id = $1)", did(s.d3))  # fmt: skip
    await pool.execute("DELETE FROM devices WHERE id = $1", did(s.d3))
    assert await drift(pool) == 0
    assert await pool.fetchval("SELECT count(*) FROM device_presence WHERE id = $1", did(s.d3)) == 0


async def test_online_flips_exactly_at_the_threshold(pool: asyncpg.Pool, setup: Setup) -> None:
    """In one transaction now() is fixed: an uplink exactly threshold ago is online, one
    microsecond earlier is not, in the list (both queries), its total and the rollup."""
    s = setup
    device = did(s.d2)
    async with pool.acquire() as connection, connection.transaction():
        row = await connection.fetchrow(
            "SELECT d.num, d.partner_id, d.sub_account_id, d.network_id, "
            "d.offline_threshold_minutes AS minutes FROM devices d WHERE d.id = $1",
            device,
        )
        for offset_us, online in ((0, True), (1, False), (-1, True)):
            await connection.execute(
                "UPDATE device_state SET last_uplink_at = now() - make_interval(mins => $2)"
                " - $3 * interval '1 microsecond' WHERE device_num = $1",
                row["num"], row["minutes"], offset_us,
            )  # fmt: skip
            original = await connection.fetchval(
                "SELECT ds.last_uplink_at >= now() - make_interval(mins => $2) "
                "FROM device_state ds WHERE ds.device_num = $1",
                row["num"], row["minutes"],
            )  # fmt: skip
            assert original is online
            for query in ("devices.list_devices", "devices.list_devices_present"):
                for wanted in (True, False):
                    rows = await connection.fetch(
                        QUERIES[query], row["partner_id"], row["sub_account_id"], None, None,
                        row["network_id"], False, ["assigned"], wanted, None, None, None,
                        False, False, 50, 0,
                    )  # fmt: skip
                    ids = {r["id"] for r in rows if r["id"] is not None}
                    assert (device in ids) is (online is wanted), (query, wanted, offset_us)
                    assert rows[0]["total"] == len(ids)
                    for r in rows:
                        if r["id"] is not None:
                            assert r["online"] is wanted
            rollup = await connection.fetchrow(
                QUERIES["networks.get_network"], row["partner_id"], None, row["network_id"]
            )
            members = await connection.fetch(QUERIES["networks.network_devices"],
                                              row["network_id"])  # fmt: skip
            assert rollup["device_online_count"] == sum(m["online"] for m in members)
            assert any(m["id"] == device and m["online"] is online for m in members)
