"""Adding and removing members, in the order of checks of decisions D17.

Membership changes of one sub-account lock its row first, so the member limit and the
last-administrator rule hold when requests race: two removals of the last two admins run
one after the other, and the second one counts only one admin left.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

import asyncpg

from app.auth.guards import require_multi_site
from app.auth.principal import Principal
from app.core.api import parse_uuid
from app.core.body import convert_body
from app.core.enums import Role
from app.core.errors import ApiError, ErrorCode, invalid_body, not_found
from app.core.sql import QUERIES
from app.members.passwords import hash_password, password_problem
from app.members.structs import AddedMember, AddMember, RemovedMember

ADMIN = Role.SUBACCOUNT_ADMIN
# Python's white space (what `str.strip` removes and `\s` matches), spelled out so that the
# OpenAPI document's patterns mean the same to an ECMA-262 regex engine, whose `\s` differs.
WHITE_SPACE = "".join(f"\\u{code:04x}" for code in range(0x10000) if chr(code).isspace())
# What an email address must look like (after trimming), the rule written once: members
# added through the API, users of a world file (app/world/validate.py), and the OpenAPI
# document's pattern.
EMAIL_PATTERN = f"[^@{WHITE_SPACE}]+@[^@{WHITE_SPACE}]+"
EMAIL = re.compile(f"^{EMAIL_PATTERN}$")
MAX_EMAIL = 320


def already_member() -> ApiError:
    return ApiError(
        409, ErrorCode.ALREADY_MEMBER, "the user is already a member of this sub-account"
    )


def quota_reached(limit: int) -> ApiError:
    return ApiError(
        422,
        ErrorCode.MEMBER_QUOTA_REACHED,
        f"the sub-account has reached its member limit ({limit})",
    )


def normalize_email(email: str) -> str:
    return email.strip().lower()


def _checked_email(email: str) -> str:
    trimmed = email.strip()
    if not EMAIL.match(trimmed) or len(trimmed) > MAX_EMAIL:
        raise invalid_body("email", "must be an email address")
    return trimmed


async def _new_account_hash(body: AddMember) -> str:
    """Checks name and password of a brand-new account (invalid_body, then weak_password)."""
    if body.name is None or not body.name.strip():
        raise invalid_body("name", "is required for a new account")
    if body.password is None:
        raise invalid_body("password", "is required for a new account")
    problem = password_problem(body.password)
    if problem:
        raise ApiError(400, ErrorCode.WEAK_PASSWORD, problem)
    return await hash_password(body.password)


async def add_member(
    pool: asyncpg.Pool, principal: Principal, document: dict[str, Any]
) -> AddedMember:
    sub_account_id = principal.sub_account_id
    assert sub_account_id is not None
    if document.get("siteId") is not None:
        require_multi_site(principal)
    body = convert_body(document, AddMember)
    email = _checked_email(body.email)
    role = body.role or Role.SUBACCOUNT_VIEWER
    site = None
    if body.site_id is not None:
        site_uuid = parse_uuid(body.site_id)
        if site_uuid is not None:
            site = await pool.fetchrow(QUERIES["members.find_site"], sub_account_id, site_uuid)
        if site is None:
            raise ApiError(400, ErrorCode.INVALID_SITE, "siteId: no such site in this sub-account")
        if role == ADMIN:
            raise ApiError(
                409,
                ErrorCode.ROLE_NOT_RESTRICTABLE,
                "an administrator cannot be restricted to a site",
            )
    email_key = normalize_email(email)
    user = await pool.fetchrow(QUERIES["members.find_user"], principal.partner_id, email_key)
    if user is not None and await pool.fetchval(
        QUERIES["members.is_member"], sub_account_id, user["id"]
    ):
        raise already_member()
    usage = await pool.fetchrow(QUERIES["members.member_usage"], sub_account_id)
    if usage["used"] >= usage["member_limit"]:
        raise quota_reached(usage["member_limit"])
    password_hash = await _new_account_hash(body) if user is None else None

    async with pool.acquire() as connection, connection.transaction():
        account = await connection.fetchrow(QUERIES["members.lock_sub_account"], sub_account_id)
        user_id: uuid.UUID | None = user["id"] if user is not None else None
        existing = user is not None
        if user_id is None:
            user_id = await connection.fetchval(
                QUERIES["members.insert_user"],
                uuid.uuid4(),
                principal.partner_id,
                email,
                email_key,
                (body.name or "").strip(),
                password_hash,
            )
        if user_id is None:
            # Created by a concurrent request a moment ago: attach it as it is.
            existing = True
            found = await connection.fetchrow(
                QUERIES["members.find_user"], principal.partner_id, email_key
            )
            user_id = found["id"]
        if await connection.fetchval(QUERIES["members.is_member"], sub_account_id, user_id):
            raise already_member()
        if (
            await connection.fetchval(QUERIES["members.count_members"], sub_account_id)
            >= account["member_limit"]
        ):
            raise quota_reached(account["member_limit"])
        await connection.execute(
            QUERIES["members.insert_membership"],
            sub_account_id,
            user_id,
            role,
            site["id"] if site else None,
        )
        status = await connection.fetchval(QUERIES["members.user_status"], user_id)
    return AddedMember(
        user_id=user_id,
        role=role,
        status=status,
        existing=existing,
        sub_account_id=sub_account_id,
        sub_account_name=account["name"],
        site_id=site["id"] if site else None,
        site_name=site["name"] if site else None,
    )


async def remove_member(pool: asyncpg.Pool, principal: Principal, user_ref: str) -> RemovedMember:
    sub_account_id = principal.sub_account_id
    assert sub_account_id is not None
    user_id = parse_uuid(user_ref)
    if user_id is None:
        raise not_found("member")
    async with pool.acquire() as connection, connection.transaction():
        account = await connection.fetchrow(QUERIES["members.lock_sub_account"], sub_account_id)
        role = await connection.fetchval(
            QUERIES["members.membership_role"], sub_account_id, user_id
        )
        if role is None:
            raise not_found("member")
        if (
            role == ADMIN
            and await connection.fetchval(QUERIES["members.count_admins"], sub_account_id) <= 1
        ):
            raise ApiError(
                409, ErrorCode.LAST_ADMIN, "the only remaining administrator cannot be removed"
            )
        await connection.execute(QUERIES["members.delete_membership"], sub_account_id, user_id)
        await connection.execute(QUERIES["members.end_sessions"], user_id)
    return RemovedMember(
        user_id=user_id,
        removed=True,
        sub_account_id=sub_account_id,
        sub_account_name=account["name"],
    )
