"""GET, POST /members and DELETE /members/{user_id} (api-spec 2.13, 3.2, 4.11; D14, D17)."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import asyncpg
import pytest
from argon2 import PasswordHasher
from litestar.testing import AsyncTestClient

from testkit.factories import World, loaded
from tests.support.helpers import bearer, get_ok
from tests.support.servers import LiveServer

MEMBER_SCOPES = ["members:read", "members:manage"]


class Setup:
    def __init__(self, multi_site: bool = True, member_limit: int = 10) -> None:
        world = World()
        self.world = world
        self.partner = world.partner(features={"networks": False, "multiSite": multi_site})
        self.sub = world.sub_account(self.partner, name="Customer A", memberLimit=member_limit)
        self.other_sub = world.sub_account(self.partner, name="Customer B")
        self.site = world.site(self.sub, name="Campus")
        self.other_site = world.site(self.other_sub, name="Elsewhere")
        self.admin = world.user(self.partner, email="Zed.Admin@Example.com", name="Zed")
        self.viewer = world.user(self.partner, email="amy@example.com", name="Amy")
        self.outsider = world.user(self.partner, email="olga@example.com", name="Olga")
        world.member(self.sub, self.admin, role="subaccount_admin")
        world.member(self.sub, self.viewer, role="subaccount_viewer", site=self.site)
        world.member(self.other_sub, self.outsider, role="subaccount_admin")
        self.key = world.key(self.sub, scopes=MEMBER_SCOPES)
        self.read_key = world.key(self.sub, scopes=["members:read"])
        self.partner_key = world.key(self.partner, scopes=MEMBER_SCOPES)


@pytest.fixture
async def s(pool: asyncpg.Pool) -> Setup:
    """A fresh Setup, loaded: the world most tests of this file start from."""
    return await loaded(pool, Setup())


async def add(client: AsyncTestClient, key: str, body: Any) -> Any:
    return await client.post("/api/v1/members", json=body, headers=bearer(key))


def error_of(response: Any) -> tuple[int, str]:
    return response.status_code, response.json()["error"]["code"]


async def test_list_members_by_email_with_sub_account_and_site(
    client: AsyncTestClient, s: Setup
) -> None:
    body = await get_ok(client, s.read_key, "/api/v1/members")
    assert body["pagination"] == {"limit": 50, "offset": 0, "total": 2}
    amy, zed = body["data"]
    assert amy.pop("addedAt")
    assert amy == {
        "userId": s.viewer["id"],
        "email": "amy@example.com",
        "name": "Amy",
        "role": "subaccount_viewer",
        "status": "active",
        "mfaEnabled": False,
        "lastLoginAt": None,
        "subAccountId": s.sub["id"],
        "subAccountName": "Customer A",
        "siteId": s.site["id"],
        "siteName": "Campus",
    }
    assert zed["email"] == "Zed.Admin@Example.com"
    assert (zed["role"], zed["siteId"], zed["siteName"]) == ("subaccount_admin", None, None)
    response = await client.get("/api/v1/members?limit=1&offset=1", headers=bearer(s.read_key))
    assert [m["userId"] for m in response.json()["data"]] == [s.admin["id"]]
    assert response.json()["pagination"] == {"limit": 1, "offset": 1, "total": 2}
    response = await client.get("/api/v1/members?offset=-1", headers=bearer(s.read_key))
    assert error_of(response) == (400, "invalid_parameter")


async def test_site_reads_null_when_multi_site_is_off(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    s = Setup()
    s.sub["features"] = {"multiSite": False}
    await loaded(pool, s)
    response = await client.get("/api/v1/members", headers=bearer(s.read_key))
    amy = response.json()["data"][0]
    assert (amy["siteId"], amy["siteName"]) == (None, None)


async def test_key_flavour_and_scope_checks_in_order(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    s = Setup()
    partner_no_scope = s.world.key(s.partner, scopes=["devices:read"])
    sub_no_scope = s.world.key(s.sub, scopes=["devices:read"])
    await loaded(pool, s)
    user_path = f"/api/v1/members/{s.viewer['id']}"
    # Missing scope comes before the key flavour.
    assert error_of(await client.get("/api/v1/members", headers=bearer(partner_no_scope))) == (
        403,
        "insufficient_scope",
    )
    assert error_of(await add(client, partner_no_scope, {"email": "x"})) == (
        403,
        "insufficient_scope",
    )
    assert error_of(await client.delete(user_path, headers=bearer(partner_no_scope))) == (
        403,
        "insufficient_scope",
    )
    # A partner key with the scope: subaccount_key_required, before any body check.
    assert error_of(await client.get("/api/v1/members", headers=bearer(s.partner_key))) == (
        403,
        "subaccount_key_required",
    )
    response = await client.post(
        "/api/v1/members",
        content=b"not json",
        headers={**bearer(s.partner_key), "Content-Type": "text/plain"},
    )
    assert error_of(response) == (403, "subaccount_key_required")
    assert error_of(await client.delete(user_path, headers=bearer(s.partner_key))) == (
        403,
        "subaccount_key_required",
    )
    # Reading does not allow managing.
    assert error_of(await add(client, s.read_key, {"email": "new@example.com"})) == (
        403,
        "insufficient_scope",
    )
    assert error_of(await client.delete(user_path, headers=bearer(s.read_key))) == (
        403,
        "insufficient_scope",
    )
    assert error_of(await client.get("/api/v1/members", headers=bearer(sub_no_scope))) == (
        403,
        "insufficient_scope",
    )


async def test_add_new_email_creates_an_active_account(
    client: AsyncTestClient, pool: asyncpg.Pool, s: Setup
) -> None:
    response = await add(
        client,
        s.key,
        {"email": "  New.Person@Example.com ", "name": "New Person", "password": "a" * 10},
    )
    assert response.status_code == 201, response.text
    data = response.json()["data"]
    user_id = data.pop("userId")
    assert data == {
        "role": "subaccount_viewer",
        "status": "active",
        "existing": False,
        "subAccountId": s.sub["id"],
        "subAccountName": "Customer A",
        "siteId": None,
        "siteName": None,
    }
    row = await pool.fetchrow("SELECT * FROM users WHERE id = $1", uuid.UUID(user_id))
    assert row["email"] == "New.Person@Example.com"
    assert row["email_key"] == "new.person@example.com"
    assert row["partner_id"] == uuid.UUID(s.partner["id"])
    assert row["name"] == "New Person"
    assert row["status"] == "active"
    assert row["password_hash"].startswith("$argon2id$")
    assert PasswordHasher().verify(row["password_hash"], "a" * 10)
    # The new account can sign in at once.
    response = await client.post(
        "/api/v1/members/validate",
        json={"email": "new.person@example.com", "password": "a" * 10},
        headers=bearer(s.key),
    )
    assert response.status_code == 200
    assert response.json()["data"]["userId"] == user_id


async def test_add_existing_account_attaches_without_touching_the_password(
    client: AsyncTestClient, pool: asyncpg.Pool, s: Setup
) -> None:
    before = await pool.fetchrow("SELECT * FROM users WHERE id = $1", uuid.UUID(s.outsider["id"]))
    response = await add(
        client,
        s.key,
        {
            "email": " OLGA@example.COM",
            "name": "Another Name",
            "password": "short",
            "role": "subaccount_operator",
            "siteId": s.site["id"],
        },
    )
    assert response.status_code == 201, response.text
    assert response.json()["data"] == {
        "userId": s.outsider["id"],
        "role": "subaccount_operator",
        "status": "active",
        "existing": True,
        "subAccountId": s.sub["id"],
        "subAccountName": "Customer A",
        "siteId": s.site["id"],
        "siteName": "Campus",
    }
    after = await pool.fetchrow("SELECT * FROM users WHERE id = $1", uuid.UUID(s.outsider["id"]))
    assert dict(after) == dict(before)
    roles = await pool.fetch(
        "SELECT sub_account_id, role FROM memberships WHERE user_id = $1 ORDER BY role",
        uuid.UUID(s.outsider["id"]),
    )
    assert {(str(r["sub_account_id"]), r["role"]) for r in roles} == {
        (s.other_sub["id"], "subaccount_admin"),
        (s.sub["id"], "subaccount_operator"),
    }


async def test_same_email_in_another_partner_is_a_new_account(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    s = Setup()
    elsewhere = s.world.partner()
    s.world.user(elsewhere, email="shared@example.com")
    await loaded(pool, s)
    response = await add(
        client, s.key, {"email": "shared@example.com", "name": "Shared", "password": "p" * 12}
    )
    assert response.status_code == 201
    assert response.json()["data"]["existing"] is False


async def test_already_member_and_member_quota(client: AsyncTestClient, pool: asyncpg.Pool) -> None:
    s = await loaded(pool, Setup(member_limit=3))
    assert error_of(await add(client, s.key, {"email": "AMY@example.com"})) == (
        409,
        "already_member",
    )
    response = await add(client, s.key, {"email": "olga@example.com"})
    assert response.status_code == 201
    response = await add(client, s.key, {"email": "fourth@example.com", "name": "F"})
    assert error_of(response) == (422, "member_quota_reached")
    # already_member comes before the quota.
    assert error_of(await add(client, s.key, {"email": "amy@example.com"})) == (
        409,
        "already_member",
    )
    count = await pool.fetchval(
        "SELECT count(*) FROM memberships WHERE sub_account_id = $1", uuid.UUID(s.sub["id"])
    )
    assert count == 3


async def test_new_account_needs_name_and_a_policy_password(
    client: AsyncTestClient, pool: asyncpg.Pool, s: Setup
) -> None:
    cases = [
        ({"email": "n1@example.com", "password": "p" * 12}, (400, "invalid_body"), "name"),
        (
            {"email": "n1@example.com", "name": "  ", "password": "p" * 12},
            (400, "invalid_body"),
            "name",
        ),
        ({"email": "n1@example.com", "name": "N"}, (400, "invalid_body"), "password"),
        ({"email": "n1@example.com", "password": "short"}, (400, "invalid_body"), "name"),
        ({"email": "n1@example.com", "name": "N", "password": "p" * 9}, (400, "weak_password"), ""),
        ({"email": "n1@example.com", "name": "N", "password": ""}, (400, "weak_password"), ""),
        (
            {"email": "n1@example.com", "name": "N", "password": "p" * 257},
            (400, "weak_password"),
            "",
        ),
    ]
    for body, expected, field in cases:
        response = await add(client, s.key, body)
        assert error_of(response) == expected, body
        assert response.json()["error"]["message"].startswith(field), body
    assert await pool.fetchval("SELECT count(*) FROM users WHERE email_key = 'n1@example.com'") == 0
    for n, password in ((1, "p" * 10), (2, "p" * 256)):
        response = await add(
            client, s.key, {"email": f"ok{n}@example.com", "name": "N", "password": password}
        )
        assert response.status_code == 201


async def test_body_errors_are_invalid_body_naming_the_field(
    client: AsyncTestClient, s: Setup
) -> None:
    cases = [
        ({}, "email"),
        ({"email": 5}, "email"),
        ({"email": "not-an-email"}, "email"),
        ({"email": ""}, "email"),
        ({"email": "a@example.com", "role": "owner"}, "role"),
        ({"email": "a@example.com", "role": 1}, "role"),
        ({"email": "a@example.com", "name": 5}, "name"),
        ({"email": "a@example.com", "siteId": 5}, "siteId"),
        ({"email": "a@example.com", "password": ["x"]}, "password"),
    ]
    for body, field in cases:
        response = await add(client, s.key, body)
        assert error_of(response) == (400, "invalid_body"), body
        assert response.json()["error"]["message"].startswith(field), body


async def test_site_rules(client: AsyncTestClient, s: Setup) -> None:
    for site_id in (s.other_site["id"], str(uuid.uuid4()), "nonsense"):
        response = await add(client, s.key, {"email": "amy@example.com", "siteId": site_id})
        assert error_of(response) == (400, "invalid_site"), site_id
    response = await add(
        client,
        s.key,
        {"email": "olga@example.com", "role": "subaccount_admin", "siteId": s.site["id"]},
    )
    assert error_of(response) == (409, "role_not_restrictable")
    response = await add(
        client, s.key, {"email": "olga@example.com", "role": "subaccount_admin", "siteId": None}
    )
    assert response.status_code == 201
    assert response.json()["data"]["role"] == "subaccount_admin"


async def test_site_id_with_multi_site_off(client: AsyncTestClient, pool: asyncpg.Pool) -> None:
    s = await loaded(pool, Setup(multi_site=False))
    # Before body validation: a broken body with a siteId is still multi_site_disabled.
    response = await add(client, s.key, {"email": 5, "siteId": s.site["id"]})
    assert error_of(response) == (403, "multi_site_disabled")
    response = await add(client, s.key, {"email": "olga@example.com", "siteId": s.site["id"]})
    assert error_of(response) == (403, "multi_site_disabled")
    # A null siteId is no restriction.
    response = await add(client, s.key, {"email": "olga@example.com", "siteId": None})
    assert response.status_code == 201


async def test_add_order_of_checks(client: AsyncTestClient, pool: asyncpg.Pool) -> None:
    """D17: multi_site_disabled > invalid_body > invalid_site > role_not_restrictable >
    already_member > member_quota_reached > (new email) invalid_body > weak_password."""
    s = await loaded(pool, Setup(member_limit=2))
    bad_site = str(uuid.uuid4())
    steps = [
        ({"email": "amy@example.com", "role": "boss", "siteId": bad_site}, "invalid_body"),
        (
            {"email": "amy@example.com", "role": "subaccount_admin", "siteId": bad_site},
            "invalid_site",
        ),
        (
            {"email": "amy@example.com", "role": "subaccount_admin", "siteId": s.site["id"]},
            "role_not_restrictable",
        ),
        ({"email": "amy@example.com", "siteId": s.site["id"]}, "already_member"),
        ({"email": "brand-new@example.com", "password": "x"}, "member_quota_reached"),
    ]
    for body, code in steps:
        assert error_of(await add(client, s.key, body))[1] == code, body


async def test_remove_member_ends_sessions_and_keeps_the_rest(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    s = Setup()
    s.world.member(s.other_sub, s.viewer, role="subaccount_operator")
    await loaded(pool, s)
    viewer = uuid.UUID(s.viewer["id"])
    await pool.execute(
        "INSERT INTO user_sessions (user_id) SELECT $1 FROM generate_series(1, 2)",
        viewer,
    )
    await pool.execute(
        "INSERT INTO user_sessions (user_id, ended_at) VALUES ($1, now() - interval '1 day')",
        viewer,
    )
    response = await client.delete(f"/api/v1/members/{s.viewer['id']}", headers=bearer(s.key))
    assert response.status_code == 200
    assert response.json() == {
        "data": {
            "userId": s.viewer["id"],
            "removed": True,
            "subAccountId": s.sub["id"],
            "subAccountName": "Customer A",
        }
    }
    sessions = await pool.fetch(
        "SELECT ended_at > now() - interval '1 minute' AS just_ended FROM user_sessions"
        " WHERE user_id = $1 ORDER BY created_at",
        viewer,
    )
    # Two sessions ended just now; the one that had ended a day ago keeps its time.
    assert sorted(r["just_ended"] for r in sessions) == [False, True, True]
    assert await pool.fetchval("SELECT count(*) FROM users WHERE id = $1", viewer) == 1
    remaining = await pool.fetch(
        "SELECT sub_account_id FROM memberships WHERE user_id = $1", viewer
    )
    assert [str(r["sub_account_id"]) for r in remaining] == [s.other_sub["id"]]
    # Gone now: 404, as for a user of another sub-account, an unknown id and garbage.
    for ref in (s.viewer["id"], s.outsider["id"], str(uuid.uuid4()), "garbage"):
        response = await client.delete(f"/api/v1/members/{ref}", headers=bearer(s.key))
        assert error_of(response) == (404, "not_found"), ref


async def test_last_admin_cannot_be_removed(
    client: AsyncTestClient, pool: asyncpg.Pool, s: Setup
) -> None:
    response = await client.delete(f"/api/v1/members/{s.admin['id']}", headers=bearer(s.key))
    assert error_of(response) == (409, "last_admin")
    assert (
        await pool.fetchval(
            "SELECT count(*) FROM memberships WHERE user_id = $1", uuid.UUID(s.admin["id"])
        )
        == 1
    )
    # With a second admin, one of them can go.
    response = await add(client, s.key, {"email": "olga@example.com", "role": "subaccount_admin"})
    assert response.status_code == 201
    response = await client.delete(f"/api/v1/members/{s.admin['id']}", headers=bearer(s.key))
    assert response.status_code == 200
    response = await client.delete(f"/api/v1/members/{s.outsider['id']}", headers=bearer(s.key))
    assert error_of(response) == (409, "last_admin")


async def test_concurrent_removal_of_the_last_two_admins(
    live_server: LiveServer, pool: asyncpg.Pool
) -> None:
    for _ in range(3):
        s = Setup()
        second = s.world.user(s.partner)
        s.world.member(s.sub, second, role="subaccount_admin")
        await loaded(pool, s)
        async with live_server.client() as http:
            responses = await asyncio.gather(
                *(
                    http.delete(f"/api/v1/members/{user['id']}", headers=bearer(s.key))
                    for user in (s.admin, second)
                )
            )
        outcomes = sorted((r.status_code, r.json().get("error", {}).get("code")) for r in responses)
        assert outcomes == [(200, None), (409, "last_admin")]
        admins = await pool.fetchval(
            "SELECT count(*) FROM memberships WHERE sub_account_id = $1"
            " AND role = 'subaccount_admin'",
            uuid.UUID(s.sub["id"]),
        )
        assert admins == 1


async def test_concurrent_adds_respect_the_member_limit(
    live_server: LiveServer, pool: asyncpg.Pool
) -> None:
    s = Setup(member_limit=3)
    extra = [s.world.user(s.partner) for _ in range(4)]
    await loaded(pool, s)
    async with live_server.client() as http:
        responses = await asyncio.gather(
            *(
                http.post("/api/v1/members", json={"email": u["email"]}, headers=bearer(s.key))
                for u in extra
            )
        )
    assert sorted(r.status_code for r in responses) == [201, 422, 422, 422]
