"""The singleton work of `telemetry serve`: the webhook dispatcher (integrations.md 1.3),
the MQTT consumers (2.1), the downlink dispatcher (section 3) and the retention job. Every
worker starts each enabled one, and the one election of app/core/exclusive.py lets one of
each run across all workers and instances. The same loops run alone as
`telemetry webhooks dispatch`, `telemetry ingest mqtt` and `telemetry dispatch`
(app/core/loops.py).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from app.core.config import Settings
from app.core.loops import STOP_WITHIN_S, Loop
from app.downlinks.dispatch import run_dispatcher
from app.history.maintenance import run_retention_job
from app.ingest.mqtt_runner import run_mqtt
from app.webhooks.dispatcher import run_webhooks


def enabled_loops(settings: Settings) -> list[Loop]:
    """The singleton loops the settings switch on."""
    loops: list[Loop] = [run_retention_job]
    if settings.webhook_dispatcher:
        loops.append(run_webhooks)
    if settings.mqtt_ingest:
        loops.append(run_mqtt)
    if settings.downlink_dispatch:
        loops.append(run_dispatcher)
    return loops


@asynccontextmanager
async def background_lifespan(app: Any) -> AsyncIterator[None]:
    """Starts the loops the settings enable (list it after the pool's lifespan)."""
    settings: Settings = app.state.settings
    stop = asyncio.Event()
    tasks = [
        asyncio.create_task(loop(app.state.pool, settings, stop))
        for loop in enabled_loops(settings)
    ]
    try:
        yield
    finally:
        stop.set()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), STOP_WITHIN_S)
