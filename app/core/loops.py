"""A singleton loop: its signature, how long it has to stop, and running one alone.

`telemetry serve` runs the enabled loops beside the API under one election
(app/background.py); `telemetry webhooks dispatch`, `telemetry ingest mqtt` and
`telemetry dispatch` run one of them alone (`run_alone`). The areas that own a loop and
its command import this module, not app/background.py, which imports them.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Callable, Coroutine
from typing import Any

import asyncpg

from app.core.config import Settings, settings
from app.core.db import close_pool, create_pool

Loop = Callable[[asyncpg.Pool, Settings, asyncio.Event], Coroutine[Any, Any, None]]
STOP_WITHIN_S = 15.0


async def run_alone(loop: Loop) -> None:
    """One loop in this process until SIGINT or SIGTERM."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    pool = await create_pool(settings())
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set)
    try:
        await loop(pool, settings(), stop)
    finally:
        await close_pool(pool, STOP_WITHIN_S)
