"""Per-worker cache of `/latest` answers: (tenancy, device reference) -> stored body, ETag.

Dashboards poll `/latest` with `If-None-Match`; with this cache a 304 (and a 200 of a
stored body) needs no database round trip. Entries are dropped when PostgreSQL notifies
`latest_changed` with the device's num (triggers of schema/051-latest-cache.sql, at
commit of a new stored body or of a change of the device's status or tenancy). The
cache lives and dies with the worker's listening connection (app/core/listener.py): it
is flushed and bypassed while that connection is down. Only found, assigned devices with a
stored body are cached; everything else is read from the database each time.
"""

from __future__ import annotations

import uuid
from typing import Any

from app.core.listener import Listener

CHANNEL = "latest_changed"
MAX_ENTRIES = 100_000

LatestKey = tuple[uuid.UUID, uuid.UUID | None, uuid.UUID | None, str | None]


class LatestCache:
    def __init__(self, listener: Listener) -> None:
        self.listener = listener
        listener.subscribe(CHANNEL, self.notified, self.clear)
        self.entries: dict[LatestKey, tuple[int, bytes, str]] = {}
        self.by_num: dict[int, list[LatestKey]] = {}
        self.generation = 0

    def get(self, key: LatestKey) -> tuple[int, bytes, str] | None:
        return self.entries.get(key)

    def put(self, key: LatestKey, device_num: int, body: bytes, etag: str, generation: int) -> None:
        """Keeps an answer read while no notification came (else it may predate one)."""
        if generation != self.generation:
            return
        if len(self.entries) >= MAX_ENTRIES:
            self.clear()
        self.entries[key] = (device_num, body, etag)
        self.by_num.setdefault(device_num, []).append(key)

    def notified(self, payload: str) -> None:
        self.generation += 1
        if payload == "*" or not payload.isdigit():
            self.clear()
            return
        for key in self.by_num.pop(int(payload), ()):
            self.entries.pop(key, None)

    def clear(self) -> None:
        self.generation += 1
        self.entries.clear()
        self.by_num.clear()


def current_latest_cache(app: Any) -> LatestCache | None:
    """The worker's /latest cache while it may serve; None means read the database."""
    cache: LatestCache | None = getattr(app.state, "latest_cache", None)
    if cache is None or not cache.listener.active:
        return None
    return cache
