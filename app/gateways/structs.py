"""Gateway shape (api-spec 2.6)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

import msgspec

from app.core.enums import DeviceStatus
from app.devices.structs import Location, to_location


class Gateway(msgspec.Struct, rename="camel"):
    id: uuid.UUID
    gateway_eui: str
    name: str
    status: DeviceStatus
    sub_account_id: uuid.UUID | None
    network_id: uuid.UUID | None
    site_id: uuid.UUID | None
    online: bool
    last_seen_at: datetime | None
    last_stats_at: datetime | None
    location: Location | None


def gateway_from_row(row: Any) -> Gateway:
    return Gateway(
        id=row["id"],
        gateway_eui=row["gateway_eui"],
        name=row["name"],
        status=row["status"],
        sub_account_id=row["sub_account_id"],
        network_id=row["network_id"],
        site_id=row["site_id"],
        online=row["online"],
        last_seen_at=row["last_seen_at"],
        last_stats_at=row["last_stats_at"],
        location=to_location(row["location"]),
    )
