"""Device shapes (api-spec 2.2, 2.3, decisions D6, D9)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Literal, TypeVar

import msgspec

from app.core.reads import from_row
from app.profiles.structs import DeviceProfileDetail

Status = Literal["inventory", "assigned", "archived"]
S = TypeVar("S", bound=msgspec.Struct)


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
    return _stored(value, Location)


def to_battery(value: Any) -> Battery | None:
    return _stored(value, Battery)


def _stored(value: Any, shape: type[S]) -> S | None:
    """A jsonb object as `shape`, or None where the stored value does not fit it (an old or
    hand-written value must not fail the whole read)."""
    if not isinstance(value, dict):
        return None
    try:
        return msgspec.convert(value, shape, strict=False)
    except msgspec.ValidationError:
        return None


def converted_columns(row: Any) -> dict[str, Any]:
    """The fields of a device that its row does not hold as they are shown."""
    return {
        "device_profile_id": row["profile_id"],
        "battery": to_battery(row["battery"]),
        "location": to_location(row["location"]),
    }


def device_from_row(row: Any) -> Device:
    return from_row(Device, row, **converted_columns(row))
