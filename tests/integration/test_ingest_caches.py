"""The ingest caches keep their recent entries when full (issue 28, item 6).

Before cachetools.TTLCache, the entry after the 50,000th emptied the whole cache: every
device of a fleet above the bound missed at once and read its context again.
"""

from __future__ import annotations

import uuid

import asyncpg

from app.profiles.contexts import MAX_ENTRIES, DeviceContexts


async def test_a_full_context_cache_drops_only_its_least_recent_entry(pool: asyncpg.Pool) -> None:
    contexts = DeviceContexts()
    partner, profile = uuid.uuid4(), uuid.uuid4()  # an unknown profile: an empty catalog
    for num in range(MAX_ENTRIES + 1):
        row = {
            "num": num,
            "id": uuid.UUID(int=num),
            "partner_id": partner,
            "profile_id": profile,
            "static_values": None,
            "calibration": None,
        }
        await contexts.of_row(pool, row)
    assert contexts.cached(0) is None
    newest = contexts.cached(MAX_ENTRIES - 1)
    assert newest is not None and newest.id == uuid.UUID(int=MAX_ENTRIES - 1)
