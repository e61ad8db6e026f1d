"""The delivery states of a queued downlink (integrations.md section 3), changed in ONE place.

queued -> submitted (ChirpStack returned its queue item id) -> sent (`txack`) ->
acknowledged / nacked (`ack`, confirmed downlinks); failed (a refusal, or a `log` event
of a downlink error); expired (`expiresAt` passed before `sent`).

Every change after `queued` goes through `transition`, which only moves an item out of the
states its target may follow, so events that arrive twice or late change nothing.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import asyncpg

from app.core.sql import QUERIES

TRANSITION = QUERIES["downlinks.transition"]

# The states each target state may be entered from.
FROM_STATES: dict[str, tuple[str, ...]] = {
    "submitted": ("queued",),
    "sent": ("submitted",),
    "acknowledged": ("submitted", "sent"),
    "nacked": ("submitted", "sent"),
    "failed": ("queued", "submitted", "sent"),
    "expired": ("queued", "submitted"),
}


async def transition(
    connection: asyncpg.Connection | asyncpg.Pool,
    item_id: uuid.UUID,
    status: str,
    *,
    network_id: str | None = None,
    f_cnt_down: int | None = None,
    error: str | None = None,
    at: datetime | None = None,
) -> Any:
    """Moves one item to `status`; returns the changed row, or None when the item was not
    in a state that may lead there (already further along, or gone)."""
    row = await connection.fetchrow(
        TRANSITION,
        item_id,
        status,
        network_id,
        f_cnt_down,
        error,
        at or datetime.now(UTC),
        list(FROM_STATES[status]),
    )
    # Webhooks (issue 14): a changed row is where `downlink.<status>` is written to the
    # outbox, in the caller's transaction: devEui, queueItemId, status, fPort, fCntDown,
    # error. Nothing else changes a downlink's state.
    return row
