"""Who is calling: the key, its tenancy and its plan, resolved once per request."""

from __future__ import annotations

import hashlib
import re
import uuid
from typing import Any

import msgspec

from app.core.reads import from_row

KEY_PATTERN = re.compile(r"^svc_live_[A-Za-z0-9_\-]{32,}$")


def hash_secret(secret: str) -> bytes:
    """SHA-256 of a whole high-entropy secret (API key or integration token).

    A fast hash is right here: the secrets are random and long, so there is nothing to
    brute-force, and a lookup by hash under a unique index does not leak the secret.
    """
    return hashlib.sha256(secret.encode()).digest()


class Principal(msgspec.Struct, frozen=True):
    key_id: uuid.UUID
    partner_id: uuid.UUID
    sub_account_id: uuid.UUID | None
    scopes: frozenset[str]
    api_write: bool
    retention_days: int
    networks_enabled: bool
    multi_site_enabled: bool
    rate_limit: int
    remaining: int
    # The daily quota and what is left of it after this request.
    day_limit: int
    day_remaining: int

    @property
    def is_partner_key(self) -> bool:
        return self.sub_account_id is None


def principal_from_row(row: Any, **given: Any) -> Principal:
    """The principal of a key's row (authentication, or the key cache with its own
    rate-limit columns `given`)."""
    return from_row(Principal, row, scopes=frozenset(row["scopes"]), **given)
