"""The latest values object (api-spec 2.4, decisions D11, D17)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

import msgspec


class LatestValues(msgspec.Struct, rename="camel", omit_defaults=True):
    """`retained` and `derived` are left out when they do not apply.

    The shape of the answer for the OpenAPI document: the bodies themselves are built by
    the SQL function `latest_body` (schema/definitions/020-latest.sql) and sent as stored.
    """

    device_id: uuid.UUID
    time: datetime | None
    values: dict[str, Any]
    signal_quality: int | None
    retained: dict[str, datetime] | msgspec.UnsetType = msgspec.UNSET
    derived: dict[str, Any] | msgspec.UnsetType = msgspec.UNSET
