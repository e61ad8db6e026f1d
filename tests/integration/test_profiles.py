"""GET /device-profiles and GET /device-profiles/{id} (api-spec 2.7, 4.5; D8, D10, D17)."""

from __future__ import annotations

import uuid

from litestar.testing import AsyncTestClient

from testkit.factories import World
from tests.support.helpers import assert_error, bearer, get_ok
from tests.support.worlds import world_fixture


class Setup:
    def __init__(self) -> None:
        w = World()
        self.world = w
        self.p, self.a, self.b = w.tenancy({}, {})
        self.used = w.profile(
            self.p, name="Used by A", retainLastValue=True,
            fields=[
                w.field("temperature", unit="°C", label="Temperature"),
                w.field("battery", unit="%", label="Battery", role="battery_pct"),
                w.field("label", dataType="string", kind="static", label="Label"),
                w.formula("feels", "temperature + 1", label="Feels"),
                w.field("water", unit="m³", measurement="counter"),
                w.field("door", dataType="boolean"),
                w.field("installed", dataType="date"),
            ],
        )  # fmt: skip
        self.only_b = w.profile(self.p, name="Used by B")
        self.unused = w.profile(self.p, name="Unused", fields=[])
        self.archived_only = w.profile(self.p, name="Archived only")
        w.device(self.a, self.used)
        w.device(self.a, self.archived_only, status="archived")
        w.device(self.b, self.only_b)
        self.q = w.partner()
        self.q_prof = w.profile(self.q, name="Foreign")
        self.pkey, self.akey = w.keys(self.p, self.a, scopes=["profiles:read"])
        self.devices_only = w.key(self.p, scopes=["devices:read"])


setup = world_fixture(Setup)


async def test_partner_key_lists_every_profile(client: AsyncTestClient, setup: Setup) -> None:
    body = await get_ok(client, setup.pkey, "/api/v1/device-profiles")
    assert body["pagination"] == {"limit": 50, "offset": 0, "total": 4}
    assert [p["name"] for p in body["data"]] == [
        "Archived only", "Unused", "Used by A", "Used by B",
    ]  # fmt: skip
    used = body["data"][2]
    assert used == {
        "id": setup.used["id"], "name": "Used by A", "retainLastValue": True, "fieldCount": 7,
    }  # fmt: skip
    assert body["data"][1]["fieldCount"] == 0


async def test_sub_account_key_sees_profiles_of_its_assigned_devices(
    client: AsyncTestClient, setup: Setup
) -> None:
    response = await client.get("/api/v1/device-profiles", headers=bearer(setup.akey))
    assert [p["name"] for p in response.json()["data"]] == ["Used by A"]
    for profile in (setup.only_b, setup.unused, setup.archived_only, setup.q_prof):
        response = await client.get(
            f"/api/v1/device-profiles/{profile['id']}", headers=bearer(setup.akey)
        )
        assert_error(response, 404, "not_found")


async def test_detail_has_every_field(client: AsyncTestClient, setup: Setup) -> None:
    response = await client.get(
        f"/api/v1/device-profiles/{setup.used['id']}", headers=bearer(setup.akey)
    )
    assert response.status_code == 200
    data = response.json()["data"]
    assert data["id"] == setup.used["id"] and data["fieldCount"] == 7
    assert data["retainLastValue"] is True
    fields = {f["identifier"]: f for f in data["fields"]}
    assert list(fields) == [
        "temperature", "battery", "label", "feels", "water", "door", "installed"
    ]  # fmt: skip
    assert fields["temperature"] == {
        "id": setup.used["fields"][0]["id"], "identifier": "temperature",
        "label": "Temperature", "unit": "°C", "dataType": "number", "kind": "decoded",
        "role": None, "measurement": "gauge",
    }  # fmt: skip
    # analytics.md section 3: set in the world file, else the data type's default.
    measurements = {name: f["measurement"] for name, f in fields.items()}
    assert measurements == {
        "temperature": "gauge", "battery": "gauge", "label": "state", "feels": "gauge",
        "water": "counter", "door": "state", "installed": None,
    }  # fmt: skip
    assert fields["battery"]["role"] == "battery_pct"
    assert fields["label"]["kind"] == "static" and fields["label"]["dataType"] == "string"
    assert fields["feels"]["kind"] == "formula"


async def test_404_scope_and_paging(client: AsyncTestClient, setup: Setup) -> None:
    for reference in (setup.q_prof["id"], str(uuid.uuid4()), "garbage"):
        response = await client.get(
            f"/api/v1/device-profiles/{reference}", headers=bearer(setup.pkey)
        )
        assert response.status_code == 404
    response = await client.get("/api/v1/device-profiles", headers=bearer(setup.devices_only))
    assert_error(response, 403, "insufficient_scope")
    response = await client.get(
        "/api/v1/device-profiles", params={"limit": 1, "offset": 3}, headers=bearer(setup.pkey)
    )
    body = response.json()
    assert [p["name"] for p in body["data"]] == ["Used by B"]
    assert body["pagination"] == {"limit": 1, "offset": 3, "total": 4}
    response = await client.get(
        "/api/v1/device-profiles", params={"offset": 10}, headers=bearer(setup.pkey)
    )
    assert response.json() == {"data": [], "pagination": {"limit": 50, "offset": 10, "total": 4}}
    response = await client.get(
        "/api/v1/device-profiles", params={"limit": 201}, headers=bearer(setup.pkey)
    )
    assert_error(response, 400, "invalid_parameter")
