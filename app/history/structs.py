"""The history response (api-spec 2.5, decisions D12)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

import msgspec


# Not tracked by the garbage collector (a point is never part of a reference cycle): a raw
# answer allocates 500 of them, and tracked they made the collector run during the
# request.
class HistoryPoint(msgspec.Struct, rename="camel", omit_defaults=True, gc=False):
    time: datetime
    value: Any
    # Raw points only: the site at arrival, null when none or multi-site is off.
    site_id: uuid.UUID | msgspec.UnsetType | None = msgspec.UNSET
    # With fill (analytics.md section 3): whether the value comes from the fill rule.
    filled: bool | msgspec.UnsetType = msgspec.UNSET


class Downsampled(msgspec.Struct, rename="camel"):
    """How maxPoints reduced a raw series: `readings` in the range, `points` kept."""

    method: str
    readings: int
    points: int


class History(msgspec.Struct, rename="camel", omit_defaults=True, kw_only=True):
    device_id: uuid.UUID
    field: str
    resolution: str
    agg: str | msgspec.UnsetType = msgspec.UNSET
    # The IANA zone of the buckets, when asked (integrations.md section 5).
    tz: str | msgspec.UnsetType = msgspec.UNSET
    from_: datetime = msgspec.field(name="from")
    to: datetime
    clamped: bool | msgspec.UnsetType = msgspec.UNSET
    retention_cutoff: datetime | msgspec.UnsetType = msgspec.UNSET
    truncated: bool | msgspec.UnsetType = msgspec.UNSET
    downsampled: Downsampled | msgspec.UnsetType = msgspec.UNSET
    points: list[HistoryPoint]
