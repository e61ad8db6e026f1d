"""ChirpStack v4 events built with ChirpStack's own protobuf classes and serialised with
protobuf's JSON mapping, exactly as its HTTP integration posts them; the TH world most
ingest tests start from (`th_world`, `th_loaded`), posting its events (`post`, `up`) and
reading back what was stored (`latest`, `readings`, `device_num`)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import httpx
from chirpstack_api import integration
from google.protobuf.json_format import MessageToJson
from litestar.testing import AsyncTestClient

from testkit.factories import World, load
from tests.support import helpers


def at(minutes_ago: float = 0, seconds: float = 0) -> datetime:
    base = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=minutes_ago)
    return base + timedelta(seconds=seconds)


def iso(moment: datetime) -> str:
    text = moment.astimezone(UTC).isoformat().replace("+00:00", "Z")
    return text


def _common(event: Any, dev_eui: str, time: datetime | None, dedup: str | None) -> None:
    event.deduplication_id = dedup if dedup is not None else str(uuid.uuid4())
    event.device_info.CopyFrom(
        integration.DeviceInfo(
            dev_eui=dev_eui, device_name="sensor", application_id=str(uuid.uuid4())
        )
    )
    if time is not None:
        event.time.FromDatetime(time.astimezone(UTC).replace(tzinfo=None))


def uplink(
    dev_eui: str,
    values: dict[str, Any] | None,
    *,
    time: datetime | None = None,
    dedup: str | None = None,
    rx: list[tuple[int, float, str]] | None = None,
    f_port: int = 1,
) -> str:
    event = integration.UplinkEvent(f_port=f_port, f_cnt=7, dr=5, data=b"\x01\x02")
    _common(event, dev_eui, time, dedup)
    if values is not None:
        event.object.update(values)
    for rssi, snr, gateway in rx if rx is not None else [(-80, 7.5, "0016c001ff10a235")]:
        event.rx_info.add(gateway_id=gateway, rssi=rssi, snr=snr)
    return MessageToJson(event)


def status(
    dev_eui: str,
    *,
    level: float = 0.0,
    external: bool = False,
    unavailable: bool = False,
    time: datetime | None = None,
    dedup: str | None = None,
) -> str:
    event = integration.StatusEvent(
        margin=7,
        battery_level=level,
        external_power_source=external,
        battery_level_unavailable=unavailable,
    )
    _common(event, dev_eui, time, dedup)
    return MessageToJson(event)


def join(dev_eui: str, *, time: datetime | None = None, dedup: str | None = None) -> str:
    event = integration.JoinEvent(dev_addr="01020304")
    _common(event, dev_eui, time, dedup)
    return MessageToJson(event)


def location(
    dev_eui: str,
    latitude: float,
    longitude: float,
    altitude: float | None = None,
    *,
    time: datetime | None = None,
    dedup: str | None = None,
) -> str:
    event = integration.LocationEvent()
    _common(event, dev_eui, time, dedup)
    event.location.latitude = latitude
    event.location.longitude = longitude
    if altitude is not None:
        event.location.altitude = altitude
    return MessageToJson(event)


def bearer(token: str) -> dict[str, str]:
    """The headers ChirpStack's HTTP integration sends: the token, and a JSON body."""
    return helpers.bearer(token, **{"Content-Type": "application/json"})


INGEST = "/ingest/chirpstack"


def th_world(retain: bool = False) -> tuple[World, dict[str, Any]]:
    """A partner with a TH-100-like profile (operations.md's example) and one device."""
    w = World()
    p, sa = w.tenancy({}, plan={"apiWrite": True, "retentionDays": 90})
    prof = w.profile(
        p,
        retainLastValue=retain,
        fields=[
            w.field("temperature"),
            w.field("humidity"),
            w.field("battery", role="battery_pct"),
            w.field("door_raw"),
            w.formula("temp_f", "temperature * 9 / 5 + 32"),
            w.mapping("door", "door_raw", {"0": "closed", "1": "open"}, "unknown"),
            w.field("installed", kind="static", dataType="date", default="2026-01-01"),
            w.field("label", kind="static", dataType="string"),
            w.formula("ratio", "humidity / door_raw"),
            w.field("moving", dataType="boolean"),
            w.field("note", dataType="string"),
            w.field("position", dataType="location"),
        ],
    )
    w.alert_rule(prof, "temperature", ">", 30, "warning")
    site = w.site(sa)
    dev = w.device(sa, prof, site=site, static={"label": "Room 1"})
    gw = w.gateway(sa, gatewayEui="0016c001ff10a235")
    token = w.integration(p)
    key = w.key(sa, scopes=["devices:read", "telemetry:read"])
    return w, {
        "partner": p,
        "sa": sa,
        "profile": prof,
        "site": site,
        "device": dev,
        "gateway": gw,
        "token": token,
        "key": key,
    }


async def latest(client: AsyncTestClient, key: str, device: dict[str, Any]) -> dict[str, Any]:
    response = await client.get(
        f"/api/v1/devices/{device['id']}/latest", headers={"Authorization": f"Bearer {key}"}
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()["data"]
    return body


async def post(client: httpx.AsyncClient, token: str, event: str, body: str) -> int:
    """Posts a ChirpStack event (the app's test client or a live server's); its status."""
    response = await client.post(f"{INGEST}?event={event}", content=body, headers=bearer(token))
    assert response.status_code in (204, 400, 401, 404), response.text
    if response.status_code != 204:
        assert response.json()["error"]["code"]
    return response.status_code


async def up(client: AsyncTestClient, t: dict[str, Any], values: Any, **options: Any) -> int:
    """An uplink of the TH world's device (`options`: those of `uplink`)."""
    return await post(client, t["token"], "up", uplink(t["device"]["devEui"], values, **options))


async def th_loaded(pool: asyncpg.Pool, retain: bool = False) -> dict[str, Any]:
    """`th_world`, loaded: what it made, by name."""
    w, t = th_world(retain)
    await load(pool, w)
    return t


async def device_num(pool: asyncpg.Pool, device: dict[str, Any]) -> int:
    num: int = await pool.fetchval("SELECT num FROM devices WHERE id = $1", device["id"])
    return num


async def readings(pool: asyncpg.Pool, device: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    rows = await pool.fetch(
        """SELECT COALESCE(f.identifier, 'signal_quality') AS identifier, r.time,
                  to_jsonb(r.value) AS value
             FROM readings_num r JOIN devices d ON d.num = r.device_num
             LEFT JOIN profile_fields f ON f.num = r.field_num
            WHERE d.id = $1
           UNION ALL
           SELECT f.identifier, r.time, r.value
             FROM readings_other r JOIN devices d ON d.num = r.device_num
             JOIN profile_fields f ON f.num = r.field_num
            WHERE d.id = $1
            ORDER BY 2, 1""",
        device["id"],
    )
    return [(r["identifier"], r["time"], r["value"]) for r in rows]


def network_event(event: str, dev_eui: str, **fields: Any) -> str:
    kinds = {
        "txack": integration.TxAckEvent,
        "ack": integration.AckEvent,
        "log": integration.LogEvent,
    }
    message = kinds[event](**fields)
    message.device_info.CopyFrom(integration.DeviceInfo(dev_eui=dev_eui, device_name="d"))
    message.time.FromDatetime(datetime.now(UTC).replace(tzinfo=None))
    return MessageToJson(message)
