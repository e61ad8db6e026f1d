"""Response shapes of identity, health and sub-accounts."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal

import msgspec


class SubAccount(msgspec.Struct, rename="camel"):
    id: uuid.UUID
    name: str
    status: Literal["active", "suspended"]
    created_at: datetime
    updated_at: datetime


class Features(msgspec.Struct, rename="camel"):
    networks: bool
    multi_site: bool


class RateLimit(msgspec.Struct, rename="camel"):
    per_minute: int
    remaining: int


class Identity(msgspec.Struct, rename="camel"):
    key_id: uuid.UUID
    key_name: str
    bound_to: Literal["partner", "sub_account"]
    partner_id: uuid.UUID
    partner_name: str
    sub_account_id: uuid.UUID | None
    sub_account_name: str | None
    scopes: list[str]
    api_write: bool
    retention_days: int
    features: Features
    rate_limit: RateLimit
    expires_at: datetime | None


class Health(msgspec.Struct):
    status: Literal["ok", "unavailable"]
    database: Literal["ok", "unavailable"]
