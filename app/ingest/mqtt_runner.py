"""Runs the consumers of every integration with an MQTT broker: inside `telemetry serve`
(every worker contends, and the election of app/core/exclusive.py lets one consumer per
integration run) and alone as `telemetry ingest mqtt`. Integrations added later are found
within `DISCOVER_S`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

import asyncpg

from app.core.config import Settings
from app.core.errors import is_unavailable
from app.core.exclusive import run_exclusively, wait_for
from app.core.sql import QUERIES
from app.core.tasks import Outage
from app.ingest.mqtt_consumer import Consumer, Integration

log = logging.getLogger("telemetry.mqtt")

DISCOVER_S = 10.0


async def consume(pool: asyncpg.Pool, integration: Integration, quit_event: asyncio.Event) -> None:
    consumer = Consumer(pool, integration)
    consumer.start()
    try:
        await quit_event.wait()
    finally:
        await consumer.stop()


def _consumer(
    pool: asyncpg.Pool, integration: Integration
) -> Callable[[asyncio.Event], Coroutine[Any, Any, None]]:
    async def work(quit_event: asyncio.Event) -> None:
        await consume(pool, integration, quit_event)

    return work


async def run_mqtt(pool: asyncpg.Pool, settings: Settings, stop: asyncio.Event) -> None:
    """Until `stop`: one exclusive consumer per MQTT integration."""
    running: dict[str, asyncio.Task[None]] = {}
    outage = Outage(log, "mqtt")
    try:
        while True:
            try:
                rows = await pool.fetch(QUERIES["ingest.mqtt_integrations"])
                outage.ended()
            except Exception as exc:
                if not is_unavailable(exc):
                    raise
                outage.failed(exc)
                rows = []
            for row in rows:
                key = str(row["id"])
                if key in running:
                    continue
                work = _consumer(pool, Integration(row))
                running[key] = asyncio.create_task(
                    run_exclusively(settings, f"mqtt:{key}", work, stop)
                )
            if await wait_for(stop, DISCOVER_S):
                break
    finally:
        await asyncio.gather(*running.values(), return_exceptions=True)
