"""Webhook endpoints of a world file (integrations.md 1.1): under a partner or a
sub-account, `webhooks: [{id, url, secret, events, deviceIds, enabled}]`.

They are written after the world's telemetry is replayed, so a world's own history is
not pushed to its own endpoints; telemetry of later worlds and live ingest is.
"""

from __future__ import annotations

import uuid
from typing import Any

from app.core.sql import QUERIES
from app.webhooks import safety
from app.webhooks.endpoints import EVENT_TYPES
from app.webhooks.signing import secret_key
from app.world.errors import fail
from app.world.structs import WebhookSpec


def check_webhooks(
    specs: list[WebhookSpec],
    partner_id: uuid.UUID,
    sub_account_id: uuid.UUID | None,
    path: str,
    claim: Any,
) -> list[tuple[Any, ...]]:
    """The rows of the endpoints, each checked; `claim` reserves an id (duplicates)."""
    rows = []
    for index, spec in enumerate(specs):
        item = f"{path}.webhooks[{index}]"
        claim("webhook_endpoints", spec.id, item)
        # A world is test and demo data: plain http and loopback URLs load, and every
        # attempt refuses them unless TELEMETRY_WEBHOOKS_ALLOW_PRIVATE=1 (safety.py).
        try:
            safety.check_url(spec.url, allow_private=True)
        except safety.Refused:
            raise fail(f"{item}.url", "not an http(s) URL") from None
        try:
            secret_key(spec.secret)
        except ValueError as exc:
            raise fail(f"{item}.secret", str(exc)) from None
        for t_index, event_type in enumerate(spec.events or []):
            if event_type not in EVENT_TYPES:
                raise fail(f"{item}.events[{t_index}]", f"unknown event type {event_type!r}")
        rows.append(
            (
                spec.id,
                partner_id,
                sub_account_id,
                spec.url,
                list(dict.fromkeys(spec.events)) if spec.events is not None else None,
                spec.device_ids,
                spec.secret,
                "enabled" if spec.enabled else "disabled",
            )
        )
    return rows


async def write_webhooks(connection: Any, rows: list[tuple[Any, ...]]) -> None:
    if rows:
        await connection.executemany(QUERIES["webhooks.insert_endpoint"], rows)
