"""Group commit for live uplinks: the uplinks that arrive while earlier ones are being
committed are stored together, in one transaction and one round trip (one call of
`ingest_uplinks`, app.ingest.pipeline.store_uplinks).

A request still gets its answer only after its own uplink is committed, and a lone uplink
is sent at once (no waiting for company): batches form only under load, where they save a
commit flush and most of the per-statement cost of the readings per uplink. A worker has
one batch in flight, and a second only while a full batch (MAX_BATCH) waits: a batch costs
the database about 0.9 ms whatever its size plus about 0.1 ms per uplink, so at 64
connections four batches in flight per worker (about 5 uplinks each) cost 30% more CPU
per uplink than one (about 14 each), for no more throughput. A batch that
fails as a whole (for instance chosen as a deadlock victim) is retried uplink by uplink,
so one bad uplink never takes others down with it. After a commit that stored uplinks
of a partner with a webhook endpoint the worker wakes the webhook dispatcher
(app/webhooks/nudge.py), since `ingest_uplinks` defers its NOTIFY past the commit. The
same statement says whether there is such a partner: without one no event was queued,
and a nudge would only cost a round trip and a wasted claim by the dispatcher (12% of a
worker's time under ingest load, with no endpoint at all).
"""

from __future__ import annotations

import asyncio
import logging

import asyncpg

from app.core.db import PerPool
from app.core.errors import is_unavailable
from app.ingest.pipeline import Outcome, Uplink, store_uplink, store_uplinks, uplink_record
from app.profiles.contexts import DeviceContext
from app.webhooks.nudge import nudger_for

log = logging.getLogger("telemetry.ingest")

MAX_BATCH = 32
MAX_IN_FLIGHT = 2

Item = tuple[DeviceContext, Uplink, "bytes | None", "asyncio.Future[Outcome]"]


class Batcher:
    """One per worker process and event loop."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool
        self.pending: list[Item] = []
        self.in_flight = 0

    async def store(self, context: DeviceContext, uplink: Uplink, token: bytes | None) -> Outcome:
        """Stores the uplink with whatever else is pending; returns once it is committed."""
        future: asyncio.Future[Outcome] = asyncio.get_running_loop().create_future()
        self.pending.append((context, uplink, token, future))
        if self.in_flight == 0 or (
            len(self.pending) >= MAX_BATCH and self.in_flight < MAX_IN_FLIGHT
        ):
            self.in_flight += 1
            asyncio.get_running_loop().create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        try:
            while self.pending:
                batch = self.pending[:MAX_BATCH]
                del self.pending[:MAX_BATCH]
                await self._store(batch)
        finally:
            self.in_flight -= 1

    async def _store(self, batch: list[Item]) -> None:
        batch.sort(key=lambda item: (item[0].num, item[1].time))
        try:
            records = [uplink_record(c, u, t) for c, u, t, _ in batch]
            stored = await store_uplinks(self.pool, records)
        except Exception as exc:
            if is_unavailable(exc):
                # The database cannot be reached: each uplink alone would wait as long again.
                for *_, future in batch:
                    if not future.done():
                        future.set_exception(exc)
                return
            if len(batch) > 1:
                log.warning("batch of %d uplinks failed (%r); storing one by one", len(batch), exc)
            await self._one_by_one(batch)
            return
        outcomes = stored.outcomes
        if stored.webhooks and Outcome.STORED in outcomes:
            nudger_for(self.pool).nudge()  # ingest_uplinks deferred its NOTIFY
        for (_, _, _, future), outcome in zip(batch, outcomes, strict=True):
            if not future.done():
                future.set_result(outcome)

    async def _one_by_one(self, batch: list[Item]) -> None:
        stored = False
        for context, uplink, token, future in batch:
            if future.done():
                continue
            try:
                outcome = await store_uplink(self.pool, context, uplink, token)
            except Exception as exc:
                future.set_exception(exc)
                continue
            stored = stored or outcome is Outcome.STORED
            future.set_result(outcome)
        if stored:
            nudger_for(self.pool).nudge()


# The worker's batcher of a pool.
batcher_for = PerPool(Batcher)
