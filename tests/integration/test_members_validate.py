"""POST /members/validate: the login check (api-spec 4.11; decisions D14, D17)."""

from __future__ import annotations

import uuid
from typing import Any

import asyncpg
import pytest
from litestar.testing import AsyncTestClient

from testkit.factories import World, loaded
from tests.support.helpers import assert_error, bearer

PASSWORD = "correct horse battery staple"


class Setup:
    def __init__(self) -> None:
        world = World()
        self.world = world
        self.partner = world.partner(features={"networks": False, "multiSite": True})
        self.sub_a = world.sub_account(self.partner, name="Alpha")
        self.sub_b = world.sub_account(self.partner, name="Beta")
        self.sub_c = world.sub_account(self.partner, name="Gamma")
        self.site = world.site(self.sub_b, name="Floor 2")
        self.user = world.user(
            self.partner, email="Ana@Example.com", name="Ana", password=PASSWORD, mfaEnabled=True
        )
        world.member(self.sub_a, self.user, role="subaccount_admin")
        world.member(self.sub_b, self.user, role="subaccount_viewer", site=self.site)
        self.key_a = world.key(self.sub_a, scopes=["members:read"])
        self.key_b = world.key(self.sub_b, scopes=["members:read"])
        self.key_c = world.key(self.sub_c, scopes=["members:read"])
        self.partner_key = world.key(self.partner, scopes=["members:read"])
        # Another workspace with the same email and password: never mixed in.
        other, other_sub = world.tenancy({})
        twin = world.user(other, email="ana@example.com", password=PASSWORD)
        world.member(other_sub, twin, role="subaccount_admin")

    def ana(self, **answer: Any) -> dict[str, Any]:
        """The answer that Ana's credentials are valid: who she is, then `answer`."""
        who = {"valid": True, "userId": self.user["id"], "email": "Ana@Example.com", "name": "Ana"}
        return {"data": {**who, **answer}}

    def in_b(self) -> dict[str, Any]:
        """Where Ana's membership of sub-account B is."""
        return {
            "subAccountId": self.sub_b["id"],
            "subAccountName": "Beta",
            "siteId": self.site["id"],
            "siteName": "Floor 2",
        }


@pytest.fixture
async def s(pool: asyncpg.Pool) -> Setup:
    """A fresh Setup, loaded: the world most tests of this file start from."""
    return await loaded(pool, Setup())


async def validate(client: AsyncTestClient, key: str, email: str, password: str) -> Any:
    return await client.post(
        "/api/v1/members/validate",
        json={"email": email, "password": password},
        headers=bearer(key),
    )


async def test_sub_account_key_answers_its_own_membership(
    client: AsyncTestClient, s: Setup
) -> None:
    response = await validate(client, s.key_b, "  ANA@example.com ", PASSWORD)
    assert response.status_code == 200
    assert response.json() == s.ana(role="subaccount_viewer", mfaEnabled=True, **s.in_b())
    response = await validate(client, s.key_a, "ana@example.com", PASSWORD)
    data = response.json()["data"]
    assert (data["role"], data["subAccountName"], data["siteId"]) == (
        "subaccount_admin",
        "Alpha",
        None,
    )


async def test_partner_key_answers_every_membership(client: AsyncTestClient, s: Setup) -> None:
    response = await validate(client, s.partner_key, "ana@example.com", PASSWORD)
    assert response.status_code == 200
    assert response.json() == s.ana(
        mfaEnabled=True,
        memberships=[
            {
                "subAccountId": s.sub_a["id"],
                "subAccountName": "Alpha",
                "role": "subaccount_admin",
                "siteId": None,
                "siteName": None,
            },
            {"role": "subaccount_viewer", **s.in_b()},
        ],
    )


