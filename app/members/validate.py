"""POST /members/validate: a login check that changes nothing (api-spec 4.11, D14, D17).

The password is verified before anything else is revealed, and an unknown email (or a user
without a password) is verified against a dummy hash, so both cost one argon2 verify and
answer the same 401. It never records a failure and never locks an account.
"""

from __future__ import annotations

import asyncpg

from app.auth.principal import Principal
from app.core.errors import ApiError, ErrorCode, forbidden
from app.core.sql import QUERIES
from app.members.passwords import verify_password
from app.members.service import normalize_email
from app.members.structs import Credentials, Membership, ValidatedMember, ValidatedUser


async def validate_login(
    pool: asyncpg.Pool, principal: Principal, credentials: Credentials
) -> ValidatedMember | ValidatedUser:
    user = await pool.fetchrow(
        QUERIES["members.login_user"], principal.partner_id, normalize_email(credentials.email)
    )
    stored_hash = user["password_hash"] if user is not None else None
    if not await verify_password(stored_hash, credentials.password) or user is None:
        raise ApiError(401, ErrorCode.INVALID_CREDENTIALS, "the email or the password is wrong")
    if user["locked"]:
        raise forbidden(ErrorCode.ACCOUNT_LOCKED, "the account is locked")
    if user["status"] != "active":
        raise forbidden(ErrorCode.ACCOUNT_INACTIVE, "the account is not active")
    rows = await pool.fetch(
        QUERIES["members.user_memberships"],
        user["id"],
        principal.partner_id,
        principal.sub_account_id,
    )
    if not rows:
        raise forbidden(ErrorCode.NOT_A_MEMBER, "the user is not an active member here")
    memberships = [Membership(**dict(row)) for row in rows]
    if principal.sub_account_id is not None:
        only = memberships[0]
        return ValidatedMember(
            valid=True,
            user_id=user["id"],
            email=user["email"],
            name=user["name"],
            role=only.role,
            mfa_enabled=user["mfa_enabled"],
            sub_account_id=only.sub_account_id,
            sub_account_name=only.sub_account_name,
            site_id=only.site_id,
            site_name=only.site_name,
        )
    return ValidatedUser(
        valid=True,
        user_id=user["id"],
        email=user["email"],
        name=user["name"],
        mfa_enabled=user["mfa_enabled"],
        memberships=memberships,
    )
