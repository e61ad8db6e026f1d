"""Background loops that live as long as a block: a lifespan's tasks, started and ended once."""

from __future__ import annotations

import asyncio
import contextlib
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
