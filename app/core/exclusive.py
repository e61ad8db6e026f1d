"""The one election of the work that runs once across all workers and instances: the
webhook dispatcher, the downlink dispatcher, each MQTT integration's consumer and the
retention job (app/background.py starts them). Every worker contends for each; whoever
holds the task's PostgreSQL advisory lock does it, the others wait their turn.

The lock is session-level, on a connection of its own straight to the primary
(`DATABASE_LISTEN_URL` when set, app/core/db.py's `connect_listener`): through a
transaction-pooling PgBouncer a session lock would stay on a server connection that other
clients then share, so it would never be released and could be "taken" twice. So it is
released the moment its holder dies (kill -9 included) and another worker takes it within
`RETRY_S`. The connection is named `telemetry election <pid>` (pg_stat_activity), so an
operator sees which process leads. The holder checks its connection every `CHECK_S`; when
it is lost, the work is stopped at once, since the lock may already belong to someone
else. A database outage is one log line when it starts and one when it ends
(`Outage`), not a line per attempt.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable, Coroutine
from typing import Any

import asyncpg

from app.core.config import Settings
from app.core.db import close_connection, connect_listener
from app.core.errors import is_unavailable
from app.core.tasks import Outage

log = logging.getLogger("telemetry.exclusive")

LOCK_CLASS = 15_015
RETRY_S = 2.0
CHECK_S = 2.0
TRY_LOCK = "SELECT pg_try_advisory_lock($1, hashtext($2))"

Work = Callable[[asyncio.Event], Coroutine[Any, Any, None]]


async def wait_for(event: asyncio.Event, seconds: float) -> bool:
    """Waits at most `seconds` for `event`; True when it is set."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(event.wait(), seconds)
    return event.is_set()


async def run_exclusively(settings: Settings, name: str, work: Work, stop: asyncio.Event) -> None:
    """Runs `work(quit)` while holding the lock `name`, until `stop` is set. `work` must
    return soon after `quit` is set (stop, or the lock's connection lost); when it ends by
    itself or fails, the lock is given up and contended for again after `RETRY_S`."""
    outage = Outage(log, name)
    while not stop.is_set():
        try:
            connection = await connect_listener(
                settings, application_name=f"telemetry election {os.getpid()}"
            )
        except Exception as error:
            _failed(outage, name, error)
            await wait_for(stop, RETRY_S)
            continue
        try:
            # A standby keeps its connection and tries again every RETRY_S.
            while not stop.is_set():
                if await connection.fetchval(TRY_LOCK, LOCK_CLASS, name):
                    await _hold(connection, settings, name, work, stop, outage)
                    break
                outage.ended()
                await wait_for(stop, RETRY_S)
        except Exception as error:
            _failed(outage, name, error)
        finally:
            await close_connection(connection, RETRY_S)
        await wait_for(stop, RETRY_S)


async def _hold(
    connection: asyncpg.Connection,
    settings: Settings,
    name: str,
    work: Work,
    stop: asyncio.Event,
    outage: Outage,
) -> None:
    """Runs the work while the lock's connection answers; raises when it stops answering.
    An outage has ended once the work has run a check's interval without failing."""
    log.info("%s: running here", name)
    quit_event = asyncio.Event()
    task = asyncio.create_task(work(quit_event))
    try:
        while not task.done() and not await wait_for(stop, CHECK_S):
            await connection.fetchval("SELECT 1", timeout=settings.db_command_timeout_s)
            if not task.done():
                outage.ended()
    finally:
        quit_event.set()
        try:
            await task
        except Exception as error:
            _failed(outage, name, error)


def _failed(outage: Outage, name: str, error: BaseException) -> None:
    """A database outage is logged once (`outage`); anything else is a fault worth its
    traceback."""
    if is_unavailable(error):
        outage.failed(error)
    else:
        log.error("%s: failed; starting over", name, exc_info=error)
