"""What an export is asked for and how it is planned (integrations.md section 4)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal

import msgspec

from app.history.chart import NO_CHART, ChartOptions
from app.history.planner import Resolution

Format = Literal["csv", "ndjson", "parquet"]
Layout = Literal["wide", "long"]
FORMATS: tuple[Format, ...] = ("csv", "ndjson", "parquet")
LAYOUTS: tuple[Layout, ...] = ("wide", "long")
MEDIA_TYPES = {
    "csv": "text/csv; header=present",
    "ndjson": "application/x-ndjson",
    "parquet": "application/vnd.apache.parquet",
}


class ExportParams(msgspec.Struct, frozen=True, kw_only=True):
    """The query parameters, checked and parsed (no database needed)."""

    fields: tuple[str, ...] | None  # None: every decoded and derived field
    start: datetime
    end: datetime
    format: Format
    layout: Layout
    tz: str | None
    cutoff: datetime  # now - the plan's retention, taken once
    # Bucketed exports (analytics.md section 2): a row per bucket, the values the bucket's
    # `agg` (one for every field); None: every reading.
    resolution: Resolution | None = None
    agg: str | None = None
    # fill, fillMaxGap and state of bucketed exports (analytics.md section 3).
    chart: ChartOptions = NO_CHART


class Column(msgspec.Struct, frozen=True):
    """One exported field. `kind` is its type across the exported devices' profiles:
    `number` when it is a number in all of them, `boolean` likewise, else `text`."""

    identifier: str
    kind: Literal["number", "boolean", "text"]


class ExportPlan(msgspec.Struct, frozen=True, kw_only=True):
    """Everything the streaming needs: devices in export order, columns, field map, range."""

    format: Format
    layout: Layout
    fleet: bool
    tz: str | None
    columns: tuple[Column, ...]
    device_nums: list[int]
    # The field map, parallel lists: field num, its profile (None: every device), column
    # position (1-based) and whether it is numeric (readings_num).
    map_fields: list[int]
    map_profiles: list[uuid.UUID | None]
    map_positions: list[int]
    map_numeric: list[bool]
    start: datetime
    end: datetime
    filename: str
    # Bucketed exports: the width and aggregate, and each device's id, DevEUI and profile
    # (parallel to device_nums), read by app/export/buckets.py.
    resolution: Resolution | None = None
    agg: str | None = None
    device_ids: list[uuid.UUID] = msgspec.field(default_factory=list)
    device_euis: list[str] = msgspec.field(default_factory=list)
    device_profiles: list[uuid.UUID] = msgspec.field(default_factory=list)
    # Bucketed exports with fill or the aggregates of section 3: the options, the field
    # map's data types (parallel to map_fields) and the retention cutoff, which the value
    # before `from` is read within.
    chart: ChartOptions = NO_CHART
    map_types: list[str] = msgspec.field(default_factory=list)
    cutoff: datetime | None = None
    # The raw wide export (app/export/wide.py): each device's readings (parallel to
    # device_nums), counted before the first byte, by which its reads are cut in units.
    device_readings: list[int] = msgspec.field(default_factory=list)
