"""Choosing a template and putting downlinks into the per-device queue (decisions D13).

The per-device rate (`devices.downlink_rate_per_hour` items per rolling hour) is checked
with the device rows locked `FOR UPDATE`: two concurrent sends to one device queue one
after the other, and the second one counts the first. The window is counted in a
statement after the lock, so under READ COMMITTED it sees what the first one committed.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import asyncpg
import msgspec

from app.core.api import parse_uuid
from app.core.errors import ApiError, invalid_body
from app.core.sql import QUERIES
from app.downlinks.structs import SendDownlink


class Template(msgspec.Struct, frozen=True):
    id: uuid.UUID
    profile_id: uuid.UUID
    key: str
    name: str
    f_port: int
    confirmed: bool
    layout: list[dict[str, Any]]
    sample_data: dict[str, Any]


class Planned(msgspec.Struct, frozen=True):
    """One downlink to queue: the device, the template, the bytes, the request's TTL."""

    device_num: int
    template: Template
    payload: bytes
    ttl_seconds: int | None


class Outcome(msgspec.Struct, frozen=True):
    """A queued item (`queue_item_id` set) or a rate-limited device (`retry_after` set)."""

    queue_item_id: uuid.UUID | None = None
    expires_at: datetime | None = None
    retry_after: int | None = None


def require_reference(body: SendDownlink) -> uuid.UUID | None:
    """Checks that the body names a template; returns the parsed templateId, if any."""
    if body.key is None and body.template_id is None:
        raise invalid_body("key", "one of key or templateId is required")
    if body.template_id is None:
        return None
    wanted = parse_uuid(body.template_id)
    if wanted is None:
        raise invalid_body("templateId", "no such downlink template")
    return wanted


def find_template(
    templates: Sequence[Template], body: SendDownlink, template_id: uuid.UUID | None
) -> Template | str:
    """The one template named by key and/or templateId, or why there is none."""
    by_id = next((t for t in templates if t.id == template_id), None) if template_id else None
    by_key = next((t for t in templates if t.key == body.key), None) if body.key else None
    if template_id is not None and by_id is None:
        return "templateId"
    if body.key is not None and by_key is None:
        return "key"
    if by_id is not None and by_key is not None and by_id.id != by_key.id:
        return "mismatch"
    chosen = by_id or by_key
    assert chosen is not None
    return chosen


def template_error(reason: str) -> ApiError:
    """400 `invalid_body` for a reason of `find_template`."""
    if reason == "mismatch":
        return invalid_body("templateId", "names a different template than key")
    return invalid_body(reason, "no such downlink template for the device's profile")


def pick_template(
    templates: Sequence[Template], body: SendDownlink, template_id: uuid.UUID | None
) -> Template:
    """Like `find_template`, with 400 `invalid_body` naming the field when none fits."""
    found = find_template(templates, body, template_id)
    if isinstance(found, Template):
        return found
    raise template_error(found)


async def load_templates(
    connection: asyncpg.Pool | asyncpg.Connection, profile_ids: Sequence[uuid.UUID]
) -> list[Template]:
    rows = await connection.fetch(QUERIES["downlinks.profile_templates"], list(profile_ids))
    return [Template(**dict(row)) for row in rows]


async def enqueue(connection: asyncpg.Connection, planned: Sequence[Planned]) -> dict[int, Outcome]:
    """Queues what the devices' hourly windows allow, inside the caller's transaction.

    Returns an outcome per device num; a device that is no longer assigned is left out.
    """
    nums = sorted({item.device_num for item in planned})
    if not nums:
        return {}
    locked = {row["num"] for row in await connection.fetch(QUERIES["downlinks.lock_devices"], nums)}
    windows = {
        row["num"]: row
        for row in await connection.fetch(QUERIES["downlinks.rate_windows"], sorted(locked))
    }
    outcomes: dict[int, Outcome] = {}
    accepted: list[tuple[Planned, int | None]] = []
    for item in planned:
        window = windows.get(item.device_num)
        if window is None:
            continue
        if window["retry_after"] is not None:
            outcomes[item.device_num] = Outcome(retry_after=window["retry_after"])
            continue
        ttl = item.ttl_seconds if item.ttl_seconds is not None else window["expiry_seconds"]
        accepted.append((item, ttl))
    if accepted:
        rows = await connection.fetch(
            QUERIES["downlinks.insert_items"],
            [item.device_num for item, _ in accepted],
            [item.template.id for item, _ in accepted],
            [item.template.f_port for item, _ in accepted],
            [item.payload for item, _ in accepted],
            [item.template.confirmed for item, _ in accepted],
            [ttl for _, ttl in accepted],
        )
        for row in rows:
            outcomes[row["device_num"]] = Outcome(
                queue_item_id=row["id"], expires_at=row["expires_at"]
            )
    return outcomes
