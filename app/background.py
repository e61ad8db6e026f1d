"""The background work of `telemetry serve`: MQTT consumers (integrations.md 2.1) and the
downlink dispatcher (section 3). Every worker starts both; advisory locks let one of each
run across all workers and instances (app/core/exclusive.py). The same loops run alone
as `telemetry ingest mqtt` and `telemetry dispatch` (`run_alone`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from typing import Any

import asyncpg

from app.core.config import Settings, settings
from app.core.db import create_pool
from app.downlinks.dispatch import run_dispatcher
from app.mqtt.runner import run_mqtt

Loop = Callable[[asyncpg.Pool, Settings, asyncio.Event], Coroutine[Any, Any, None]]


@asynccontextmanager
async def network_lifespan(app: Any) -> AsyncIterator[None]:
    """Starts the loops the settings enable (list it after the pool's lifespan)."""
    settings: Settings = app.state.settings
    stop = asyncio.Event()
    loops: list[Loop] = []
    if settings.mqtt_ingest:
        loops.append(run_mqtt)
    if settings.downlink_dispatch:
        loops.append(run_dispatcher)
    tasks = [asyncio.create_task(loop(app.state.pool, settings, stop)) for loop in loops]
    try:
        yield
    finally:
        stop.set()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 15)


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
        await pool.close()
