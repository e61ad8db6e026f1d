"""Readings written the way ingest writes them, and the instants of history requests."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import asyncpg


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def parse(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


async def nums(pool: asyncpg.Pool, table: str, ids: list[str]) -> list[int]:
    rows = await pool.fetch(f"SELECT id, num FROM {table} WHERE id = ANY($1::uuid[])", ids)
    by_id = {str(r["id"]): r["num"] for r in rows}
    return [by_id[i] for i in ids]


async def record(
    pool: asyncpg.Pool | asyncpg.Connection,
    device_num: int,
    at: datetime,
    numbers: dict[int, float] | None = None,
    others: dict[int, Any] | None = None,
    site_num: int = 0,
) -> None:
    numbers, others = numbers or {}, others or {}
    await pool.execute(
        "SELECT record_readings($1, $2, $3, $4, $5, $6, $7)",
        device_num,
        site_num,
        at,
        list(numbers),
        list(numbers.values()),
        list(others),
        list(others.values()),
    )
