"""Runs the consumers of every integration with an MQTT broker: inside `telemetry serve`
(every worker tries, one per integration wins the advisory lock) and alone as
`telemetry ingest mqtt`. Integrations added later are found within `DISCOVER_S`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

import asyncpg

from app.core.config import Settings
from app.core.exclusive import run_exclusively, wait_for
from app.core.sql import QUERIES
from app.mqtt.consumer import Consumer, Integration

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
    try:
        while True:
            try:
                rows = await pool.fetch(QUERIES["mqtt.integrations"])
            except Exception as exc:
                log.warning("mqtt: cannot list integrations (%r)", exc)
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