async def test_unknown_email_and_wrong_password_answer_identically(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    s = Setup()
    s.world.user(s.partner, email="invited@example.com", password=None, status="pending_invite")
    await loaded(pool, s)
    answers = [
        await validate(client, s.key_a, "nobody@example.com", PASSWORD),
        await validate(client, s.key_a, "ana@example.com", "wrong password!"),
        await validate(client, s.key_a, "ana@example.com", ""),
        await validate(client, s.key_a, "invited@example.com", PASSWORD),
        await validate(client, s.partner_key, "nobody@example.com", PASSWORD),
    ]
    for response in answers:
        assert response.status_code == 401
        assert response.json() == {
            "error": {
                "code": "invalid_credentials",
                "message": "the email or the password is wrong",
            }
        }
        # Every 401 carries a challenge (D2); the realm and the code tell it from a key failure.
        assert response.headers["www-authenticate"] == 'Bearer realm="members"'


async def test_lock_status_and_membership_come_after_the_password(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    s = Setup()
    w = s.world
    locked = w.user(s.partner, password=PASSWORD, lockedUntil="now+PT1H", status="suspended")
    was_locked = w.user(s.partner, password=PASSWORD, lockedUntil="now-PT1M")
    suspended = w.user(s.partner, password=PASSWORD, status="suspended")
    pending = w.user(s.partner, password=PASSWORD, status="pending_invite")
    loner = w.user(s.partner, password=PASSWORD)
    for user in (locked, was_locked, suspended, pending):
        w.member(s.sub_a, user)
    w.member(s.sub_c, loner)
    await loaded(pool, s)

    cases = [
        (s.key_a, locked, PASSWORD, (403, "account_locked")),
        (s.key_a, locked, "wrong password", (401, "invalid_credentials")),
        (s.key_a, was_locked, PASSWORD, (200, None)),
        (s.key_a, suspended, PASSWORD, (403, "account_inactive")),
        (s.key_a, suspended, "wrong password", (401, "invalid_credentials")),
        (s.key_a, pending, PASSWORD, (403, "account_inactive")),
        (s.partner_key, pending, PASSWORD, (403, "account_inactive")),
        (s.key_a, loner, PASSWORD, (403, "not_a_member")),
        (s.key_a, loner, "wrong password", (401, "invalid_credentials")),
        (s.key_c, loner, PASSWORD, (200, None)),
        (s.key_c, s.user, PASSWORD, (403, "not_a_member")),
    ]
    for key, user, password, (status, code) in cases:
        response = await validate(client, key, user["email"], password)
        assert response.status_code == status, (user["email"], password)
        if code:
            assert response.json()["error"]["code"] == code, (user["email"], password)


async def test_partner_key_without_any_membership_is_not_a_member(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    s = Setup()
    nobody = s.world.user(s.partner, password=PASSWORD)
    await loaded(pool, s)
    response = await validate(client, s.partner_key, nobody["email"], PASSWORD)
    assert_error(response, 403, "not_a_member")


async def test_validate_changes_nothing(
    client: AsyncTestClient, pool: asyncpg.Pool, s: Setup
) -> None:
    user_id = uuid.UUID(s.user["id"])
    before = await pool.fetchrow("SELECT * FROM users WHERE id = $1", user_id)
    for _ in range(8):
        assert (await validate(client, s.key_a, "ana@example.com", "nope nope")).status_code == 401
    assert (await validate(client, s.key_a, "ana@example.com", PASSWORD)).status_code == 200
    after = await pool.fetchrow("SELECT * FROM users WHERE id = $1", user_id)
    assert dict(after) == dict(before)
    assert (
        await pool.fetchval("SELECT count(*) FROM user_sessions WHERE user_id = $1", user_id) == 0
    )


async def test_site_hidden_when_multi_site_off_for_that_sub_account(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    s = Setup()
    s.sub_b["features"] = {"multiSite": False}
    await loaded(pool, s)
    response = await validate(client, s.key_b, "ana@example.com", PASSWORD)
    assert (response.json()["data"]["siteId"], response.json()["data"]["siteName"]) == (None, None)


async def test_validate_needs_members_read(client: AsyncTestClient, pool: asyncpg.Pool) -> None:
    s = Setup()
    manage_only = s.world.key(s.sub_a, scopes=["members:manage"])
    await loaded(pool, s)
    response = await client.post(
        "/api/v1/members/validate",
        content=b"not json",
        headers={**bearer(manage_only), "Content-Type": "text/plain"},
    )
    assert_error(response, 403, "insufficient_scope")
