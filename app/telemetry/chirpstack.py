"""ChirpStack v4 integration events in their JSON form (protobuf's proto3 JSON mapping).

Only the fields the service uses are declared; unknown fields are ignored. proto3 JSON
leaves out default values, so every field has its proto default here: a status event
without `batteryLevel` reports 0 %, an `rxInfo` without `snr` reports 0 dB.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec


class Event(msgspec.Struct, rename="camel"):
    pass


class DeviceInfo(Event):
    dev_eui: str = ""


class RxInfo(Event):
    gateway_id: str = ""
    rssi: float = 0.0
    snr: float = 0.0


class UplinkEvent(Event):
    device_info: DeviceInfo
    deduplication_id: str = ""
    time: datetime | None = None
    f_port: int = 0
    object: dict[str, Any] | None = None
    rx_info: list[RxInfo] = msgspec.field(default_factory=list)


class StatusEvent(Event):
    device_info: DeviceInfo
    deduplication_id: str = ""
    time: datetime | None = None
    battery_level: float = 0.0
    external_power_source: bool = False
    battery_level_unavailable: bool = False


class JoinEvent(Event):
    device_info: DeviceInfo
    deduplication_id: str = ""
    time: datetime | None = None


class Location(Event):
    latitude: float = 0.0
    longitude: float = 0.0
    altitude: float | None = None


class LocationEvent(Event):
    device_info: DeviceInfo
    deduplication_id: str = ""
    time: datetime | None = None
    location: Location | None = None


DECODERS: dict[str, msgspec.json.Decoder[Any]] = {
    "up": msgspec.json.Decoder(UplinkEvent),
    "status": msgspec.json.Decoder(StatusEvent),
    "join": msgspec.json.Decoder(JoinEvent),
    "location": msgspec.json.Decoder(LocationEvent),
}
