"""GET /multicast-groups and GET /multicast-groups/{id} (api-spec 2.9, 4.7; D17, D18)."""

from __future__ import annotations

import uuid

import asyncpg
import pytest
from litestar.testing import AsyncTestClient

from app.ops.admin import set_device_status
from testkit.factories import World, loaded
from tests.support.helpers import assert_error, bearer


class Setup:
    def __init__(self) -> None:
        w = World()
        self.world = w
        self.p, self.a, self.b = w.tenancy({}, {})
        prof = w.profile(self.p)
        self.d1 = w.device(self.a, prof, name="Member 1")
        self.d2 = w.device(self.a, prof, name="Member 2")
        self.d3 = w.device(self.a, prof, name="Member archived", status="archived")
        self.group = w.multicast_group(self.a, [self.d1, self.d2, self.d3], name="All lights")
        self.empty = w.multicast_group(self.a, [], name="Empty")
        self.b_group = w.multicast_group(self.b, [], name="B group")
        self.q, self.qa = w.tenancy({})
        self.q_group = w.multicast_group(self.qa, [], name="Foreign")
        self.pkey, self.akey = w.keys(self.p, self.a, scopes=["devices:read"])


@pytest.fixture(scope="module")
async def setup(pool: asyncpg.Pool) -> Setup:
    s = await loaded(pool, Setup())
    # The device leaves for the partner's pool through the operator's own operation: it
    # stays a member, listed with its status.
    async with pool.acquire() as connection:
        await set_device_status(connection, s.d2["id"], "inventory", None)
    return s


async def test_list(client: AsyncTestClient, setup: Setup) -> None:
    response = await client.get("/api/v1/multicast-groups", headers=bearer(setup.akey))
    assert response.status_code == 200
    assert response.json() == {
        "data": [
            {"id": setup.group["id"], "name": "All lights", "subAccountId": setup.a["id"],
             "deviceCount": 3},
            {"id": setup.empty["id"], "name": "Empty", "subAccountId": setup.a["id"],
             "deviceCount": 0},
        ],
        "pagination": {"limit": 50, "offset": 0, "total": 2},
    }  # fmt: skip
    response = await client.get("/api/v1/multicast-groups", headers=bearer(setup.pkey))
    assert [g["name"] for g in response.json()["data"]] == ["All lights", "B group", "Empty"]
    response = await client.get(
        "/api/v1/multicast-groups",
        params={"subAccountId": setup.b["id"]},
        headers=bearer(setup.pkey),
    )
    assert [g["name"] for g in response.json()["data"]] == ["B group"]


async def test_detail_lists_every_member_with_status(client: AsyncTestClient, setup: Setup) -> None:
    response = await client.get(
        f"/api/v1/multicast-groups/{setup.group['id']}", headers=bearer(setup.akey)
    )
    assert response.status_code == 200
    data = response.json()["data"]
    assert data["deviceCount"] == 3
    assert data["devices"] == [
        {"deviceId": setup.d1["id"], "devEui": setup.d1["devEui"], "name": "Member 1",
         "status": "assigned"},
        {"deviceId": setup.d2["id"], "devEui": setup.d2["devEui"], "name": "Member 2",
         "status": "inventory"},
        {"deviceId": setup.d3["id"], "devEui": setup.d3["devEui"], "name": "Member archived",
         "status": "archived"},
    ]  # fmt: skip


async def test_404s(client: AsyncTestClient, setup: Setup) -> None:
    for key, group in ((setup.akey, setup.b_group["id"]), (setup.pkey, setup.q_group["id"]),
                       (setup.pkey, str(uuid.uuid4())), (setup.pkey, "zz")):  # fmt: skip
        response = await client.get(f"/api/v1/multicast-groups/{group}", headers=bearer(key))
        assert_error(response, 404, "not_found")
