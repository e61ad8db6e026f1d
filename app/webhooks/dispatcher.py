"""The webhook dispatcher: delivers the outbox (integrations.md 1.3).

Exactly one is active per database: every `telemetry serve` worker (and
`telemetry webhooks dispatch`) contends, and the one elected by app/core/exclusive.py
(the election of every singleton task, straight to the primary past any PgBouncer) leads;
the others wait and take over within seconds when its connection goes. Claims are
leased and taken `FOR UPDATE SKIP LOCKED`, so even two leaders (a lock lost while its
process still runs) never send a message twice at once, and a crashed leader's claimed
messages come due again when their lease ends.

The leader wakes on the NOTIFY of every transaction that wrote events (heard on a direct
connection of its own; batched ingest sends it just after its commit,
app/webhooks/nudge.py), when
an endpoint's claimed batch is half done, and when the next message comes due. It claims
up to 4 x `webhook_concurrency` messages per endpoint at a time, and each endpoint has at
most `webhook_concurrency` attempts under way (a semaphore of its own), so a slow or dead
endpoint holds only its own slots. Results are written in batches (within 20 ms). Once a
second the leader runs the offline ticker (device.offline, webhook_offline_tick); once a
minute it forgets what is older than 30 days (scaled).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import defaultdict
from typing import Any

import asyncpg
import msgspec

from app.core.config import Settings
from app.core.db import close_connection, close_pool, connect_listener, create_pool
from app.core.exclusive import run_exclusively
from app.core.sql import QUERIES
from app.webhooks.client import Client
from app.webhooks.delivery import Job, Result, attempt

log = logging.getLogger("telemetry.webhooks")

ELECTION = "webhooks:dispatch"
CLOSE_S = 2.0  # giving the database its connections back, at most
TICK_S = 1.0
PURGE_S = 60.0
KEEP_S = 30 * 86400.0
DISABLE_AFTER_S = 5 * 86400.0
PREFETCH = 4  # messages claimed per endpoint: this many times its concurrency
FLUSH_S = 0.02  # results wait at most this long for their batch write
FLUSH_AT = 64


class Dispatcher:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.scale = settings.webhook_retry_scale
        self.slots = max(1, settings.webhook_concurrency)
        # Claimed ahead per endpoint; the lease covers the wait for a slot as well.
        self.prefetch = self.slots * PREFETCH
        self.lease_s = settings.webhook_timeout_s * (PREFETCH + 1) + 10.0
        self.gates: dict[str, asyncio.Semaphore] = {}
        self.wake = asyncio.Event()
        self.in_flight: dict[str, int] = defaultdict(int)
        self.tasks: set[asyncio.Task[None]] = set()
        self.results: list[Result] = []

    def _notified(self, *_: Any) -> None:
        self.wake.set()

    async def lead(self, quit_event: asyncio.Event) -> None:
        """Dispatches until `quit_event` is set (the election's work); a database failure
        ends it with its exception, and the election starts it again."""
        listener = await connect_listener(self.settings)
        quitting = asyncio.create_task(quit_event.wait())
        quitting.add_done_callback(self._notified)
        try:
            await listener.add_listener("webhooks", self._notified)
            await self._lead(listener, quit_event)
        finally:
            quitting.cancel()
            await self._abandon()
            await close_connection(listener, CLOSE_S)

    async def _abandon(self) -> None:
        for task in list(self.tasks):
            task.cancel()
        if self.tasks:
            await asyncio.gather(*self.tasks, return_exceptions=True)
        self.tasks.clear()
        self.in_flight.clear()
        self.gates.clear()
        self.results.clear()

    async def _lead(self, listener: asyncpg.Connection, quit_event: asyncio.Event) -> None:
        # Connected on demand (no minimum): a leader elected while the way to DATABASE_URL
        # is down fails at its first claim, and the election reports that outage once.
        pool = await create_pool(
            msgspec.structs.replace(self.settings, pool_min_size=0, pool_max_size=3)
        )
        client = Client()
        try:
            next_tick = 0.0
            next_purge = time.monotonic() + 5.0
            while not quit_event.is_set():
                if listener.is_closed():
                    raise ConnectionError("the listening connection was closed")
                self.wake.clear()
                claimed = await self._claim(pool, client)
                await self._flush(pool)
                now = time.monotonic()
                if now >= next_tick:
                    found = await pool.fetchval(QUERIES["webhooks.offline_tick"], 5000)
                    if found:
                        log.info("offline ticker: %d devices went offline", found)
                    next_tick = now + TICK_S
                if now >= next_purge:
                    await pool.fetchval(QUERIES["webhooks.purge"], KEEP_S * self.scale)
                    next_purge = now + PURGE_S
                if claimed:
                    continue
                wait = min(TICK_S, max(0.0, next_tick - time.monotonic()))
                if self.results:
                    wait = min(wait, FLUSH_S)
                full = [e for e, n in self.in_flight.items() if n > self.prefetch // 2]
                due = await pool.fetchval(QUERIES["webhooks.next_due"], full)
                if due is not None:
                    wait = min(wait, max(0.0, due.timestamp() - time.time()))
                if wait > 0:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self.wake.wait(), wait)
        finally:
            await self._abandon()
            client.close()
            await close_pool(pool, CLOSE_S)

    async def _claim(self, pool: asyncpg.Pool, client: Client) -> int:
        """Claims up to `prefetch` messages per endpoint, topping up only endpoints that are
        at most half full, so that a steady stream costs one claim per half batch."""
        half = self.prefetch // 2
        busy = [(e, 0 if n > half else self.prefetch - n) for e, n in self.in_flight.items()]
        rows = await pool.fetch(
            QUERIES["webhooks.claim"],
            [e for e, _ in busy],
            [s for _, s in busy],
            self.prefetch,
            self.lease_s,
        )
        for row in rows:
            secrets = [row["secret"]]
            if row["previous_secret"]:
                secrets.append(row["previous_secret"])
            job = Job(
                event_num=row["event_num"],
                endpoint_id=str(row["endpoint_id"]),
                attempts=row["attempts"],
                event_id=row["event_id"],
                body=row["body"].encode(),
                url=row["url"],
                secrets=secrets,
            )
            self.in_flight[job.endpoint_id] += 1
            task = asyncio.get_running_loop().create_task(self._deliver(client, job))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
        return len(rows)

    async def _deliver(self, client: Client, job: Job) -> None:
        gate = self.gates.get(job.endpoint_id)
        if gate is None:
            gate = self.gates[job.endpoint_id] = asyncio.Semaphore(self.slots)
        try:
            async with gate:
                result = await attempt(
                    client,
                    job,
                    timeout_s=self.settings.webhook_timeout_s,
                    scale=self.scale,
                    allow_private=self.settings.webhooks_allow_private,
                )
            self.results.append(result)
        finally:
            left = self.in_flight[job.endpoint_id] = self.in_flight[job.endpoint_id] - 1
            if left <= 0:
                del self.in_flight[job.endpoint_id]
                self.gates.pop(job.endpoint_id, None)
            if left <= self.prefetch // 2 or len(self.results) >= FLUSH_AT:
                self.wake.set()

    async def _flush(self, pool: asyncpg.Pool) -> None:
        if not self.results:
            return
        batch, self.results = self.results, []
        await pool.execute(
            QUERIES["webhooks.attempts_done"],
            [r.event_num for r in batch],
            [r.endpoint_id for r in batch],
            [r.at for r in batch],
            [r.status for r in batch],
            [r.error for r in batch],
            [r.latency_ms for r in batch],
            [r.response for r in batch],
            [r.result for r in batch],
            [r.next_at for r in batch],
            [r.give_up for r in batch],
            DISABLE_AFTER_S * self.scale,
        )


async def run_webhooks(_: asyncpg.Pool, settings: Settings, stop: asyncio.Event) -> None:
    """Until `stop`: the one webhook dispatcher across all workers and instances (it uses a
    small pool of its own, so that deliveries never wait for the API's connections)."""
    await run_exclusively(settings, ELECTION, Dispatcher(settings).lead, stop)
