"""The Things Stack's webhook messages in their JSON form (its `ApplicationUp` message).

Only the fields the service uses are declared; unknown fields are ignored. The Things
Stack leaves out empty fields ("", 0, false), so every field has that default: a
reception without `snr` reports 0 dB, an uplink without `f_port` is port 0.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from app.core.positions import Location


class Message(msgspec.Struct):
    pass


class EndDeviceIds(Message):
    device_id: str = ""
    dev_eui: str = ""


class GatewayIds(Message):
    gateway_id: str = ""
    eui: str = ""


class RxMetadata(Message):
    gateway_ids: GatewayIds = msgspec.field(default_factory=GatewayIds)
    rssi: float = 0.0
    channel_rssi: float = 0.0
    snr: float = 0.0


class UplinkMessage(Message):
    f_port: int = 0
    f_cnt: int = 0
    decoded_payload: dict[str, Any] | None = None
    rx_metadata: list[RxMetadata] = msgspec.field(default_factory=list)
    received_at: datetime | None = None


class JoinAccept(Message):
    received_at: datetime | None = None


class LocationSolved(Message):
    service: str = ""
    location: Location = msgspec.field(default_factory=Location)


class ApplicationUp(Message):
    """One webhook body: exactly one of the message fields is set."""

    end_device_ids: EndDeviceIds
    correlation_ids: list[str] = msgspec.field(default_factory=list)
    received_at: datetime | None = None
    uplink_message: UplinkMessage | None = None
    join_accept: JoinAccept | None = None
    location_solved: LocationSolved | None = None


DECODER = msgspec.json.Decoder(ApplicationUp)
