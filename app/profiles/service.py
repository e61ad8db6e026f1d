"""Profile reads shared by the profile routes and the device detail."""

from __future__ import annotations

import uuid

import asyncpg

from app.core.sql import QUERIES
from app.profiles.structs import ProfileField

PROFILE_FIELDS = QUERIES["profiles.profile_fields"]


async def profile_fields(
    connection: asyncpg.Pool | asyncpg.Connection, profile_id: uuid.UUID
) -> list[ProfileField]:
    rows = await connection.fetch(PROFILE_FIELDS, profile_id)
    return [
        ProfileField(
            id=r["id"],
            identifier=r["identifier"],
            label=r["label"],
            unit=r["unit"],
            data_type=r["data_type"],
            kind=r["kind"],
            role=r["role"],
        )
        for r in rows
    ]
