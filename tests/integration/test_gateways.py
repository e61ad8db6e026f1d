"""GET /gateways and GET /gateways/{id} (api-spec 2.6, 3.1, 4.4; decisions D17, D18)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import pytest
from litestar.testing import AsyncTestClient

from testkit.factories import Switched, loaded
from tests.support.helpers import assert_error, bearer, names_listed

GATEWAY_KEYS = {
    "id", "gatewayEui", "name", "status", "subAccountId", "networkId", "siteId", "online",
    "lastSeenAt", "lastStatsAt", "location",
}  # fmt: skip
MANUAL = {"latitude": 52.1, "longitude": 4.3, "altitude": None}


class Setup(Switched):
    def __init__(self) -> None:
        super().__init__()
        w = self.world
        self.campus = w.site(self.a, name="Campus")
        self.floor = w.site(self.a, parent=self.campus, name="Floor")
        self.net = w.network(self.a)
        self.net_b = w.network(self.b)
        self.g1 = w.gateway(self.a, network=self.net, site=self.floor, name="GW fresh",
                            gatewayEui="0016c001ff10a235", location=MANUAL)  # fmt: skip
        self.g2 = w.gateway(self.a, site=self.campus, name="GW stale")
        self.g3 = w.gateway(self.a, name="GW archived", status="archived")
        self.gb = w.gateway(self.b, network=self.net_b, name="GW other sub")
        self.inv = w.gateway(self.p, name="GW spare", location=MANUAL)
        self.q, self.qa = w.tenancy({})
        self.qg = w.gateway(self.qa, name="GW foreign")
        self.pkey, self.akey, self.bkey = w.keys(self.p, self.a, self.b, scopes=["devices:read"])


@pytest.fixture(scope="module")
async def setup(pool: asyncpg.Pool) -> Setup:
    s = await loaded(pool, Setup())
    now = datetime.now(UTC)
    reported = {"latitude": 10.0, "longitude": 20.0, "altitude": 30.0}
    for gateway, seen in ((s.g1, now - timedelta(minutes=10)), (s.g2, now - timedelta(hours=1)),
                          (s.g3, now), (s.gb, now), (s.inv, now)):  # fmt: skip
        await pool.execute(
            "UPDATE gateways SET last_seen_at = $2, "
            "last_stats_at = $2::timestamptz - interval '1 minute', "
            "reported_location = $3 WHERE id = $1",
            uuid.UUID(gateway["id"]), seen, reported if gateway is not s.g1 else None,
        )  # fmt: skip
    return s


async def names(client: AsyncTestClient, key: str, **params: Any) -> list[str]:
    return await names_listed(client, "/api/v1/gateways", key, **params)


async def test_partner_key_lists_every_status(client: AsyncTestClient, setup: Setup) -> None:
    response = await client.get("/api/v1/gateways", headers=bearer(setup.pkey))
    body = response.json()
    assert [g["name"] for g in body["data"]] == [
        "GW archived", "GW fresh", "GW other sub", "GW spare", "GW stale",
    ]  # fmt: skip
    for item in body["data"]:
        assert set(item) == GATEWAY_KEYS
    fresh = body["data"][1]
    assert fresh["id"] == setup.g1["id"] and fresh["gatewayEui"] == "0016c001ff10a235"
    assert fresh["status"] == "assigned" and fresh["online"] is True
    assert fresh["subAccountId"] == setup.a["id"]
    assert fresh["networkId"] == setup.net["id"] and fresh["siteId"] == setup.floor["id"]
    assert fresh["lastSeenAt"].endswith("Z") and fresh["lastStatsAt"].endswith("Z")
    assert fresh["location"] == MANUAL


async def test_inventory_gateway_keeps_manual_location_only(
    client: AsyncTestClient, setup: Setup
) -> None:
    response = await client.get(f"/api/v1/gateways/{setup.inv['id']}", headers=bearer(setup.pkey))
    data = response.json()["data"]
    assert data["status"] == "inventory" and data["subAccountId"] is None
    assert data["online"] is False
    assert data["lastSeenAt"] is None and data["lastStatsAt"] is None
    assert data["location"] == MANUAL
    response = await client.get(f"/api/v1/gateways/{setup.g3['id']}", headers=bearer(setup.pkey))
    data = response.json()["data"]
    assert data["online"] is False and data["location"] is None and data["lastSeenAt"] is None


async def test_reported_location_when_assigned(client: AsyncTestClient, setup: Setup) -> None:
    response = await client.get(f"/api/v1/gateways/{setup.g2['id']}", headers=bearer(setup.akey))
    assert response.json()["data"]["location"] == {
        "latitude": 10.0, "longitude": 20.0, "altitude": 30.0,
    }  # fmt: skip


async def test_filters(client: AsyncTestClient, setup: Setup) -> None:
    assert await names(client, setup.pkey, online="true") == ["GW fresh", "GW other sub"]
    assert await names(client, setup.akey, online="false") == ["GW stale"]
    assert await names(client, setup.pkey, status="inventory") == ["GW spare"]
    assert await names(client, setup.pkey, status="archived") == ["GW archived"]
    assert await names(client, setup.akey) == ["GW fresh", "GW stale"]
    assert await names(client, setup.akey, status="archived") == []
    assert await names(client, setup.pkey, networkId=setup.net["id"]) == ["GW fresh"]
    assert await names(client, setup.pkey, networkId=setup.net_b["id"]) == []
    assert await names(client, setup.akey, networkId="none") == ["GW stale"]
    assert await names(client, setup.akey, siteId=setup.campus["id"]) == ["GW stale"]
    assert await names(client, setup.akey, siteId=setup.campus["id"],
                       includeDescendants="true") == ["GW fresh", "GW stale"]  # fmt: skip
    assert await names(client, setup.akey, siteId="none") == []
    assert await names(client, setup.pkey, siteId=str(uuid.uuid4())) == []
    for params, name in (({"status": "x"}, "status"), ({"online": "1"}, "online"),
                         ({"networkId": "x"}, "networkId"), ({"limit": 0}, "limit"),
                         ({"offset": -1}, "offset")):  # fmt: skip
        response = await client.get("/api/v1/gateways", params=params, headers=bearer(setup.pkey))
        assert_error(response, 400, "invalid_parameter")
        assert name in response.json()["error"]["message"]


async def test_feature_switches(client: AsyncTestClient, setup: Setup) -> None:
    response = await client.get(f"/api/v1/gateways/{setup.gb['id']}", headers=bearer(setup.bkey))
    assert response.json()["data"]["networkId"] is None
    cases: list[tuple[dict[str, Any], str]] = [
        ({"networkId": "none"}, "networks_disabled"),
        ({"siteId": "none"}, "multi_site_disabled"),
        ({"networkId": "x", "limit": 0}, "networks_disabled"),
        ({"networkId": "x", "siteId": "y", "offset": -1}, "networks_disabled"),
        ({"siteId": "y", "limit": 500}, "multi_site_disabled"),
    ]
    for params, code in cases:
        response = await client.get("/api/v1/gateways", params=params, headers=bearer(setup.bkey))
        assert response.status_code == 403
        assert response.json()["error"]["code"] == code


async def test_detail_by_eui_and_404s(client: AsyncTestClient, setup: Setup) -> None:
    for reference in ("0016C001FF10A235", "00:16:c0:01:ff:10:a2:35", setup.g1["id"]):
        response = await client.get(f"/api/v1/gateways/{reference}", headers=bearer(setup.akey))
        assert response.status_code == 200
        assert response.json()["data"]["id"] == setup.g1["id"]
    for key, reference in ((setup.akey, setup.inv["id"]), (setup.akey, setup.g3["id"]),
                           (setup.akey, setup.gb["id"]), (setup.pkey, setup.qg["id"]),
                           (setup.pkey, "nonsense"), (setup.pkey, str(uuid.uuid4()))):  # fmt: skip
        response = await client.get(f"/api/v1/gateways/{reference}", headers=bearer(key))
        assert response.status_code == 404, reference
        assert response.json()["error"]["code"] == "not_found"
