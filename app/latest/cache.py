"""Per-worker cache of `/latest` answers: (tenancy, device reference) -> stored body, ETag.

Dashboards poll `/latest` with `If-None-Match`; with this cache a 304 (and a 200 of a
stored body) needs no database round trip. An entry is dropped when PostgreSQL notifies
`latest_changed` with the device's num (triggers of schema/definitions/020-latest.sql, at
commit of a new stored body or of a change of the device's status or tenancy): that
covers every app instance, a little after the commit. Within one `serve` instance a new
body is seen at once: each entry keeps the device's slot of the generation table
(app/latest/generations.py) as read before the database read it came from, and a hit
whose slot has changed since (an ingest worker bumps it after its commit, before its 204)
is a miss. A device's num is known only after its first read, so a reference is cached
from its second miss on.

The cache lives and dies with the worker's listening connection (app/core/listener.py): it
is flushed and bypassed while that connection is down. Only found, assigned devices with a
stored body are cached; everything else is read from the database each time.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from app.core.listener import Listener
from app.latest.generations import Generations

CHANNEL = "latest_changed"
MAX_ENTRIES = 100_000
# When each device last changed, for reads from standbys (app/core/routing.py); a change
# older than this is on every standby fresh enough to be read.
CHANGES_KEPT_S = 60.0

LatestKey = tuple[uuid.UUID, uuid.UUID | None, uuid.UUID | None, str | None]
# Taken before a database read: the notification generation, the device's num (None while
# unknown) and the value of its generation slot.
ReadMark = tuple[int, int | None, int]


class LatestCache:
    def __init__(self, listener: Listener, generations: Generations) -> None:
        self.listener = listener
        self.generations = generations
        listener.subscribe(CHANNEL, self.notified, self.clear)
        # key -> (device num, its generation slot's value, body, etag)
        self.entries: dict[LatestKey, tuple[int, int, bytes, str]] = {}
        self.by_num: dict[int, list[LatestKey]] = {}
        # The device num of each reference read (a device id's never changes; a DevEUI's
        # is checked against the read before anything is cached).
        self.nums: dict[LatestKey, int] = {}
        self.generation = 0
        # Read by the metrics (app/observe/metrics.py) as the cache's hit ratio.
        self.hits = 0
        self.misses = 0
        self.changed_at: dict[int, float] = {}
        self.cleared_at = -float("inf")

    def get(self, key: LatestKey) -> tuple[bytes, str] | None:
        found = self.entry(key)
        return None if found is None else (found[1], found[2])

    def entry(self, key: LatestKey, count_miss: bool = True) -> tuple[int, bytes, str] | None:
        """`get` with the device's num (fleet latest and the stream follow devices by num).
        `count_miss=False`: a miss is not counted, the caller passing the request on to a
        path that looks it up again (app/latest/lean.py)."""
        entry = self.entries.get(key)
        if entry is None or self.generations.read(entry[0]) != entry[1]:
            if count_miss:
                self.misses += 1
            return None
        self.hits += 1
        return entry[0], entry[2], entry[3]

    def mark(self, key: LatestKey) -> ReadMark:
        """To be taken just before the database read whose answer may be `put`."""
        num = self.nums.get(key)
        return self.generation, num, (self.generations.read(num) if num is not None else 0)

    def put(self, key: LatestKey, device_num: int, body: bytes, etag: str, mark: ReadMark) -> None:
        """Keeps an answer read while no notification came and with the device's slot
        known before the read (else it may predate a change)."""
        generation, num, slot = mark
        if len(self.nums) >= MAX_ENTRIES:
            self.nums.clear()
        self.nums[key] = device_num
        if generation != self.generation or num != device_num:
            return
        if len(self.entries) >= MAX_ENTRIES:
            self.clear()
        self.entries[key] = (device_num, slot, body, etag)
        self.by_num.setdefault(device_num, []).append(key)

    def notified(self, payload: str) -> None:
        self.generation += 1
        if payload == "*" or not payload.isdigit():
            self.clear()
            return
        self._changed(int(payload))
        for key in self.by_num.pop(int(payload), ()):
            self.entries.pop(key, None)

    def _changed(self, device_num: int) -> None:
        now = time.monotonic()
        self.changed_at[device_num] = now
        if len(self.changed_at) > MAX_ENTRIES:
            cutoff = now - CHANGES_KEPT_S
            self.changed_at = {n: t for n, t in self.changed_at.items() if t >= cutoff}

    def row_changed_at(self, row: Any) -> float:
        """When the device of a looked-up row last changed, as far as this worker heard."""
        return max(self.changed_at.get(row["device_num"], -float("inf")), self.cleared_at)

    def clear(self) -> None:
        self.generation += 1
        self.cleared_at = time.monotonic()
        self.entries.clear()
        self.by_num.clear()


def current_latest_cache(app: Any) -> LatestCache | None:
    """The worker's /latest cache while it may serve; None means read the database."""
    cache: LatestCache | None = getattr(app.state, "latest_cache", None)
    if cache is None or not cache.listener.active:
        return None
    return cache
