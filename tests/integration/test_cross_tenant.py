"""Every directory detail route answers a sibling sub-account's or another partner's id
exactly as it answers an id that does not exist: 404 `not_found` (api-spec 1, 5; D6)."""

from __future__ import annotations

import uuid
from typing import Any

import asyncpg
import pytest
from litestar.testing import AsyncTestClient

from testkit.factories import World, load
from tests.support.helpers import bearer

READ_SCOPES = ["devices:read", "profiles:read", "telemetry:read"]


def tenant(w: World, p: dict[str, Any], name: str) -> dict[str, Any]:
    sa = w.sub_account(p, name=name)
    prof = w.profile(p, name=f"{name} profile")
    site = w.site(sa)
    net = w.network(sa, site=site)
    dev = w.device(sa, prof, network=net, site=site)
    gw = w.gateway(sa, network=net, site=site)
    group = w.multicast_group(sa, [dev])
    return {"sa": sa, "profile": prof, "site": site, "network": net, "device": dev,
            "gateway": gw, "group": group}  # fmt: skip


def paths(t: dict[str, Any]) -> list[str]:
    return [
        f"/api/v1/devices/{t['device']['id']}",
        f"/api/v1/devices/{t['device']['devEui']}",
        f"/api/v1/gateways/{t['gateway']['id']}",
        f"/api/v1/gateways/{t['gateway']['gatewayEui']}",
        f"/api/v1/device-profiles/{t['profile']['id']}",
        f"/api/v1/networks/{t['network']['id']}",
        f"/api/v1/sites/{t['site']['id']}",
        f"/api/v1/multicast-groups/{t['group']['id']}",
    ]


def random_paths() -> list[str]:
    missing = str(uuid.uuid4())
    eui = uuid.uuid4().hex[:16]
    return [
        f"/api/v1/devices/{missing}",
        f"/api/v1/devices/{eui}",
        f"/api/v1/gateways/{missing}",
        f"/api/v1/gateways/{eui}",
        f"/api/v1/device-profiles/{missing}",
        f"/api/v1/networks/{missing}",
        f"/api/v1/sites/{missing}",
        f"/api/v1/multicast-groups/{missing}",
    ]


class Setup:
    def __init__(self) -> None:
        w = World()
        self.world = w
        features = {"networks": True, "multiSite": True}
        self.p = w.partner(features=features)
        self.mine = tenant(w, self.p, "Mine")
        self.sibling = tenant(w, self.p, "Sibling")
        self.q = w.partner(features=features)
        self.other = tenant(w, self.q, "Other")
        self.sub_key = w.key(self.mine["sa"], scopes=READ_SCOPES)
        self.partner_key = w.key(self.p, scopes=READ_SCOPES)


@pytest.fixture(scope="module")
async def setup(pool: asyncpg.Pool) -> Setup:
    s = Setup()
    await load(pool, s.world)
    return s


async def test_own_ids_resolve(client: AsyncTestClient, setup: Setup) -> None:
    t = setup.mine
    expected = [t[name]["id"] for name in ("device", "device", "gateway", "gateway", "profile",
                                           "network", "site", "group")]  # fmt: skip
    for key in (setup.sub_key, setup.partner_key):
        for path, resource_id in zip(paths(t), expected, strict=True):
            response = await client.get(path, headers=bearer(key))
            assert response.status_code == 200, path
            assert response.json()["data"]["id"] == resource_id, path


async def test_foreign_ids_are_indistinguishable_from_missing(
    client: AsyncTestClient, setup: Setup
) -> None:
    cases = [
        (setup.sub_key, paths(setup.sibling)),
        (setup.sub_key, paths(setup.other)),
        (setup.partner_key, paths(setup.other)),
    ]
    for key, foreign in cases:
        for foreign_path, missing_path in zip(foreign, random_paths(), strict=True):
            foreign_response = await client.get(foreign_path, headers=bearer(key))
            missing_response = await client.get(missing_path, headers=bearer(key))
            assert foreign_response.status_code == 404, foreign_path
            assert foreign_response.json()["error"]["code"] == "not_found"
            assert foreign_response.json() == missing_response.json(), foreign_path


async def test_foreign_ids_as_list_filters_give_empty_lists(
    client: AsyncTestClient, setup: Setup
) -> None:
    for key, t in ((setup.sub_key, setup.sibling), (setup.partner_key, setup.other)):
        for path, params in (
            ("/api/v1/devices", {"subAccountId": t["sa"]["id"]}),
            ("/api/v1/devices", {"deviceProfileId": t["profile"]["id"]}),
            ("/api/v1/devices", {"networkId": t["network"]["id"]}),
            ("/api/v1/devices", {"siteId": t["site"]["id"], "includeDescendants": "true"}),
            ("/api/v1/gateways", {"networkId": t["network"]["id"]}),
            ("/api/v1/gateways", {"siteId": t["site"]["id"]}),
            ("/api/v1/networks", {"siteId": t["site"]["id"]}),
            ("/api/v1/sites", {"subAccountId": t["sa"]["id"]}),
            ("/api/v1/multicast-groups", {"subAccountId": t["sa"]["id"]}),
        ):
            response = await client.get(path, params=params, headers=bearer(key))
            assert response.status_code == 200, (path, params)
            assert response.json()["data"] == [], (path, params)
            assert response.json()["pagination"]["total"] == 0
