"""GET /devices and GET /devices/{id}: every filter, state rule and feature switch
(api-spec 2.2, 3.1, 4.3; decisions D6, D7, D9, D10, D17, D18)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import pytest
from litestar.testing import AsyncTestClient

from testkit.factories import Switched, World, load, loaded, partner_key
from tests.support.devices import set_state
from tests.support.helpers import assert_error, bearer, committed, get_ok, names_listed

DEVICE_KEYS = {
    "id", "devEui", "name", "serialNumber", "status", "subAccountId", "deviceProfileId",
    "networkId", "siteId", "online", "signalQuality", "battery", "lastSeenAt",
    "lastUplinkAt", "location",
}  # fmt: skip


def iso(value: datetime) -> str:
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


class Fleet(Switched):
    """Partner P (networks and multi-site on by default) with sub-accounts A and B (B has
    both features off), a partner inventory, and a second partner Q."""

    def __init__(self) -> None:
        super().__init__()
        w = self.world
        self.prof = w.profile(
            self.p,
            fields=[
                w.field("temperature", unit="°C", label="Temperature"),
                w.field("battery", unit="%", role="battery_pct"),
                w.field("installed", dataType="date", kind="static"),
            ],
            retainLastValue=True,
        )
        self.prof2 = w.profile(self.p)
        self.campus = w.site(self.a, name="Campus")
        self.building = w.site(self.a, parent=self.campus, name="Building")
        self.floor = w.site(self.a, parent=self.building, name="Floor")
        self.net_a = w.network(self.a, name="North")
        self.net_b = w.network(self.b, name="South")
        self.site_b = w.site(self.b, name="B campus")
        self.a1 = w.device(
            self.a, self.prof, network=self.net_a, site=self.floor, name="Alpha 1",
            serialNumber="SER-ALPHA-1", devEui="70b3d57ed0000a01",
        )  # fmt: skip
        self.a2 = w.device(self.a, self.prof, site=self.campus, name="Alpha 2")
        self.a3 = w.device(
            self.a, self.prof2, name="Beta", offlineThresholdMinutes=180,
            location={"latitude": 52.1, "longitude": 4.3},
        )  # fmt: skip
        self.a4 = w.device(self.a, self.prof, name="Archived one", status="archived")
        self.b1 = w.device(self.b, self.prof, network=self.net_b, site=self.site_b, name="Bravo")
        self.inv = w.device(self.p, self.prof, name="Spare 100%")
        self.q, self.qa = w.tenancy({})
        self.q_prof = w.profile(self.q)
        self.q1 = w.device(self.qa, self.q_prof, name="Alpha foreign")
        self.pkey, self.akey, self.bkey, self.qkey = w.keys(
            self.p, self.a, self.b, self.q, scopes=["devices:read"]
        )


@pytest.fixture(scope="module")
async def fleet(pool: asyncpg.Pool) -> Fleet:
    f = await loaded(pool, Fleet())
    now = datetime.now(UTC)
    await set_state(
        pool, f.a1, last_seen_at=now - timedelta(minutes=2),
        last_uplink_at=now - timedelta(minutes=5), signal_quality=87,
        battery={"state": "pct", "value": 71, "at": iso(now - timedelta(hours=3)),
                 "source": "status"},
        reported_location={"latitude": 1.5, "longitude": 2.5, "altitude": 7.0},
        reported_location_at=now - timedelta(minutes=5),
    )  # fmt: skip
    await set_state(
        pool, f.a2, last_seen_at=now - timedelta(hours=2),
        last_uplink_at=now - timedelta(hours=2), signal_quality=12,
    )  # fmt: skip
    await set_state(
        pool, f.a3, last_seen_at=now - timedelta(hours=2),
        last_uplink_at=now - timedelta(hours=2), signal_quality=50,
        reported_location={"latitude": 9.0, "longitude": 9.0},
        reported_location_at=now - timedelta(days=400),
    )  # fmt: skip
    await set_state(
        pool, f.a4, last_seen_at=now, last_uplink_at=now, signal_quality=99,
        battery={"state": "external", "value": None, "at": iso(now), "source": "status"},
    )  # fmt: skip
    await set_state(pool, f.b1, last_seen_at=now, last_uplink_at=now, signal_quality=60)
    return f


async def test_partner_key_lists_every_status_by_name(
    client: AsyncTestClient, fleet: Fleet
) -> None:
    body = await get_ok(client, fleet.pkey, "/api/v1/devices")
    assert [d["name"] for d in body["data"]] == [
        "Alpha 1", "Alpha 2", "Archived one", "Beta", "Bravo", "Spare 100%",
    ]  # fmt: skip
    assert body["pagination"] == {"limit": 50, "offset": 0, "total": 6}
    for item in body["data"]:
        assert set(item) == DEVICE_KEYS
    by_name = {d["name"]: d for d in body["data"]}
    assert by_name["Spare 100%"]["status"] == "inventory"
    assert by_name["Spare 100%"]["subAccountId"] is None
    assert by_name["Archived one"]["status"] == "archived"


async def test_device_object_of_a_live_device(client: AsyncTestClient, fleet: Fleet) -> None:
    response = await client.get("/api/v1/devices", params={"search": "Alpha 1"},
                                headers=bearer(fleet.pkey))  # fmt: skip
    [item] = response.json()["data"]
    assert item["id"] == fleet.a1["id"]
    assert item["devEui"] == "70b3d57ed0000a01"
    assert item["serialNumber"] == "SER-ALPHA-1"
    assert item["status"] == "assigned"
    assert item["subAccountId"] == fleet.a["id"]
    assert item["deviceProfileId"] == fleet.prof["id"]
    assert item["networkId"] == fleet.net_a["id"]
    assert item["siteId"] == fleet.floor["id"]
    assert item["online"] is True
    assert item["signalQuality"] == 87
    assert item["battery"]["state"] == "pct"
    assert item["battery"]["value"] == 71
    assert item["battery"]["source"] == "status"
    assert item["battery"]["at"].endswith("Z")
    assert item["lastSeenAt"].endswith("Z") and item["lastUplinkAt"].endswith("Z")
    # No manual location: the reported one, altitude kept.
    assert item["location"] == {"latitude": 1.5, "longitude": 2.5, "altitude": 7.0}


async def test_location_is_the_newest_of_manual_and_reported(
    client: AsyncTestClient, fleet: Fleet
) -> None:
    response = await client.get(f"/api/v1/devices/{fleet.a3['id']}", headers=bearer(fleet.akey))
    # The manual location was set at load time; the reported one is 400 days old.
    assert response.json()["data"]["location"] == {
        "latitude": 52.1, "longitude": 4.3, "altitude": None,
    }  # fmt: skip


async def test_inventory_and_archived_devices_show_no_live_fields(
    client: AsyncTestClient, fleet: Fleet
) -> None:
    for device in (fleet.inv, fleet.a4):
        data = (await get_ok(client, fleet.pkey, f"/api/v1/devices/{device['id']}"))["data"]
        assert data["online"] is False
        for name in ("signalQuality", "battery", "lastSeenAt", "lastUplinkAt", "location"):
            assert data[name] is None, name
        assert data["deviceProfile"]["id"] == fleet.prof["id"]


async def test_online_follows_each_devices_threshold(client: AsyncTestClient, fleet: Fleet) -> None:
    # Beta's threshold is 180 minutes: an uplink 2 hours ago is online; alpha 2 (30) is not.
    # Archived one uplinked just now but is not assigned, so it is offline.
    assert await names(client, fleet.pkey, online="true") == ["Alpha 1", "Beta", "Bravo"]
    assert await names(client, fleet.pkey, online="false") == [
        "Alpha 2", "Archived one", "Spare 100%",
    ]  # fmt: skip
    assert await names(client, fleet.akey, online="false") == ["Alpha 2"]


async def test_sub_account_key_sees_only_its_assigned_devices(
    client: AsyncTestClient, fleet: Fleet
) -> None:
    assert await names(client, fleet.akey) == ["Alpha 1", "Alpha 2", "Beta"]
    assert await names(client, fleet.akey, status="all") == ["Alpha 1", "Alpha 2", "Beta"]
    assert await names(client, fleet.akey, status="archived") == []
    assert await names(client, fleet.akey, status="inventory") == []
    assert await names(client, fleet.akey, subAccountId=fleet.b["id"]) == []


async def test_status_filter(client: AsyncTestClient, fleet: Fleet) -> None:
    assert await names(client, fleet.pkey, status="inventory") == ["Spare 100%"]
    assert await names(client, fleet.pkey, status="archived") == ["Archived one"]
    assert await names(client, fleet.pkey, status="assigned") == [
        "Alpha 1", "Alpha 2", "Beta", "Bravo",
    ]  # fmt: skip
    assert len(await names(client, fleet.pkey, status="all")) == 6


async def test_search_matches_name_serial_and_dev_eui(
    client: AsyncTestClient, fleet: Fleet
) -> None:
    assert await names(client, fleet.pkey, search="ALPHA") == ["Alpha 1", "Alpha 2"]
    assert await names(client, fleet.pkey, search="ser-alpha") == ["Alpha 1"]
    assert await names(client, fleet.pkey, search="70:B3:D5:7E:D0:00:0A:01") == ["Alpha 1"]
    assert await names(client, fleet.pkey, search="7ed0-000a") == ["Alpha 1"]
    # Wildcards are literal: `%` matches only names that contain it.
    assert await names(client, fleet.pkey, search="100%") == ["Spare 100%"]
    assert await names(client, fleet.pkey, search="_") == []
    assert await names(client, fleet.pkey, search="no such thing") == []
    # A search's page and total come from one read of its matches (the list query's
    # materialised variant), with the presence filters too.
    assert await names(client, fleet.pkey, search="alpha", online="true") == ["Alpha 1"]
    assert await names(client, fleet.akey, search="alpha", online="false") == ["Alpha 2"]
    for offset, page in [(0, ["Alpha 1"]), (1, ["Alpha 2"]), (2, [])]:
        body = await get_ok(
            client, fleet.pkey, f"/api/v1/devices?search=alpha&limit=1&offset={offset}"
        )
        assert [d["name"] for d in body["data"]] == page
        assert body["pagination"] == {"limit": 1, "offset": offset, "total": 2}


async def test_id_filters(client: AsyncTestClient, fleet: Fleet) -> None:
    assert await names(client, fleet.pkey, subAccountId=fleet.b["id"]) == ["Bravo"]
    assert await names(client, fleet.pkey, deviceProfileId=fleet.prof2["id"]) == ["Beta"]
    assert await names(client, fleet.pkey, deviceProfileId=fleet.q_prof["id"]) == []
    assert await names(client, fleet.pkey, subAccountId=fleet.qa["id"]) == []
    assert await names(client, fleet.pkey, subAccountId=str(uuid.uuid4())) == []
    for name in ("subAccountId", "deviceProfileId", "networkId", "siteId"):
        response = await client.get(
            "/api/v1/devices", params={name: "not-a-uuid"}, headers=bearer(fleet.pkey)
        )
        assert response.status_code == 400
        error = response.json()["error"]
        assert error["code"] == "invalid_parameter"
        assert name in error["message"]


async def test_network_filter(client: AsyncTestClient, fleet: Fleet) -> None:
    assert await names(client, fleet.pkey, networkId=fleet.net_a["id"]) == ["Alpha 1"]
    assert await names(client, fleet.akey, networkId=fleet.net_a["id"]) == ["Alpha 1"]
    # B has the Networks feature off: its network is not considered, nor its devices.
    assert await names(client, fleet.pkey, networkId=fleet.net_b["id"]) == []
    assert await names(client, fleet.pkey, networkId="none") == [
        "Alpha 2", "Archived one", "Beta", "Spare 100%",
    ]  # fmt: skip
    assert await names(client, fleet.akey, networkId="none") == ["Alpha 2", "Beta"]
    assert await names(client, fleet.akey, networkId=str(uuid.uuid4())) == []


async def test_site_filter_and_descendants(client: AsyncTestClient, fleet: Fleet) -> None:
    campus = fleet.campus["id"]
    assert await names(client, fleet.akey, siteId=campus) == ["Alpha 2"]
    assert await names(client, fleet.akey, siteId=campus, includeDescendants="true") == [
        "Alpha 1", "Alpha 2",
    ]  # fmt: skip
    assert await names(client, fleet.akey, siteId=fleet.building["id"],
                       includeDescendants="true") == ["Alpha 1"]  # fmt: skip
    assert await names(client, fleet.akey, siteId=campus, includeDescendants="false") == ["Alpha 2"]
    assert await names(client, fleet.akey, siteId="none") == ["Beta"]
    # B has multi-site off: its site and its devices are not considered.
    assert await names(client, fleet.pkey, siteId=fleet.site_b["id"]) == []
    assert await names(client, fleet.pkey, siteId="none") == [
        "Archived one", "Beta", "Spare 100%",
    ]  # fmt: skip


async def test_feature_off_hides_assignments_and_forbids_filters(
    client: AsyncTestClient, fleet: Fleet, pool: asyncpg.Pool
) -> None:
    response = await client.get(f"/api/v1/devices/{fleet.b1['id']}", headers=bearer(fleet.pkey))
    assert response.json()["data"]["networkId"] is None
    assert response.json()["data"]["siteId"] is None
    for params, code in (
        ({"networkId": "none"}, "networks_disabled"),
        ({"networkId": fleet.net_b["id"]}, "networks_disabled"),
        ({"networkId": "garbage"}, "networks_disabled"),
        ({"siteId": "none"}, "multi_site_disabled"),
        ({"siteId": fleet.site_b["id"]}, "multi_site_disabled"),
    ):
        response = await client.get("/api/v1/devices", params=params, headers=bearer(fleet.bkey))
        assert response.status_code == 403
        assert response.json()["error"]["code"] == code
    # Switching the features on again restores the assignments: nothing was deleted.
    b_id = uuid.UUID(fleet.b["id"])
    # Waits for the app's key cache to hear of the change, as a client would a moment later.
    await committed(
        client, pool,
        "UPDATE sub_accounts SET networks_enabled = NULL, multi_site_enabled = NULL "
        "WHERE id = $1", b_id,
    )  # fmt: skip
    try:
        response = await client.get(f"/api/v1/devices/{fleet.b1['id']}", headers=bearer(fleet.bkey))
        assert response.json()["data"]["networkId"] == fleet.net_b["id"]
        assert response.json()["data"]["siteId"] == fleet.site_b["id"]
        assert await names(client, fleet.bkey, networkId=fleet.net_b["id"]) == ["Bravo"]
    finally:
        await committed(
            client, pool,
            "UPDATE sub_accounts SET networks_enabled = false, multi_site_enabled = false "
            "WHERE id = $1", b_id,
        )  # fmt: skip


async def test_partner_key_gets_403_only_when_off_everywhere(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    w = World()
    p = w.partner(features={"networks": False, "multiSite": False})
    on = w.sub_account(p, features={"networks": True})
    w.sub_account(p)
    prof = w.profile(p)
    net = w.network(on)
    w.device(on, prof, network=net, name="Only one")
    key = w.key(p, scopes=["devices:read"])
    await load(pool, w)
    assert await names(client, key, networkId=net["id"]) == ["Only one"]
    response = await client.get("/api/v1/devices", params={"siteId": "none"}, headers=bearer(key))
    assert_error(response, 403, "multi_site_disabled")


async def test_feature_switches_come_before_every_400(
    client: AsyncTestClient, fleet: Fleet, pool: asyncpg.Pool
) -> None:
    """D3: feature switches (403) before parameter validation (400), paging included."""
    cases: list[tuple[dict[str, Any], str]] = [
        ({"networkId": fleet.net_b["id"], "limit": 0}, "networks_disabled"),
        ({"networkId": "none", "offset": -1}, "networks_disabled"),
        ({"networkId": "bad", "siteId": "x", "limit": "abc"}, "networks_disabled"),
        ({"siteId": "none", "limit": 201}, "multi_site_disabled"),
        ({"siteId": "none", "online": "yes", "status": "live"}, "multi_site_disabled"),
    ]
    for params, code in cases:
        response = await client.get("/api/v1/devices", params=params, headers=bearer(fleet.bkey))
        assert response.status_code == 403, params
        assert response.json()["error"]["code"] == code
    w = World()
    _, sa = w.tenancy({}, features={"networks": True, "multiSite": False})
    key = w.key(sa, scopes=["devices:read"])
    await load(pool, w)
    refused: list[dict[str, Any]] = [
        {"networkId": "bad", "siteId": "x"},
        {"siteId": "x", "limit": 0},
    ]
    for params in refused:
        response = await client.get("/api/v1/devices", params=params, headers=bearer(key))
        assert response.status_code == 403, params
        assert response.json()["error"]["code"] == "multi_site_disabled"
    for params, name in (({"networkId": "bad"}, "networkId"), ({"limit": 0}, "limit")):
        response = await client.get("/api/v1/devices", params=params, headers=bearer(key))
        assert response.status_code == 400, params
        assert name in response.json()["error"]["message"]


async def test_paging_is_stable_and_bounded(client: AsyncTestClient, fleet: Fleet) -> None:
    seen = []
    for offset in range(0, 7, 2):
        response = await client.get(
            "/api/v1/devices", params={"limit": 2, "offset": offset}, headers=bearer(fleet.pkey)
        )
        body = response.json()
        assert body["pagination"] == {"limit": 2, "offset": offset, "total": 6}
        seen += [d["id"] for d in body["data"]]
    assert len(seen) == 6 and len(set(seen)) == 6
    for params, name in (
        ({"limit": 0}, "limit"),
        ({"limit": 201}, "limit"),
        ({"limit": "abc"}, "limit"),
        ({"offset": -1}, "offset"),
        ({"offset": "x"}, "offset"),
        ({"status": "live"}, "status"),
        ({"online": "yes"}, "online"),
        ({"includeDescendants": "1"}, "includeDescendants"),
    ):
        response = await client.get("/api/v1/devices", params=params, headers=bearer(fleet.pkey))
        assert response.status_code == 400, params
        error = response.json()["error"]
        assert error["code"] == "invalid_parameter"
        assert name in error["message"]


async def test_detail_by_id_and_dev_eui_with_profile(client: AsyncTestClient, fleet: Fleet) -> None:
    for reference in (fleet.a1["id"], "70B3D57ED0000A01", "70:b3:d5:7e:d0:00:0a:01",
                      "70-B3-D5-7E-D0-00-0A-01"):  # fmt: skip
        response = await client.get(f"/api/v1/devices/{reference}", headers=bearer(fleet.akey))
        assert response.status_code == 200, reference
        data = response.json()["data"]
        assert set(data) == DEVICE_KEYS | {"deviceProfile"}
        assert data["id"] == fleet.a1["id"]
    profile = data["deviceProfile"]
    assert profile["id"] == fleet.prof["id"]
    assert profile["name"] == fleet.prof["name"]
    assert profile["retainLastValue"] is True
    assert profile["fieldCount"] == 3
    assert [f["identifier"] for f in profile["fields"]] == ["temperature", "battery", "installed"]
    temperature, battery, installed = profile["fields"]
    assert set(temperature) == {
        "id", "identifier", "label", "unit", "dataType", "kind", "role", "measurement"
    }  # fmt: skip
    assert (temperature["measurement"], installed["measurement"]) == ("gauge", None)
    assert temperature["label"] == "Temperature" and temperature["unit"] == "°C"
    assert temperature["dataType"] == "number" and temperature["kind"] == "decoded"
    assert temperature["role"] is None
    assert battery["role"] == "battery_pct"
    assert installed["dataType"] == "date" and installed["kind"] == "static"


async def test_detail_404s(client: AsyncTestClient, fleet: Fleet) -> None:
    cases = [
        (fleet.akey, fleet.inv["id"]),  # inventory, sub-account key
        (fleet.akey, fleet.a4["id"]),  # archived, sub-account key
        (fleet.akey, fleet.b1["id"]),  # sibling sub-account
        (fleet.pkey, fleet.q1["id"]),  # other partner
        (fleet.pkey, str(uuid.uuid4())),
        (fleet.pkey, "ffffffffffffffff"),
        (fleet.pkey, "not-an-id"),
    ]
    for key, reference in cases:
        response = await client.get(f"/api/v1/devices/{reference}", headers=bearer(key))
        assert response.status_code == 404, reference
        assert response.json()["error"]["code"] == "not_found"


async def test_scope_is_devices_read(
    client: AsyncTestClient, fleet: Fleet, pool: asyncpg.Pool
) -> None:
    _, key = await partner_key(pool, scopes=["telemetry:read", "profiles:read"])
    for path in ("/api/v1/devices", f"/api/v1/devices/{uuid.uuid4()}"):
        response = await client.get(path, headers=bearer(key))
        assert_error(response, 403, "insufficient_scope")


async def test_live_fields_from_the_ingest_pipeline(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    w = World()
    p, sa = w.tenancy({})
    prof = w.profile(p, fields=[w.field("temperature"), w.field("battery", role="battery_pct")])
    dev = w.device(sa, prof, name="Piped")
    w.uplink(dev, at="now-PT10M", values={"temperature": 21.5, "battery": 64}, rssi=-50, snr=10)
    key = w.key(sa, scopes=["devices:read"])
    await load(pool, w)
    response = await client.get(f"/api/v1/devices/{dev['id']}", headers=bearer(key))
    data = response.json()["data"]
    assert data["online"] is True
    assert data["signalQuality"] == 100
    assert data["lastUplinkAt"] is not None and data["lastSeenAt"] is not None
    assert data["battery"]["state"] == "pct" and data["battery"]["value"] == 64
    assert data["battery"]["source"] == "field"


async def test_totals_follow_moves_and_deletes(client: AsyncTestClient, pool: asyncpg.Pool) -> None:
    w = World()
    p, sa = w.tenancy({})
    prof = w.profile(p)
    devices = [w.device(sa, prof, name=f"Counted {i}") for i in range(3)]
    w.device(p, prof, name="Counted spare")
    pkey = w.key(p, scopes=["devices:read"])
    skey = w.key(sa, scopes=["devices:read"])
    await load(pool, w)

    async def totals() -> tuple[int, int, int, int]:
        result = []
        for key, params in ((pkey, {}), (skey, {}), (pkey, {"status": "inventory"}),
                            (pkey, {"subAccountId": sa["id"]})):  # fmt: skip
            response = await client.get("/api/v1/devices", params=params, headers=bearer(key))
            body = response.json()
            assert body["pagination"]["total"] == len(body["data"])
            result.append(body["pagination"]["total"])
        return result[0], result[1], result[2], result[3]

    assert await totals() == (4, 3, 1, 3)
    # The kept counts file inventory under the nil UUID; as a filter it names no
    # sub-account, so nothing matches and the total says so (D7).
    nil = "00000000-0000-0000-0000-000000000000"
    for params in ({"subAccountId": nil}, {"subAccountId": nil, "status": "inventory"},
                   {"subAccountId": nil, "status": "all"}):  # fmt: skip
        response = await client.get("/api/v1/devices", params=params, headers=bearer(pkey))
        assert response.json() == {
            "data": [],
            "pagination": {"limit": 50, "offset": 0, "total": 0},
        }, params
    first = uuid.UUID(devices[0]["id"])
    await pool.execute(
        "UPDATE devices SET status = 'inventory', sub_account_id = NULL WHERE id = $1", first
    )
    assert await totals() == (4, 2, 2, 2)
    await pool.execute("UPDATE devices SET name = name || ' renamed' WHERE partner_id = $1",
                       uuid.UUID(p["id"]))  # fmt: skip
    assert await totals() == (4, 2, 2, 2)
    await pool.execute("DELETE FROM devices WHERE id = $1", first)
    assert await totals() == (3, 2, 1, 2)


async def names(client: AsyncTestClient, key: str, **params: Any) -> list[str]:
    return await names_listed(client, "/api/v1/devices", key, **params)
