"""Replays a world file's telemetry through the ingest pipeline (operations.md section 2).

`uplinks`, `statusEvents` and `gatewayStats` are merged and replayed in time order
(file order among equal times) with the same functions as live ChirpStack events, inside
the loader's transaction. Devices and gateways are named by id or EUI and may come from
an earlier file. Events of devices that are not assigned are skipped, as live ingest
would refuse them and such devices keep no telemetry (D16).
"""

from __future__ import annotations

import functools
import logging
import uuid
from collections.abc import Awaitable, Callable, Iterator
from datetime import datetime
from typing import Any

from app.core.api import normalize_eui, parse_uuid
from app.core.enums import DeviceStatus
from app.core.sql import QUERIES
from app.ingest.pipeline import Outcome, Uplink, status_battery, store_event, store_uplink
from app.profiles.contexts import DeviceContexts
from app.world.errors import fail
from app.world.times import resolve_time

log = logging.getLogger("telemetry.world")

DEVICES_BY_REFERENCE = QUERIES["world.devices_by_reference"]
GATEWAYS_BY_REFERENCE = QUERIES["world.gateways_by_reference"]
GATEWAY_STATS = QUERIES["world.gateway_stats"]


class TelemetryNotSupported(Exception):
    """Kept for the loader's import; telemetry sections are supported."""


def _split(references: set[str]) -> tuple[list[uuid.UUID], list[str]]:
    ids: list[uuid.UUID] = []
    euis: list[str] = []
    for reference in references:
        as_uuid = parse_uuid(reference) if len(reference) >= 32 else None
        if as_uuid is not None:
            ids.append(as_uuid)
        else:
            eui = normalize_eui(reference)
            if eui is not None:
                euis.append(eui)
    return ids, euis


def _index(rows: list[Any], eui_column: str, partners: set[uuid.UUID]) -> dict[str, Any]:
    """Rows by id and by EUI; an EUI used by several partners is resolved in favour of the
    partners of this file, and left out when still ambiguous."""
    found: dict[str, Any] = {}
    by_eui: dict[str, list[Any]] = {}
    for row in rows:
        found[str(row["id"])] = row
        by_eui.setdefault(row[eui_column], []).append(row)
    for eui, candidates in by_eui.items():
        if len(candidates) > 1:
            candidates = [r for r in candidates if r["partner_id"] in partners]
        if len(candidates) == 1:
            found[eui] = candidates[0]
    return found


def _lookup(found: dict[str, Any], reference: str, path: str, what: str) -> Any:
    as_uuid = parse_uuid(reference) if len(reference) >= 32 else None
    key = str(as_uuid) if as_uuid is not None else normalize_eui(reference)
    row = found.get(key) if key is not None else None
    if row is None:
        raise fail(path, f"no {what} with id or EUI {reference!r}")
    return row


def _located(
    items: list[Any], section: str, reference: str, found: dict[str, Any], now: datetime
) -> Iterator[tuple[Any, datetime, Any]]:
    """The section's events with the row their `reference` (a device or gateway, by id or
    EUI) names and their time resolved; an unknown one fails with its path."""
    for index, item in enumerate(items):
        path = f"{section}[{index}].{reference}"
        yield (
            _lookup(found, getattr(item, reference), path, reference),
            resolve_time(item.at, now),
            item,
        )


async def replay_telemetry(
    connection: Any,
    world: Any,
    now: datetime,
    on_progress: Callable[[int, int], None] | None = None,
) -> int:
    """Stores the world's uplinks, statusEvents and gatewayStats; returns how many events.

    `on_progress(done, total)` is called as the events are stored (the CLI's bar).
    """
    uplinks = list(getattr(world, "uplinks", None) or [])
    statuses = list(getattr(world, "status_events", None) or [])
    stats = list(getattr(world, "gateway_stats", None) or [])
    if not (uplinks or statuses or stats):
        return 0
    partners = {p.id for p in getattr(world, "partners", [])}

    device_refs = {e.device for e in uplinks} | {e.device for e in statuses}
    devices: dict[str, Any] = {}
    if device_refs:
        ids, euis = _split(device_refs)
        rows = await connection.fetch(DEVICES_BY_REFERENCE, ids, euis)
        devices = _index(rows, "dev_eui", partners)
    gateways: dict[str, Any] = {}
    if stats:
        ids, euis = _split({e.gateway for e in stats})
        rows = await connection.fetch(GATEWAYS_BY_REFERENCE, ids, euis)
        gateways = _index(rows, "gateway_eui", partners)

    events: list[tuple[datetime, int, Callable[[], Awaitable[str | None]]]] = []
    # The load's own: what it reads lives and dies with its transaction.
    contexts = DeviceContexts()
    for row, at, uplink in _located(uplinks, "uplinks", "device", devices, now):
        receptions = (
            [(uplink.rssi or 0.0, uplink.snr or 0.0)]
            if uplink.rssi is not None or uplink.snr is not None
            else []
        )
        eui = normalize_eui(uplink.gateway_eui) if uplink.gateway_eui else None
        event = Uplink(
            time=at,
            values=dict(uplink.values),
            receptions=receptions,
            gateways=[eui] if eui else [],
            f_port=uplink.f_port,
        )
        store = functools.partial(store_uplink, connection, uplink=event)
        events.append((at, len(events), _device_step(connection, contexts, row, "uplink", store)))
    for row, at, status in _located(statuses, "statusEvents", "device", devices, now):
        battery = status_battery(
            None if isinstance(status.battery, str) else status.battery,
            external=status.battery == "external",
            unavailable=status.battery == "unavailable",
        )
        store = functools.partial(store_event, connection, kind="status", time=at, battery=battery)
        events.append(
            (at, len(events), _device_step(connection, contexts, row, "status event", store))
        )
    for row, at, _ in _located(stats, "gatewayStats", "gateway", gateways, now):
        events.append((at, len(events), _stats_step(connection, row["num"], at)))

    events.sort(key=lambda item: (item[0], item[1]))
    for done, (_, _, step) in enumerate(events, start=1):
        await step()
        if on_progress is not None:
            on_progress(done, len(events))
    return len(events)


def _device_step(
    connection: Any,
    contexts: DeviceContexts,
    row: Any,
    event: str,
    store: Callable[[Any], Awaitable[str]],
) -> Callable[[], Awaitable[str]]:
    """A device's event, stored with its context (`store(context)`) when the device is
    assigned and skipped otherwise, as live ingest would refuse it (D16)."""

    async def step() -> str:
        if row["status"] != DeviceStatus.ASSIGNED:
            log.info("world %s of unassigned device %s skipped", event, row["id"])
            return Outcome.NOT_FOUND
        return await store(await contexts.of_row(connection, row))

    return step


def _stats_step(connection: Any, num: int, at: datetime) -> Callable[[], Awaitable[None]]:
    async def step() -> None:
        await connection.execute(GATEWAY_STATS, num, at)

    return step
