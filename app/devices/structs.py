"""Device shapes (api-spec 2.2, 2.3, decisions D6, D9)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Literal

import msgspec

from app.profiles.structs import DeviceProfileDetail

Status = Literal["inventory", "assigned", "archived"]


class Location(msgspec.Struct):
    latitude: float
    longitude: float
    altitude: float | None = None


class Battery(msgspec.Struct, kw_only=True):
    state: Literal["pct", "external", "unavailable"]
    value: int | None = None
    at: datetime
    source: Literal["field", "status"]


class Device(msgspec.Struct, rename="camel"):
    id: uuid.UUID
    dev_eui: str
    name: str
    serial_number: str | None
    status: Status
    sub_account_id: uuid.UUID | None
    device_profile_id: uuid.UUID
    network_id: uuid.UUID | None
    site_id: uuid.UUID | None
    online: bool
    signal_quality: int | None
    battery: Battery | None
    last_seen_at: datetime | None
    last_uplink_at: datetime | None
    location: Location | None


class DeviceDetail(Device, rename="camel"):
    device_profile: DeviceProfileDetail


def to_location(value: Any) -> Location | None:
    """A stored location (jsonb) in the shape of D6; a missing altitude is null (D18)."""
    if not isinstance(value, dict):
        return None
    try:
        return msgspec.convert(value, Location, strict=False)
    except msgspec.ValidationError:
        return None


def to_battery(value: Any) -> Battery | None:
    if not isinstance(value, dict):
        return None
    try:
        return msgspec.convert(value, Battery, strict=False)
    except msgspec.ValidationError:
        return None


def device_fields(row: Any) -> dict[str, Any]:
    return {
        "id": row["id"],
        "dev_eui": row["dev_eui"],
        "name": row["name"],
        "serial_number": row["serial_number"],
        "status": row["status"],
        "sub_account_id": row["sub_account_id"],
        "device_profile_id": row["profile_id"],
        "network_id": row["network_id"],
        "site_id": row["site_id"],
        "online": row["online"],
        "signal_quality": row["signal_quality"],
        "battery": to_battery(row["battery"]),
        "last_seen_at": row["last_seen_at"],
        "last_uplink_at": row["last_uplink_at"],
        "location": to_location(row["location"]),
    }


def device_from_row(row: Any) -> Device:
    return Device(**device_fields(row))
