"""ChirpStack's `txack`, `ack` and `log` events, which walk a submitted downlink through its
states (integrations.md section 3). They arrive on the ingest routes like any other event,
over HTTP (`?event=txack`) and MQTT (the topic's last level).

The item is found by the queue item id ChirpStack gave it, within the token's partner. An
event about an id not stored yet (the network can be faster than the dispatcher's commit,
or the Enqueue answer was lost) is kept and applied when the id is stored
(`apply_early_events`). `log` events other than downlink errors and `EXPIRED` are ignored.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import asyncpg
import msgspec

from app.core.api import normalize_eui
from app.core.chirpstack_events import DeviceInfo, Event, EventDecoder
from app.core.errors import invalid_body, not_found
from app.core.sql import QUERIES
from app.downlinks.states import transition

EVENTS = frozenset({"txack", "ack", "log"})


class TxAckEvent(Event):
    device_info: DeviceInfo
    time: datetime | None = None
    queue_item_id: str = ""
    f_cnt_down: int = 0


class AckEvent(Event):
    device_info: DeviceInfo
    time: datetime | None = None
    queue_item_id: str = ""
    acknowledged: bool = False
    f_cnt_down: int = 0


class LogEvent(Event):
    device_info: DeviceInfo
    time: datetime | None = None
    level: str = "INFO"
    code: str = "UNKNOWN"
    description: str = ""
    context: dict[str, str] = msgspec.field(default_factory=dict)


DECODERS: dict[str, EventDecoder[Any]] = {
    "txack": EventDecoder(TxAckEvent),
    "ack": EventDecoder(AckEvent),
    "log": EventDecoder(LogEvent),
}


class Report(msgspec.Struct, frozen=True):
    """What one event says about one queue item."""

    network_id: str
    kind: str
    at: datetime
    f_cnt_down: int | None = None
    acknowledged: bool | None = None
    code: str | None = None
    description: str = ""


def _report(event: str, parsed: Any) -> Report | None:
    at = parsed.time or datetime.now(UTC)
    if at.tzinfo is None:
        at = at.replace(tzinfo=UTC)
    if event == "log":
        network_id = parsed.context.get("queue_item_id", "")
        if not network_id or not (parsed.code.startswith("DOWNLINK_") or parsed.code == "EXPIRED"):
            return None
        return Report(network_id, "log", at, code=parsed.code, description=parsed.description)
    if not parsed.queue_item_id:
        return None
    if event == "txack":
        return Report(parsed.queue_item_id, "txack", at, f_cnt_down=parsed.f_cnt_down)
    return Report(
        parsed.queue_item_id,
        "ack",
        at,
        f_cnt_down=parsed.f_cnt_down,
        acknowledged=parsed.acknowledged,
    )


async def apply(connection: asyncpg.Connection, item_id: Any, report: Report) -> None:
    """The state change one report makes to its item (none when it is already past it)."""
    if report.kind == "txack":
        await transition(connection, item_id, "sent", f_cnt_down=report.f_cnt_down, at=report.at)
    elif report.kind == "ack":
        status = "acknowledged" if report.acknowledged else "nacked"
        await transition(connection, item_id, status, f_cnt_down=report.f_cnt_down, at=report.at)
    elif report.code == "EXPIRED":
        await transition(connection, item_id, "expired", error="EXPIRED", at=report.at)
    else:
        error = f"{report.code}: {report.description}" if report.description else report.code
        await transition(connection, item_id, "failed", error=error, at=report.at)


async def apply_early_events(
    connection: asyncpg.Connection, item_id: Any, device_num: int, network_id: str
) -> None:
    """Applies, in order, what the network reported about `network_id` before it was stored."""
    rows = await connection.fetch(QUERIES["downlinks.take_early_events"], network_id, device_num)
    order = {"txack": 0, "ack": 1, "log": 2}
    for row in sorted(rows, key=lambda r: (r["at"], order[r["kind"]])):
        await apply(
            connection,
            item_id,
            Report(
                network_id,
                row["kind"],
                row["at"],
                f_cnt_down=row["f_cnt_down"],
                acknowledged=row["acknowledged"],
                code=row["code"],
            ),
        )


async def receive(pool: asyncpg.Pool, token_hash: bytes, event: str, body: bytes) -> None:
    """Applies one txack/ack/log event; returns once committed. 400 for an unreadable body,
    404 for a device that is not an assigned device of the token's partner."""
    try:
        parsed = DECODERS[event].decode(body)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise invalid_body("body", f"not a ChirpStack {event} event: {exc}") from None
    dev_eui = normalize_eui(parsed.device_info.dev_eui)
    report = _report(event, parsed)
    async with pool.acquire() as connection, connection.transaction():
        device = (
            await connection.fetchrow(QUERIES["downlinks.device_for_event"], token_hash, dev_eui)
            if dev_eui
            else None
        )
        if device is None or device["num"] is None:
            raise not_found("device")
        if report is None:
            return
        item = await connection.fetchrow(
            QUERIES["downlinks.item_for_network_id"], token_hash, report.network_id
        )
        if item is not None:
            await apply(connection, item["id"], report)
            return
        await connection.execute(
            QUERIES["downlinks.insert_early_event"],
            report.network_id,
            report.kind,
            device["partner_id"],
            device["num"],
            report.at,
            report.f_cnt_down,
            report.acknowledged,
            report.code,
        )
