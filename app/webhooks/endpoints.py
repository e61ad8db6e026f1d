"""Endpoint management behind `telemetry webhooks ...` (integrations.md 1.1).

Operator mistakes raise OperationError (one line on stderr). A secret is returned only
by `create` and `rotate_secret`, to be printed once; nothing here logs one.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec

from app.core.durations import parse_short_duration
from app.core.sql import QUERIES
from app.ops.admin import OperationError, parse_id
from app.webhooks import safety
from app.webhooks.signing import new_secret

EVENT_TYPES: tuple[str, ...] = (
    "device.uplink",
    "device.status",
    "device.joined",
    "device.location",
    "device.alert.raised",
    "device.alert.cleared",
    "device.offline",
    "device.online",
    "downlink.queued",
    "downlink.submitted",
    "downlink.sent",
    "downlink.acknowledged",
    "downlink.nacked",
    "downlink.failed",
    "downlink.expired",
    "webhook.test",
)


class EndpointRow(msgspec.Struct, frozen=True):
    """One line of `webhooks list`."""

    id: uuid.UUID
    state: str
    url: str
    owner: str
    delivered: int
    pending: int
    failed: int
    oldest_pending_s: float | None

    def line(self) -> str:
        oldest = "-" if self.oldest_pending_s is None else f"{self.oldest_pending_s:.0f}s"
        return (
            f"{self.id} {self.state} {self.url} {self.owner} delivered={self.delivered} "
            f"pending={self.pending} failed={self.failed} oldest_pending={oldest}"
        )


def parse_types(text: str | None) -> list[str] | None:
    if text is None:
        return None
    types = [t.strip() for t in text.split(",") if t.strip()]
    unknown = [t for t in types if t not in EVENT_TYPES]
    if unknown or not types:
        raise OperationError(
            f"--events: unknown event type {unknown[0]!r} (known: {', '.join(EVENT_TYPES)})"
            if unknown
            else "--events: give at least one event type"
        )
    return list(dict.fromkeys(types))


def parse_overlap(text: str) -> timedelta:
    """`rotate-secret --overlap`: `90s`, `15m`, `24h`, `2d` or plain seconds."""
    try:
        return parse_short_duration(text)
    except ValueError as error:
        raise OperationError(f"--overlap: {error}") from None


async def owner(
    conn: Any, partner_id: str | None, sub_account_id: str | None
) -> tuple[uuid.UUID, uuid.UUID | None]:
    """(partner, sub-account or None) of a new endpoint, checked."""
    if (partner_id is None) == (sub_account_id is None):
        raise OperationError("give exactly one of --partner and --sub-account")
    if sub_account_id is not None:
        sub = parse_id("--sub-account", sub_account_id)
        partner = await conn.fetchval(QUERIES["webhooks.owner_of_sub_account"], sub)
        if partner is None:
            raise OperationError(f"no sub-account {sub}")
        return partner, sub
    assert partner_id is not None
    partner = parse_id("--partner", partner_id)
    if not await conn.fetchval(QUERIES["webhooks.partner_exists"], partner):
        raise OperationError(f"no partner {partner}")
    return partner, None


async def create(
    conn: Any,
    *,
    partner_id: str | None,
    sub_account_id: str | None,
    url: str,
    events: str | None,
    devices: str | None,
    allow_private: bool,
) -> tuple[uuid.UUID, str]:
    """Creates an enabled endpoint; returns its id and its secret (to print once)."""
    partner, sub = await owner(conn, partner_id, sub_account_id)
    try:
        safety.check_url(url, allow_private)
    except safety.Refused as exc:
        reason = "only https URLs" if str(exc) == "refused_scheme" else "not an http(s) URL"
        raise OperationError(f"--url: {reason}: {url}") from None
    types = parse_types(events)
    device_ids = None
    if devices is not None:
        device_ids = [parse_id("--devices", d.strip()) for d in devices.split(",") if d.strip()]
        found = {
            r["id"]
            for r in await conn.fetch(
                QUERIES["webhooks.devices_of_scope"], device_ids, partner, sub
            )
        }
        missing = [d for d in device_ids if d not in found]
        if missing:
            raise OperationError(f"--devices: no device {missing[0]} in this scope")
    endpoint_id = uuid.uuid4()
    secret = new_secret()
    await conn.execute(
        QUERIES["webhooks.insert_endpoint"],
        endpoint_id,
        partner,
        sub,
        url,
        types,
        device_ids,
        secret,
        "enabled",
    )
    return endpoint_id, secret


async def list_endpoints(
    conn: Any, partner_id: str | None, sub_account_id: str | None
) -> list[EndpointRow]:
    partner = parse_id("--partner", partner_id) if partner_id else None
    sub = parse_id("--sub-account", sub_account_id) if sub_account_id else None
    rows = await conn.fetch(QUERIES["webhooks.list_endpoints"], partner, sub)
    return [
        EndpointRow(
            id=r["id"],
            state=r["state"],
            url=r["url"],
            owner=(
                f"sub-account={r['sub_account_id']}"
                if r["sub_account_id"]
                else f"partner={r['partner_id']}"
            ),
            delivered=r["delivered"],
            pending=r["pending"],
            failed=r["failed"],
            oldest_pending_s=(
                None if r["oldest_pending_s"] is None else float(r["oldest_pending_s"])
            ),
        )
        for r in rows
    ]


async def _require(conn: Any, endpoint_id: uuid.UUID) -> str:
    state: str | None = await conn.fetchval(QUERIES["webhooks.endpoint_state"], endpoint_id)
    if state is None:
        raise OperationError(f"no webhook endpoint {endpoint_id}")
    return state


async def set_enabled(conn: Any, endpoint_text: str, enabled: bool) -> None:
    endpoint_id = parse_id("endpoint", endpoint_text)
    await _require(conn, endpoint_id)
    query = "webhooks.enable_endpoint" if enabled else "webhooks.disable_endpoint"
    await conn.execute(QUERIES[query], endpoint_id)


async def rotate_secret(conn: Any, endpoint_text: str, overlap: timedelta) -> tuple[str, datetime]:
    """A new secret (to print once); the old one signs too until the returned time."""
    endpoint_id = parse_id("endpoint", endpoint_text)
    await _require(conn, endpoint_id)
    secret = new_secret()
    until = datetime.now(UTC) + overlap
    await conn.execute(QUERIES["webhooks.rotate_secret"], endpoint_id, secret, until)
    return secret, until


async def send_test(conn: Any, endpoint_text: str) -> str:
    endpoint_id = parse_id("endpoint", endpoint_text)
    await _require(conn, endpoint_id)
    event_id: str = await conn.fetchval(QUERIES["webhooks.emit_test"], endpoint_id)
    return event_id


async def deliveries(conn: Any, endpoint_text: str, failed: bool, limit: int) -> list[str]:
    endpoint_id = parse_id("endpoint", endpoint_text)
    await _require(conn, endpoint_id)
    if limit < 1:
        raise OperationError("--limit: must be at least 1")
    rows = await conn.fetch(QUERIES["webhooks.deliveries"], endpoint_id, failed, limit)
    return [
        f"{r['at'].astimezone(UTC).isoformat().replace('+00:00', 'Z')} {r['event_id']} "
        f"{r['status'] if r['status'] is not None else r['error']} {r['latency_ms']}ms"
        for r in rows
    ]


async def redeliver(conn: Any, event_id: str, endpoint_text: str | None) -> list[uuid.UUID]:
    endpoint_id = parse_id("--endpoint", endpoint_text) if endpoint_text else None
    rows = await conn.fetch(QUERIES["webhooks.redeliver"], event_id, endpoint_id)
    if not rows:
        raise OperationError(
            f"no event {event_id} was sent to "
            + (f"endpoint {endpoint_id}" if endpoint_id else "any endpoint")
        )
    return [r["endpoint_id"] for r in rows]


async def recover(conn: Any, endpoint_text: str, since: datetime) -> list[str]:
    endpoint_id = parse_id("endpoint", endpoint_text)
    await _require(conn, endpoint_id)
    rows = await conn.fetch(QUERIES["webhooks.recover"], endpoint_id, since)
    return [r["id"] for r in rows]
