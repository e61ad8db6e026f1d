"""Network shapes with health rollups (api-spec 2.10)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

import msgspec


class Network(msgspec.Struct, rename="camel"):
    id: uuid.UUID
    name: str
    site_id: uuid.UUID | None
    sub_account_id: uuid.UUID
    device_count: int
    device_online_count: int
    device_offline_count: int
    device_alerting_count: int
    gateway_count: int
    gateway_online_count: int
    gateway_offline_count: int


class NetworkDevice(msgspec.Struct, rename="camel"):
    device_id: uuid.UUID
    name: str
    dev_eui: str
    online: bool
    signal_quality: int | None
    last_seen_at: datetime | None


class NetworkGateway(msgspec.Struct, rename="camel"):
    gateway_id: uuid.UUID
    name: str
    gateway_eui: str
    online: bool
    last_seen_at: datetime | None


class NetworkDetail(Network, rename="camel"):
    devices: list[NetworkDevice]
    gateways: list[NetworkGateway]


def offline_counts(row: Any) -> dict[str, int]:
    """The offline counts of a network's rollups: the members that are not online."""
    return {
        "device_offline_count": row["device_count"] - row["device_online_count"],
        "gateway_offline_count": row["gateway_count"] - row["gateway_online_count"],
    }
