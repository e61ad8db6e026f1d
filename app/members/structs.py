"""Request and response shapes of the members routes (api-spec 2.13, 4.11; decisions D14)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from app.core.enums import Role

UserStatus = Literal["active", "pending_invite", "suspended"]


class Member(msgspec.Struct, rename="camel"):
    user_id: uuid.UUID
    email: str
    name: str
    role: Role
    status: UserStatus
    mfa_enabled: bool
    last_login_at: datetime | None
    added_at: datetime
    sub_account_id: uuid.UUID
    sub_account_name: str
    site_id: uuid.UUID | None
    site_name: str | None


class AddMember(msgspec.Struct, rename="camel"):
    email: Annotated[str, Meta(description="Compared case-insensitively after trimming.")]
    name: Annotated[str, Meta(description="Required for a new account.")] | None = None
    password: (
        Annotated[str, Meta(description="Required for a new account; 10 to 256 characters.")] | None
    ) = None
    role: Role | None = None
    site_id: (
        Annotated[str, Meta(description="A site of the key's sub-account; null: no restriction.")]
        | None
    ) = None


class AddedMember(msgspec.Struct, rename="camel"):
    user_id: uuid.UUID
    role: Role
    status: UserStatus
    existing: bool
    sub_account_id: uuid.UUID
    sub_account_name: str
    site_id: uuid.UUID | None
    site_name: str | None


class RemovedMember(msgspec.Struct, rename="camel"):
    user_id: uuid.UUID
    removed: bool
    sub_account_id: uuid.UUID
    sub_account_name: str


class Credentials(msgspec.Struct):
    email: str
    password: str


class ValidatedMember(msgspec.Struct, rename="camel"):
    """Validate with a sub-account key."""

    valid: bool
    user_id: uuid.UUID
    email: str
    name: str
    role: Role
    mfa_enabled: bool
    sub_account_id: uuid.UUID
    sub_account_name: str
    site_id: uuid.UUID | None
    site_name: str | None


class Membership(msgspec.Struct, rename="camel"):
    sub_account_id: uuid.UUID
    sub_account_name: str
    role: Role
    site_id: uuid.UUID | None
    site_name: str | None


class ValidatedUser(msgspec.Struct, rename="camel"):
    """Validate with a partner key: every active membership, none picked."""

    valid: bool
    user_id: uuid.UUID
    email: str
    name: str
    mfa_enabled: bool
    memberships: list[Membership]


CREDENTIALS_DECODER = msgspec.json.Decoder(Credentials)
