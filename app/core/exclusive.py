"""Background work that runs once across all workers and instances: whoever holds a
PostgreSQL advisory lock does it, the others wait their turn.

The lock is session-level on a connection of its own (to DATABASE_LISTEN_URL when set,
past a transaction-pooling PgBouncer), so it is released the moment its
holder dies (kill -9 included) and another worker takes over within `RETRY_S`. The holder
checks its connection every `CHECK_S`; when it is lost, the work is stopped at once, since
the lock may already belong to someone else.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from app.core.config import Settings
from app.core.db import connect_listener

log = logging.getLogger("telemetry.exclusive")

LOCK_CLASS = 15_015
RETRY_S = 2.0
CHECK_S = 2.0
CHECK_TIMEOUT_S = 5.0


async def wait_for(event: asyncio.Event, seconds: float) -> bool:
    """Waits at most `seconds` for `event`; True when it is set."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(event.wait(), seconds)
    return event.is_set()


async def run_exclusively(
    settings: Settings,
    name: str,
    work: Callable[[asyncio.Event], Coroutine[Any, Any, None]],
    stop: asyncio.Event,
) -> None:
    """Runs `work(quit)` while holding the lock `name`, until `stop` is set. `work` must
    return soon after `quit` is set (stop, or the lock's connection lost)."""
    while not stop.is_set():
        try:
            connection = await connect_listener(settings)
        except Exception as exc:
            log.warning("%s: no database connection (%r); retrying", name, exc)
            await wait_for(stop, RETRY_S)
            continue
        try:
            held = await connection.fetchval(
                "SELECT pg_try_advisory_lock($1, hashtext($2))", LOCK_CLASS, name
            )
            if not held:
                await wait_for(stop, RETRY_S)
                continue
            log.info("%s: running here", name)
            quit_event = asyncio.Event()
            task = asyncio.create_task(work(quit_event))
            try:
                while not task.done() and not await wait_for(stop, CHECK_S):
                    await asyncio.wait_for(connection.fetchval("SELECT 1"), CHECK_TIMEOUT_S)
            except Exception as exc:
                log.warning("%s: lost the lock's connection (%r); stopping", name, exc)
            finally:
                quit_event.set()
                try:
                    await task
                except Exception:
                    log.exception("%s: stopped with an error", name)
            if not stop.is_set():
                await wait_for(stop, RETRY_S)
        except Exception as exc:
            log.warning("%s: %r; retrying", name, exc)
            await wait_for(stop, RETRY_S)
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(connection.close(), 2)
            if not connection.is_closed():
                connection.terminate()
