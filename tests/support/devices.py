"""A device's live state written the way the ingest pipeline leaves it."""

from __future__ import annotations

import uuid
from typing import Any

import asyncpg


async def set_state(pool: asyncpg.Pool, device: dict[str, Any], **columns: Any) -> None:
    """Writes the live state of a device the way the ingest pipeline leaves it."""
    num = await pool.fetchval("SELECT num FROM devices WHERE id = $1", uuid.UUID(device["id"]))
    names = ", ".join(columns)
    values = ", ".join(f"${i + 2}" for i in range(len(columns)))
    updates = ", ".join(f"{name} = EXCLUDED.{name}" for name in columns)
    await pool.execute(
        f"INSERT INTO device_state (device_num, {names}) VALUES ($1, {values}) "
        f"ON CONFLICT (device_num) DO UPDATE SET {updates}",
        num,
        *columns.values(),
    )
