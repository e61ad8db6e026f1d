"""GET /networks and GET /networks/{id}: health rollups, members, feature rules
(api-spec 2.10, 4.8; decisions D8, D17, D18)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import pytest
from litestar.testing import AsyncTestClient

from testkit.factories import World, load, loaded
from tests.support.devices import set_state
from tests.support.helpers import assert_error, bearer, get_ok

NETWORK_KEYS = {
    "id", "name", "siteId", "subAccountId", "deviceCount", "gatewayCount",
    "deviceOnlineCount", "deviceOfflineCount", "deviceAlertingCount",
    "gatewayOnlineCount", "gatewayOfflineCount",
}  # fmt: skip


class Setup:
    def __init__(self) -> None:
        w = World()
        self.world = w
        self.p, self.a, self.b, self.c = w.tenancy(
            {},
            {"features": {"networks": False}},
            {"features": {"multiSite": False}},
            features={"networks": True, "multiSite": True},
        )
        self.prof = w.profile(self.p)
        w.alert_rule(self.prof, "temperature", ">", 30, level="info")
        w.alert_rule(self.prof, "temperature", ">", 40, level="alert")
        self.campus = w.site(self.a, name="Campus")
        self.building = w.site(self.a, parent=self.campus, name="Building")
        self.north = w.network(self.a, site=self.building, name="North")
        self.empty = w.network(self.a, name="Empty")
        self.south = w.network(self.b, name="South")
        self.site_c = w.site(self.c)
        self.west = w.network(self.c, site=self.site_c, name="West")
        self.d_online = w.device(self.a, self.prof, network=self.north, name="D online")
        self.d_alert = w.device(self.a, self.prof, network=self.north, name="D alerting")
        self.d_slow = w.device(self.a, self.prof, network=self.north, name="D slow",
                               offlineThresholdMinutes=240)  # fmt: skip
        self.d_never = w.device(self.a, self.prof, network=self.north, name="D never")
        self.d_archived = w.device(self.a, self.prof, network=self.north, name="D archived",
                                   status="archived")  # fmt: skip
        self.g_on = w.gateway(self.a, network=self.north, name="G on")
        self.g_off = w.gateway(self.a, network=self.north, name="G off")
        w.device(self.b, self.prof, network=self.south)
        self.q, self.qa = w.tenancy({}, features={"networks": True})
        self.q_net = w.network(self.qa)
        self.pkey, self.akey, self.bkey, self.ckey = w.keys(
            self.p, self.a, self.b, self.c, scopes=["devices:read"]
        )


@pytest.fixture(scope="module")
async def setup(pool: asyncpg.Pool) -> Setup:
    s = await loaded(pool, Setup())
    now = datetime.now(UTC)
    await set_state(pool, s.d_online, last_seen_at=now, last_uplink_at=now - timedelta(minutes=1),
                    signal_quality=90)  # fmt: skip
    await set_state(pool, s.d_alert, last_seen_at=now - timedelta(hours=1),
                    last_uplink_at=now - timedelta(hours=1), signal_quality=40)  # fmt: skip
    await set_state(pool, s.d_slow, last_seen_at=now - timedelta(hours=2),
                    last_uplink_at=now - timedelta(hours=2), signal_quality=20)  # fmt: skip
    await set_state(pool, s.d_archived, last_seen_at=now, last_uplink_at=now)
    # Two active alerts on one device count it once.
    await pool.execute(
        "INSERT INTO device_alerts (device_num, rule_id, level, since) "
        "SELECT d.num, r.id, r.level, now() FROM devices d JOIN alert_rules r "
        "ON r.profile_id = d.profile_id WHERE d.id = $1",
        uuid.UUID(s.d_alert["id"]),
    )
    for gateway, seen in (
        (s.g_on, now - timedelta(minutes=29)),
        (s.g_off, now - timedelta(minutes=31)),
    ):
        await pool.execute("UPDATE gateways SET last_seen_at = $2 WHERE id = $1",
                           uuid.UUID(gateway["id"]), seen)  # fmt: skip
    return s


async def listing(client: AsyncTestClient, key: str, **params: Any) -> dict[str, Any]:
    response = await client.get("/api/v1/networks", params=params, headers=bearer(key))
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def test_rollups(client: AsyncTestClient, setup: Setup) -> None:
    body = await listing(client, setup.akey)
    assert body["pagination"] == {"limit": 50, "offset": 0, "total": 2}
    empty, north = body["data"]
    assert set(north) == NETWORK_KEYS
    assert north == {
        "id": setup.north["id"], "name": "North", "siteId": setup.building["id"],
        "subAccountId": setup.a["id"],
        "deviceCount": 4, "deviceOnlineCount": 2, "deviceOfflineCount": 2,
        "deviceAlertingCount": 1,
        "gatewayCount": 2, "gatewayOnlineCount": 1, "gatewayOfflineCount": 1,
    }  # fmt: skip
    assert empty["deviceCount"] == 0 and empty["gatewayCount"] == 0
    assert empty["deviceOfflineCount"] == 0 and empty["siteId"] is None


async def test_detail_members(client: AsyncTestClient, setup: Setup) -> None:
    data = (await get_ok(client, setup.pkey, f"/api/v1/networks/{setup.north['id']}"))["data"]
    assert set(data) == NETWORK_KEYS | {"devices", "gateways"}
    assert data["deviceCount"] == 4 and data["deviceAlertingCount"] == 1
    devices = {d["name"]: d for d in data["devices"]}
    assert list(devices) == ["D alerting", "D never", "D online", "D slow"]
    assert set(devices["D online"]) == {
        "deviceId", "name", "devEui", "online", "signalQuality", "lastSeenAt",
    }  # fmt: skip
    assert devices["D online"]["deviceId"] == setup.d_online["id"]
    assert devices["D online"]["devEui"] == setup.d_online["devEui"]
    assert devices["D online"]["online"] is True and devices["D online"]["signalQuality"] == 90
    assert devices["D slow"]["online"] is True
    assert devices["D alerting"]["online"] is False
    assert devices["D never"] == {
        "deviceId": setup.d_never["id"], "name": "D never", "devEui": setup.d_never["devEui"],
        "online": False, "signalQuality": None, "lastSeenAt": None,
    }  # fmt: skip
    gateways = data["gateways"]
    assert [g["name"] for g in gateways] == ["G off", "G on"]
    assert set(gateways[0]) == {"gatewayId", "name", "gatewayEui", "online", "lastSeenAt"}
    assert gateways[1]["gatewayId"] == setup.g_on["id"] and gateways[1]["online"] is True
    assert gateways[0]["online"] is False


async def test_partner_key_sees_only_subaccounts_with_the_feature(
    client: AsyncTestClient, setup: Setup
) -> None:
    body = await listing(client, setup.pkey)
    assert [n["name"] for n in body["data"]] == ["Empty", "North", "West"]
    west = body["data"][2]
    assert west["siteId"] is None  # multi-site is off for C
    response = await client.get(f"/api/v1/networks/{setup.south['id']}", headers=bearer(setup.pkey))
    assert response.status_code == 404
    for key in (setup.bkey,):
        for path in ("/api/v1/networks", f"/api/v1/networks/{setup.south['id']}"):
            response = await client.get(path, headers=bearer(key))
            assert_error(response, 403, "networks_disabled")


async def test_site_filters(client: AsyncTestClient, setup: Setup) -> None:
    campus = setup.campus["id"]
    assert (await listing(client, setup.akey, siteId=campus))["data"] == []
    names = [n["name"] for n in (await listing(client, setup.akey, siteId=campus,
                                               includeDescendants="true"))["data"]]  # fmt: skip
    assert names == ["North"]
    assert [n["name"] for n in (await listing(client, setup.pkey, siteId="none"))["data"]] == [
        "Empty"
    ]
    assert (await listing(client, setup.pkey, siteId=setup.site_c["id"]))["data"] == []
    response = await client.get("/api/v1/networks", params={"siteId": "none"},
                                headers=bearer(setup.ckey))  # fmt: skip
    assert_error(response, 403, "multi_site_disabled")
    response = await client.get("/api/v1/networks", params={"siteId": "bad"},
                                headers=bearer(setup.akey))  # fmt: skip
    assert_error(response, 400, "invalid_parameter")


async def test_feature_switches_come_before_every_400(
    client: AsyncTestClient, setup: Setup
) -> None:
    """D3: 403 networks_disabled / multi_site_disabled before any 400, paging included."""
    cases: list[tuple[str, dict[str, Any], str]] = [
        (setup.bkey, {"limit": 0}, "networks_disabled"),
        (setup.bkey, {"offset": -1, "siteId": "bad"}, "networks_disabled"),
        (setup.bkey, {"limit": "many"}, "networks_disabled"),
        (setup.ckey, {"siteId": "bad", "limit": 0}, "multi_site_disabled"),
        (setup.ckey, {"siteId": "none", "includeDescendants": "1"}, "multi_site_disabled"),
    ]
    for key, params, code in cases:
        response = await client.get("/api/v1/networks", params=params, headers=bearer(key))
        assert response.status_code == 403, params
        assert response.json()["error"]["code"] == code
    response = await client.get("/api/v1/networks", params={"limit": 0}, headers=bearer(setup.ckey))
    assert response.status_code == 400
    assert "limit" in response.json()["error"]["message"]


async def test_partner_with_feature_off_everywhere(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    w = World()
    p = w.partner()
    w.sub_account(p)
    key = w.key(p, scopes=["devices:read"])
    await load(pool, w)
    response = await client.get("/api/v1/networks", headers=bearer(key))
    assert_error(response, 403, "networks_disabled")


async def test_404s_and_paging(client: AsyncTestClient, setup: Setup) -> None:
    for key, reference in ((setup.akey, setup.west["id"]), (setup.pkey, setup.q_net["id"]),
                           (setup.pkey, str(uuid.uuid4())), (setup.pkey, "x")):  # fmt: skip
        response = await client.get(f"/api/v1/networks/{reference}", headers=bearer(key))
        assert_error(response, 404, "not_found")
    body = await listing(client, setup.pkey, limit=1, offset=1)
    assert [n["name"] for n in body["data"]] == ["North"]
    assert body["pagination"] == {"limit": 1, "offset": 1, "total": 3}
    response = await client.get("/api/v1/networks", params={"limit": "abc"},
                                headers=bearer(setup.pkey))  # fmt: skip
    assert response.status_code == 400
