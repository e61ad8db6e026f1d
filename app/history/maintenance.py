"""Retention of our own: the periodic job that packs closed weeks of raw readings
(schema/definitions/035-packing.sql), drops expired chunks
(schema/definitions/040-retention.sql) and compacts closed ones (CLUSTER, see
schema/020-history-layout.sql).

The loop runs once across all workers and instances, elected by app/core/exclusive.py
like every singleton task. The SQL functions also take one transaction-scoped advisory lock
of their own, since `telemetry retention run` calls them from outside the server: a run
that finds it taken skips its turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

import asyncpg

from app.core.config import Settings
from app.core.errors import is_unavailable
from app.core.exclusive import run_exclusively, wait_for

log = logging.getLogger("telemetry.retention")
T = TypeVar("T")

ELECTION = "history:retention"
FIRST_RUN_AFTER_S = 60.0
EVERY_S = 15 * 60.0
# A chunk rewrite locks that chunk for seconds at large scale; one per run keeps it gentle.
# Settings.compact_chunks False (TELEMETRY_COMPACT_CHUNKS=0) leaves compaction to
# `telemetry retention run --compact`.
COMPACT_PER_RUN = 1


async def run_retention(connection: asyncpg.Pool | asyncpg.Connection) -> int | None:
    """Drops what no plan may read: chunks dropped, or None when another runner has the lock."""
    dropped: int | None = await connection.fetchval("SELECT history_retention_run()")
    return dropped


async def chunk_by_chunk(
    pool: asyncpg.Pool | asyncpg.Connection,
    step: Callable[[asyncpg.Connection], Awaitable[T | None]],
    limit: int | None = None,
) -> list[T]:
    """Runs `step` in one transaction after another, so each holds its chunk's lock only
    while it works on that chunk, until it returns None or `limit` steps are done; what the
    steps returned. Rewriting a chunk takes longer than the API's statement timeout."""
    done: list[T] = []
    async with contextlib.AsyncExitStack() as stack:
        connection = (
            await stack.enter_async_context(pool.acquire())
            if isinstance(pool, asyncpg.Pool)
            else pool
        )
        while limit is None or len(done) < limit:
            async with connection.transaction():
                await connection.execute("SET LOCAL statement_timeout = 0")
                result = await step(connection)
            if result is None:
                return done
            done.append(result)
    return done


async def pack_closed_weeks(
    pool: asyncpg.Pool | asyncpg.Connection, closed_for_s: float, limit: int | None = None
) -> int:
    """Packs raw chunks closed for `closed_for_s`, one per transaction; how many."""

    async def pack_one(connection: asyncpg.Connection) -> int | None:
        # Waiting for a chunk's lock must not stall the reads queued behind it, so a busy
        # chunk is left for the next run.
        await connection.execute("SET LOCAL lock_timeout = '1s'")
        packed: int | None = await connection.fetchval(
            "SELECT pack_closed_chunks(make_interval(secs => $1), 1)", closed_for_s
        )
        return packed or None

    return len(await chunk_by_chunk(pool, pack_one, limit))


async def compact_closed_chunks(
    pool: asyncpg.Pool | asyncpg.Connection, limit: int | None = None
) -> list[str]:
    """CLUSTERs closed chunks one at a time (one lock each); the chunks compacted."""

    async def compact_one(connection: asyncpg.Connection) -> str | None:
        chunk: str | None = await connection.fetchval("SELECT history_compact_next()")
        return chunk

    return await chunk_by_chunk(pool, compact_one, limit)


async def retention_loop(
    pool: asyncpg.Pool,
    first: float,
    every: float,
    quit_event: asyncio.Event,
    compact_chunks: bool = True,
    pack_after_s: float = 3600.0,
) -> None:
    """Runs the job `first` seconds from now, then every `every` seconds, until `quit_event`.
    A run that fails is tried again at the next interval; an unreachable database ends the
    loop with its exception (the election logs the outage and starts it again)."""
    if await wait_for(quit_event, first):
        return
    compact = False  # from the second run on: a server started for a short job stays light
    while True:
        try:
            if compact and pack_after_s > 0:
                packed = await pack_closed_weeks(pool, pack_after_s)
                if packed:
                    log.info("packed %d closed chunks of raw readings", packed)
            dropped = await run_retention(pool)
            if dropped:
                log.info("retention dropped %d chunks", dropped)
            if compact and compact_chunks:
                for chunk in await compact_closed_chunks(pool, limit=COMPACT_PER_RUN):
                    log.info("compacted closed chunk %s", chunk)
            compact = True
        except asyncpg.PostgresError as error:
            if is_unavailable(error):
                raise
            log.exception("retention run failed; retrying at the next interval")
        if await wait_for(quit_event, every):
            return


async def run_retention_job(pool: asyncpg.Pool, settings: Settings, stop: asyncio.Event) -> None:
    """Until `stop`: the one retention loop across all workers and instances."""

    async def work(quit_event: asyncio.Event) -> None:
        await retention_loop(
            pool,
            FIRST_RUN_AFTER_S,
            EVERY_S,
            quit_event,
            settings.compact_chunks,
            settings.pack_after_s,
        )

    await run_exclusively(settings, ELECTION, work, stop)
