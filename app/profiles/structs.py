"""Device profile shapes (decisions D10)."""

from __future__ import annotations

import uuid
from typing import Literal

import msgspec


class ProfileField(msgspec.Struct, rename="camel"):
    id: uuid.UUID
    identifier: str
    label: str
    unit: str
    data_type: Literal["number", "string", "boolean", "date", "location"]
    kind: Literal["decoded", "static", "formula", "mapping"]
    role: Literal["battery_pct"] | None
    # analytics.md section 3: which aggregates the field takes.
    measurement: Literal["gauge", "counter", "state"] | None


class DeviceProfile(msgspec.Struct, rename="camel"):
    id: uuid.UUID
    name: str
    retain_last_value: bool
    field_count: int


class DeviceProfileDetail(msgspec.Struct, rename="camel"):
    id: uuid.UUID
    name: str
    retain_last_value: bool
    field_count: int
    fields: list[ProfileField]
