"""Wakes the dispatcher after batched ingest commits, outside their transactions.

A NOTIFY inside a transaction takes a cluster-wide lock from its commit until the commit
is flushed, so concurrent ingest batches that each notified committed one at a time (the
`webhooks` benchmark: uplinks/s fell to a quarter with an enabled endpoint).
`ingest_uplinks` therefore defers its notification (webhook_emit honours
`telemetry.webhooks_defer_notify`), and the worker sends one itself after the commit, at
most one per NUDGE_S, in a transaction of its own that does not wait for a flush
(`webhook_nudge`). The events are durable before the nudge; a lost nudge only delays
them until the dispatcher's next tick.
"""

from __future__ import annotations

import asyncio
import logging
import time

import asyncpg

from app.core.db import PerPool
from app.core.sql import QUERIES

log = logging.getLogger("telemetry.webhooks")

NUDGE_S = 0.005


class Nudger:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool
        self.scheduled = False
        self.last = 0.0
        self.tasks: set[asyncio.Task[None]] = set()

    def nudge(self) -> None:
        if self.scheduled:
            return
        self.scheduled = True
        delay = max(0.0, self.last + NUDGE_S - time.monotonic())
        asyncio.get_running_loop().call_later(delay, self._start)

    def _start(self) -> None:
        task = asyncio.get_running_loop().create_task(self._send())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _send(self) -> None:
        self.scheduled = False
        self.last = time.monotonic()
        try:
            await self.pool.execute(QUERIES["webhooks.nudge"])
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            log.warning("could not wake the webhook dispatcher (%s); its tick will", exc)


nudger_for = PerPool(Nudger)
