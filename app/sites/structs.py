"""Site shape (decisions D17)."""

from __future__ import annotations

import uuid

import msgspec


class Site(msgspec.Struct, rename="camel"):
    id: uuid.UUID
    name: str
    parent_site_id: uuid.UUID | None
    sub_account_id: uuid.UUID
