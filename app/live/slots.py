"""At most 10 open streams per key, across every worker and instance (analytics.md 4).

A stream claims a place in `live_streams` (schema/140-live-streams.sql) before its first
byte, with a lease of LEASE_S; the worker renews the leases of its open streams every
RENEW_EVERY_S in one statement, and frees a place as its stream ends. A place whose
worker died frees itself when its lease runs out: a closed stream's place is free within
LEASE_S whatever happened to it.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid

import asyncpg

from app.core.sql import QUERIES

MAX_STREAMS_PER_KEY = 10
LEASE_S = 5.0
RENEW_EVERY_S = 1.5
CLAIM = QUERIES["live.stream_claim"]
RENEW = QUERIES["live.stream_renew"]
RELEASE = QUERIES["live.stream_release"]
log = logging.getLogger(__name__)


class StreamSlots:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool
        # stream id -> monotonic time it was claimed, for every place this worker holds.
        self.held: dict[uuid.UUID, float] = {}
        # Places claimed whose stream has begun; one claimed but never begun (its client
        # left before the first byte) is renewed for one lease only.
        self.begun: set[uuid.UUID] = set()

    async def claim(self, key_id: uuid.UUID) -> uuid.UUID | None:
        stream_id = uuid.uuid4()
        if not await self.pool.fetchval(CLAIM, key_id, stream_id, MAX_STREAMS_PER_KEY, LEASE_S):
            return None
        self.held[stream_id] = time.monotonic()
        return stream_id

    def begin(self, stream_id: uuid.UUID) -> None:
        self.begun.add(stream_id)

    async def release(self, stream_id: uuid.UUID) -> None:
        self.held.pop(stream_id, None)
        self.begun.discard(stream_id)
        try:
            await self.pool.execute(RELEASE, stream_id)
        except (asyncpg.PostgresError, OSError) as error:
            log.warning("streams: place not freed (its lease will run out): %s", error)

    async def run(self) -> None:
        """Renews the leases of this worker's open streams."""
        while True:
            await asyncio.sleep(RENEW_EVERY_S)
            cutoff = time.monotonic() - LEASE_S
            for stream_id, claimed in list(self.held.items()):
                if stream_id not in self.begun and claimed < cutoff:
                    del self.held[stream_id]
            if not self.held:
                continue
            try:
                await self.pool.execute(RENEW, list(self.held), LEASE_S)
            except (asyncpg.PostgresError, OSError) as error:
                log.warning("streams: leases not renewed: %s", error)
