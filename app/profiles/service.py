"""Profile reads shared by the profile routes and the device detail."""

from __future__ import annotations

import uuid

import asyncpg

from app.core.reads import from_row
from app.core.sql import QUERIES
from app.profiles.structs import ProfileField

PROFILE_FIELDS = QUERIES["profiles.profile_fields"]


async def profile_fields(
    connection: asyncpg.Pool | asyncpg.Connection, profile_id: uuid.UUID
) -> list[ProfileField]:
    rows = await connection.fetch(PROFILE_FIELDS, profile_id)
    return [from_row(ProfileField, row) for row in rows]
