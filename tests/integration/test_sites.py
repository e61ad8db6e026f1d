"""GET /sites and GET /sites/{id} (api-spec 2.11, 4.9; decisions D8, D17, D18)."""

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
        multi_site_off = {"features": {"multiSite": False}}
        self.p, self.a, self.b = w.tenancy({}, multi_site_off, features={"multiSite": True})
        self.campus = w.site(self.a, name="Campus")
        self.building = w.site(self.a, parent=self.campus, name="Building")
        self.floor = w.site(self.a, parent=self.building, name="Floor")
        self.b_site = w.site(self.b, name="B site")
        self.a2 = w.sub_account(self.p)
        self.sibling = w.site(self.a2, name="Sibling site")
        self.q, self.qa = w.tenancy({}, features={"multiSite": True})
        self.q_site = w.site(self.qa, name="Foreign")
        self.pkey, self.akey, self.bkey = w.keys(self.p, self.a, self.b, scopes=["devices:read"])


setup = world_fixture(Setup)


async def test_list_and_detail(client: AsyncTestClient, setup: Setup) -> None:
    body = await get_ok(client, setup.akey, "/api/v1/sites")
    assert body["pagination"] == {"limit": 50, "offset": 0, "total": 3}
    assert body["data"] == [
        {"id": setup.building["id"], "name": "Building", "parentSiteId": setup.campus["id"],
         "subAccountId": setup.a["id"]},
        {"id": setup.campus["id"], "name": "Campus", "parentSiteId": None,
         "subAccountId": setup.a["id"]},
        {"id": setup.floor["id"], "name": "Floor", "parentSiteId": setup.building["id"],
         "subAccountId": setup.a["id"]},
    ]  # fmt: skip
    response = await client.get(f"/api/v1/sites/{setup.floor['id']}", headers=bearer(setup.akey))
    assert response.json() == {"data": body["data"][2]}


async def test_partner_key_covers_subaccounts_with_the_feature(
    client: AsyncTestClient, setup: Setup
) -> None:
    response = await client.get("/api/v1/sites", headers=bearer(setup.pkey))
    names = [s["name"] for s in response.json()["data"]]
    assert names == ["Building", "Campus", "Floor", "Sibling site"]
    response = await client.get(f"/api/v1/sites/{setup.b_site['id']}", headers=bearer(setup.pkey))
    assert response.status_code == 404
    response = await client.get(
        "/api/v1/sites", params={"subAccountId": setup.a2["id"]}, headers=bearer(setup.pkey)
    )
    assert [s["name"] for s in response.json()["data"]] == ["Sibling site"]


async def test_feature_off_is_403(client: AsyncTestClient, setup: Setup) -> None:
    for path in ("/api/v1/sites", f"/api/v1/sites/{setup.b_site['id']}"):
        response = await client.get(path, headers=bearer(setup.bkey))
        assert_error(response, 403, "multi_site_disabled")


async def test_feature_off_comes_before_paging_400s(client: AsyncTestClient, setup: Setup) -> None:
    for params in ({"limit": 0}, {"limit": 201}, {"offset": -1}, {"limit": "x"},
                   {"subAccountId": "bad"}):  # fmt: skip
        response = await client.get("/api/v1/sites", params=params, headers=bearer(setup.bkey))
        assert response.status_code == 403, params
        assert response.json()["error"]["code"] == "multi_site_disabled"


async def test_sites_outside_scope_are_404(client: AsyncTestClient, setup: Setup) -> None:
    for key, site in ((setup.akey, setup.sibling["id"]), (setup.akey, setup.q_site["id"]),
                      (setup.pkey, setup.q_site["id"]), (setup.akey, str(uuid.uuid4())),
                      (setup.akey, "nope")):  # fmt: skip
        response = await client.get(f"/api/v1/sites/{site}", headers=bearer(key))
        assert_error(response, 404, "not_found")
    response = await client.get("/api/v1/sites", params={"offset": -1}, headers=bearer(setup.akey))
    assert_error(response, 400, "invalid_parameter")
