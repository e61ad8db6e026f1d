"""Group commit for live uplinks: the uplinks that arrive while earlier ones are being
committed are stored together, in one transaction and one round trip (`ingest_uplinks`).

A request still gets its answer only after its own uplink is committed, and a lone uplink
is sent at once (no waiting for company): batches form only under load, where they save a
commit flush and most of the per-statement cost of the readings per uplink. A batch that
fails as a whole (for instance chosen as a deadlock victim) is retried uplink by uplink,
so one bad uplink never takes others down with it.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import asyncpg

from app.core.sql import QUERIES
from app.telemetry.catalog import DeviceContext
from app.telemetry.pipeline import Uplink, store_uplink, uplink_arguments
from app.webhooks.nudge import nudger_for

log = logging.getLogger("telemetry.ingest")

INGEST_UPLINKS = QUERIES["telemetry.ingest_uplinks"]
MAX_BATCH = 32
MAX_IN_FLIGHT = 4

Item = tuple[DeviceContext, Uplink, "bytes | None", "asyncio.Future[str]"]


def batch_arguments(items: list[tuple[DeviceContext, Uplink, bytes | None]]) -> tuple[Any, ...]:
    """The arguments of `ingest_uplinks` for uplinks already sorted by device and time."""
    columns: list[list[Any]] = [[] for _ in range(26)]
    (
        token_hash,
        partner,
        device,
        dedup,
        time,
        values,
        derived,
        static,
        static_derived,
        has_derived,
        retain,
        signal,
        battery,
        gateways,
        rule_uplink,
        rule_ids,
        rule_fields,
        rule_breaks,
        rule_levels,
        num_uplink,
        num_fields,
        num_values,
        other_uplink,
        other_fields,
        other_values,
        meta,
    ) = columns
    for index, (context, uplink, token) in enumerate(items, start=1):
        a = uplink_arguments(context, uplink, token)
        token_hash.append(a[0])
        partner.append(a[1])
        device.append(a[2])
        dedup.append(a[3])
        time.append(a[4])
        num_uplink.extend([index] * len(a[5]))
        num_fields.extend(a[5])
        num_values.extend(a[6])
        other_uplink.extend([index] * len(a[7]))
        other_fields.extend(a[7])
        other_values.extend(a[8])
        values.append(a[9])
        derived.append(a[10])
        static.append(a[11])
        static_derived.append(a[12])
        has_derived.append(a[13])
        retain.append(a[14])
        signal.append(a[15])
        battery.append(a[16])
        gateways.append(a[17])
        rule_uplink.extend([index] * len(a[18]))
        rule_ids.extend(a[18])
        rule_fields.extend(a[19])
        rule_breaks.extend(a[20])
        rule_levels.extend(a[21])
        meta.append(a[22])
    return tuple(columns)


class Batcher:
    """One per worker process and event loop."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool
        self.pending: list[Item] = []
        self.in_flight = 0

    async def store(self, context: DeviceContext, uplink: Uplink, token: bytes | None) -> str:
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.pending.append((context, uplink, token, future))
        if self.in_flight < MAX_IN_FLIGHT:
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
            arguments = batch_arguments([(c, u, t) for c, u, t, _ in batch])
            outcomes = await self.pool.fetchval(INGEST_UPLINKS, *arguments)
        except Exception as exc:
            if len(batch) > 1:
                log.warning("batch of %d uplinks failed (%r); storing one by one", len(batch), exc)
            await self._one_by_one(batch)
            return
        if "stored" in outcomes:
            nudger_for(self.pool).nudge()  # ingest_uplinks deferred its NOTIFY
        for (_, _, _, future), outcome in zip(batch, outcomes, strict=True):
            if not future.done():
                future.set_result(outcome)

    async def _one_by_one(self, batch: list[Item]) -> None:
        for context, uplink, token, future in batch:
            if future.done():
                continue
            try:
                future.set_result(await store_uplink(self.pool, context, uplink, token))
            except Exception as exc:
                future.set_exception(exc)


_batchers: dict[int, Batcher] = {}


def batcher_for(pool: asyncpg.Pool) -> Batcher:
    batcher = _batchers.get(id(pool))
    if batcher is None or batcher.pool is not pool:
        batcher = _batchers[id(pool)] = Batcher(pool)
    return batcher
