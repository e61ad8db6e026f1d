"""Retention of our own: the periodic job that drops expired chunks (schema 040-history).

Every app worker runs the loop; `history_retention_run` takes a transaction-scoped
advisory lock, so only one of them works at a time and the others skip their turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg

log = logging.getLogger("telemetry.retention")

FIRST_RUN_AFTER_S = 60.0
EVERY_S = 15 * 60.0


async def run_retention(connection: asyncpg.Pool | asyncpg.Connection) -> int | None:
    """Drops what no plan may read: chunks dropped, or None when another runner has the lock."""
    dropped: int | None = await connection.fetchval("SELECT history_retention_run()")
    return dropped


async def retention_loop(pool: asyncpg.Pool, first: float, every: float) -> None:
    await asyncio.sleep(first)
    while True:
        try:
            dropped = await run_retention(pool)
            if dropped:
                log.info("retention dropped %d chunks", dropped)
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
            log.exception("retention run failed; retrying at the next interval")
        await asyncio.sleep(every)


@asynccontextmanager
async def retention_lifespan(app: Any) -> AsyncIterator[None]:
    """Starts the loop once the pool exists (list it after the pool's lifespan)."""
    task = asyncio.create_task(retention_loop(app.state.pool, FIRST_RUN_AFTER_S, EVERY_S))
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
