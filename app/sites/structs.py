"""Site shape (decisions D17)."""

from __future__ import annotations

import uuid
from typing import Any

import msgspec


class Site(msgspec.Struct, rename="camel"):
    id: uuid.UUID
    name: str
    parent_site_id: uuid.UUID | None
    sub_account_id: uuid.UUID


def site_from_row(row: Any) -> Site:
    return Site(
        id=row["id"],
        name=row["name"],
        parent_site_id=row["parent_site_id"],
        sub_account_id=row["sub_account_id"],
    )
