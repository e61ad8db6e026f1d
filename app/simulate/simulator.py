"""`telemetry simulate`: live-looking traffic for a partner's devices, posted as ChirpStack
v4 HTTP integration events to the real ingest route (operations.md section 3), so the
whole path runs: ingest, `/latest`, alerts, webhooks.

Every few seconds a handful of devices report. Each device's numbers take a random walk
around a value that suits its field (temperature, humidity, battery that slowly drains,
power, speed, ...); now and then (`--alert-chance`) one value is pushed past one of its
profile's alert rules, which raises an alert and, on the next normal reading, clears it.
The integration token is needed because the database keeps only its hash.
"""

from __future__ import annotations

import asyncio
import logging
import random
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import asyncpg
import httpx
import msgspec

from app.core.sql import QUERIES

log = logging.getLogger("telemetry.simulate")
logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per uplink is noise
_encode = msgspec.json.Encoder().encode

# Typical value and step of a field, by words in its identifier.
TYPICAL: tuple[tuple[str, float, float, float, float], ...] = (
    # word, start, step, low, high
    ("temp", 21.0, 0.4, -20.0, 45.0),
    ("humid", 50.0, 1.5, 5.0, 100.0),
    ("battery", 90.0, 0.2, 0.0, 100.0),
    ("power", 2500.0, 400.0, 0.0, 12000.0),
    ("energy", 10000.0, 2.0, 0.0, 1e9),
    ("speed", 30.0, 8.0, 0.0, 130.0),
    ("co2", 600.0, 40.0, 350.0, 5000.0),
)


@dataclass
class Device:
    dev_eui: str
    fields: list[tuple[str, str, str | None]]  # identifier, dataType, role
    rules: list[tuple[str, str, Any]]
    gateways: list[str]
    state: dict[str, Any] = field(default_factory=dict)
    f_cnt: int = 0


def _walk(device: Device, identifier: str, rng: random.Random) -> float:
    start, step, low, high = 10.0, 1.0, -1e9, 1e9
    for word, s, st, lo, hi in TYPICAL:
        if word in identifier.lower():
            start, step, low, high = s, st, lo, hi
            break
    current = float(device.state.get(identifier, start + rng.uniform(-step, step) * 3))
    if "battery" in identifier or "energy" in identifier:
        value = current - rng.uniform(0, step) if "battery" in identifier else current + step
    else:
        value = current + rng.uniform(-step, step)
    value = round(min(high, max(low, value)), 2)
    device.state[identifier] = value
    return value


def _past(op: str, threshold: Any) -> Any:
    """A value that breaks `field op threshold`."""
    if isinstance(threshold, bool) or not isinstance(threshold, int | float):
        return threshold if op == "==" else None
    margin = max(1.0, abs(threshold) * 0.1)
    if op in (">", ">="):
        return threshold + margin
    if op in ("<", "<="):
        return threshold - margin
    return threshold if op == "==" else None


def reading(device: Device, rng: random.Random, alert_chance: float) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for identifier, data_type, _ in device.fields:
        if data_type == "number":
            values[identifier] = (
                rng.choice([0, 0, 0, 1])
                if identifier.endswith("_raw")
                else _walk(device, identifier, rng)
            )
        elif data_type == "boolean":
            values[identifier] = rng.random() < 0.05
        elif data_type == "string":
            values[identifier] = rng.choice(["normal", "normal", "normal", "peak"])
        elif data_type == "location":
            lat = device.state.get("lat", 51.9 + rng.uniform(0, 0.2)) + rng.uniform(-0.002, 0.002)
            lon = device.state.get("lon", 4.4 + rng.uniform(0, 0.2)) + rng.uniform(-0.002, 0.002)
            device.state["lat"], device.state["lon"] = lat, lon
            values[identifier] = {"latitude": round(lat, 6), "longitude": round(lon, 6)}
    if device.rules and rng.random() < alert_chance:
        name, op, threshold = rng.choice(device.rules)
        broken = _past(op, threshold)
        if broken is not None and name in values:
            values[name] = broken
    return values


def uplink_event(device: Device, values: dict[str, Any], rng: random.Random) -> bytes:
    device.f_cnt += 1
    rx = [
        {"gatewayId": gw, "rssi": rng.randint(-118, -60), "snr": round(rng.uniform(-12, 10), 1)}
        for gw in device.gateways[:2]
    ]
    return _encode(
        {
            "deduplicationId": str(uuid.uuid4()),
            "time": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
            "deviceInfo": {"devEui": device.dev_eui, "deviceName": device.dev_eui},
            "fPort": 1,
            "fCnt": device.f_cnt,
            "object": values,
            "rxInfo": rx,
        }
    )


async def load_devices(
    connection: asyncpg.Connection, partner_id: uuid.UUID, limit: int
) -> list[Device]:
    rows = await connection.fetch(QUERIES["simulate.devices"], partner_id, limit)
    profiles = sorted({r["profile_id"] for r in rows})
    fields: dict[uuid.UUID, list[tuple[str, str, str | None]]] = {}
    for f in await connection.fetch(QUERIES["simulate.fields"], profiles):
        fields.setdefault(f["profile_id"], []).append((f["identifier"], f["data_type"], f["role"]))
    rules: dict[uuid.UUID, list[tuple[str, str, Any]]] = {}
    for r in await connection.fetch(QUERIES["simulate.rules"], profiles):
        rules.setdefault(r["profile_id"], []).append((r["field"], r["op"], r["value"]))
    return [
        Device(
            dev_eui=r["dev_eui"],
            fields=fields.get(r["profile_id"], []),
            rules=rules.get(r["profile_id"], []),
            gateways=list(r["gateways"]),
        )
        for r in rows
    ]


async def simulate(
    devices: list[Device],
    *,
    url: str,
    token: str,
    every_s: float,
    per_round: int,
    alert_chance: float,
    rounds: int | None = None,
    seed: int | None = None,
) -> int:
    """Posts rounds of uplinks until cancelled (or `rounds` done); returns uplinks stored."""
    rng = random.Random(seed)
    stored = 0
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    async with httpx.AsyncClient(base_url=url, timeout=10) as client:
        done = 0
        while rounds is None or done < rounds:
            for device in rng.sample(devices, min(per_round, len(devices))):
                body = uplink_event(device, reading(device, rng, alert_chance), rng)
                try:
                    answer = await client.post(
                        "/ingest/chirpstack?event=up", content=body, headers=headers
                    )
                except httpx.HTTPError as exc:
                    log.warning("ingest not reachable (%s); next round", exc)
                    break
                if answer.status_code == 204:
                    stored += 1
                else:
                    log.warning("ingest answered %d: %s", answer.status_code, answer.text[:200])
            done += 1
            if rounds is None or done < rounds:
                await asyncio.sleep(every_s)
    return stored
