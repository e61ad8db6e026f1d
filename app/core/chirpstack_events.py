"""ChirpStack v4 integration events in their JSON form (protobuf's proto3 JSON mapping).

Only the fields the service uses are declared; unknown fields are ignored. proto3 JSON
leaves out default values, so every field has its proto default here: a status event
without `batteryLevel` reports 0 %, an `rxInfo` without `snr` reports 0 dB.

A body the strict decoder refuses gets a second, lenient reading (never on the hot path):
like protobuf's own JSON parsers it accepts `null` for a field (its default) and numbers
written as strings (`"rssi": "-80"`, `"NaN"`), and a number in the decoded `object` too
large for a float (`1e400`) becomes inf, which the pipeline then skips as one value
(values.py) instead of refusing the whole event.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Generic, TypeVar

import msgspec

from app.core.positions import Location


class Event(msgspec.Struct, rename="camel"):
    pass


E = TypeVar("E", bound=Event)


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
    f_cnt: int = 0
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


class LocationEvent(Event):
    device_info: DeviceInfo
    deduplication_id: str = ""
    time: datetime | None = None
    location: Location | None = None


_RAW = msgspec.json.Decoder(float_hook=float)


def _without_nulls(value: Any, top: bool = False) -> Any:
    """proto3 JSON: a null field is its default, so null members are dropped (the decoded
    `object` is the device's own payload and keeps its nulls)."""
    if isinstance(value, dict):
        return {
            k: v if top and k == "object" else _without_nulls(v)
            for k, v in value.items()
            if v is not None
        }
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


class EventDecoder(Generic[E]):
    """The strict msgspec decoder first (the hot path, unchanged), then the lenient one."""

    def __init__(self, kind: type[E]) -> None:
        self.kind = kind
        self.strict = msgspec.json.Decoder(kind)

    def decode(self, body: bytes) -> E:
        try:
            return self.strict.decode(body)
        except msgspec.ValidationError:
            raw = _without_nulls(_RAW.decode(body), top=True)
            return msgspec.convert(raw, self.kind, strict=False)


DECODERS: dict[str, EventDecoder[Any]] = {
    "up": EventDecoder(UplinkEvent),
    "status": EventDecoder(StatusEvent),
    "join": EventDecoder(JoinEvent),
    "location": EventDecoder(LocationEvent),
}
