"""Background loops that live as long as a block (a lifespan's tasks, started and ended
once), and how they report a database outage."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Coroutine
from typing import Any


@contextlib.asynccontextmanager
async def running(*loops: Coroutine[Any, Any, Any]) -> AsyncIterator[None]:
    """Runs each coroutine as a task while the block runs; then cancels them and waits until
    each has ended, so nothing of theirs outlives the block (a worker's shutdown)."""
    tasks = [asyncio.create_task(loop) for loop in loops]
    try:
        yield
    finally:
        for task in tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


class Outage:
    """What a background loop says about the database: one line when it becomes
    unreachable and one when it is back, however many attempts fail in between (a hung
    or restarting database would otherwise fill the log with one traceback per try)."""

    def __init__(self, log: logging.Logger, name: str) -> None:
        self.log = log
        self.name = name
        self.since: float | None = None

    def failed(self, error: BaseException) -> None:
        if self.since is None:
            self.since = time.monotonic()
            self.log.warning(
                "%s: the database is unavailable (%r); retrying until it is back", self.name, error
            )
        else:
            self.log.debug("%s: still no database (%r)", self.name, error)

    def ended(self) -> None:
        if self.since is not None:
            self.log.info(
                "%s: the database is back after %.1f s", self.name, time.monotonic() - self.since
            )
            self.since = None
