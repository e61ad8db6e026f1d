"""Gateway shape (api-spec 2.6)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

import msgspec

from app.core.enums import DeviceStatus
from app.core.reads import from_row
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
    return from_row(Gateway, row, location=to_location(row["location"]))
