"""ChirpStack v4 events built with ChirpStack's own protobuf classes and serialised with
protobuf's JSON mapping, exactly as its HTTP integration posts them."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from chirpstack_api import integration
from google.protobuf.json_format import MessageToJson

from tests import helpers


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
