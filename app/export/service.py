"""Export requests: parameters, devices, columns, retention and bounds, before a byte leaves.

Checks run in the order of decisions D3: parameters (400), the device (404) or the fleet's
devices and their bound (400), the fields (400), retention (403 `outside_retention`), then
the readings bound (400, counted exactly: raw rows, packed weeks by their counts, the
weeks at the range's edges unpacked).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import msgspec

from app.auth.principal import Principal
from app.auth.tenancy import DeviceRef
from app.core.config import Settings
from app.core.errors import ErrorCode, forbidden, invalid_parameter
from app.core.sql import QUERIES
from app.export import wide
from app.export.cells import neutralise
from app.export.structs import FORMATS, LAYOUTS, Column, ExportParams, ExportPlan, Format
from app.history import chart
from app.history.aggregates import NEW_AGGS, STATE_AGGS
from app.history.series import NON_NUMERIC_AGGS
from app.history.service import AGGS, parse_bucketing, parse_range
from app.history.zones import parse_tz

SIGNAL_QUALITY = "signal_quality"


def parse_params(
    principal: Principal,
    fields: str | None,
    start: str | None,
    end: str | None,
    format: str | None,
    layout: str | None,
    tz: str | None,
    resolution: str | None = None,
    agg: str | None = None,
    **chart_parameters: str | None,
) -> ExportParams:
    # `now`, `now-P1D` as on /history ("as history", integrations.md section 4): one `now`.
    begin, finish, now = parse_range(start, end)
    chosen_format = format if format is not None else "csv"
    if chosen_format not in FORMATS:
        raise invalid_parameter("format", "must be csv, ndjson or parquet")
    chosen_layout = layout if layout is not None else "wide"
    if chosen_layout not in LAYOUTS:
        raise invalid_parameter("layout", "must be wide or long")
    wanted: tuple[str, ...] | None = None
    if fields is not None:
        wanted = tuple(name.strip() for name in fields.split(","))
        if any(not name for name in wanted):
            raise invalid_parameter("fields", "must be a comma-separated list of identifiers")
        twice = sorted({name for name in wanted if wanted.count(name) > 1})
        if twice:
            raise invalid_parameter("fields", f"lists {twice[0]!r} more than once")
    zone = parse_tz(tz)
    cutoff = now - timedelta(days=principal.retention_days)
    # Bucketed as /history buckets (analytics.md section 2): the same checks of resolution,
    # agg and the 10,000-bucket bound (D12), counted on the range read.
    parsed, agg = parse_bucketing(
        resolution if resolution is not None else "raw", agg, AGGS, begin, finish, cutoff, zone
    )
    # fill, fillMaxGap, maxPoints, downsample and state as /history takes them
    # (analytics.md section 3), passed on as chart.parse_chart names them.
    options = chart.parse_chart(bucketed=parsed is not None, agg=agg, now=now, **chart_parameters)
    return ExportParams(
        fields=wanted,
        start=begin,
        end=finish,
        format=chosen_format,
        layout=chosen_layout,
        tz=zone,
        cutoff=cutoff,
        resolution=parsed,
        agg=agg,
        chart=options,
    )


async def fleet_devices(
    pool: asyncpg.Pool, principal: Principal, filters: Sequence[Any], limit: int
) -> list[Any]:
    """The fleet's assigned devices in id order; a 400 over `limit` devices."""
    rows = await pool.fetch(
        QUERIES["export.fleet_devices"],
        principal.partner_id,
        principal.sub_account_id,
        *filters,
        limit + 1,
    )
    if len(rows) > limit:
        raise invalid_parameter(
            "devices", f"the filters select more than {limit:,} devices; export at most {limit:,}"
        )
    return list(rows)


def _kind(data_types: set[str], agg: str | None = None) -> Any:
    if data_types == {"number"} or agg == "count" or agg in NEW_AGGS:
        return "number"
    if data_types == {"boolean"}:
        return "boolean"
    return "text"


async def plan_export(
    pool: asyncpg.Pool,
    settings: Settings,
    params: ExportParams,
    devices: list[Any],
    *,
    fleet: bool,
    name: str,
) -> ExportPlan:
    """Columns and field map for these devices (rows with num, profile_id), retention, bounds."""
    profiles = sorted({d["profile_id"] for d in devices}, key=str)
    fields = await pool.fetch(QUERIES["export.profile_fields"], profiles) if profiles else []
    by_identifier: dict[str, list[Any]] = {}
    for row in fields:
        by_identifier.setdefault(row["identifier"], []).append(row)
    if params.fields is None:
        wanted = [
            i for i, rows in by_identifier.items() if any(r["kind"] != "static" for r in rows)
        ]
    else:
        wanted = list(params.fields)
        for identifier in wanted:
            if identifier != SIGNAL_QUALITY and identifier not in by_identifier and devices:
                raise invalid_parameter("fields", f"{identifier!r} is not a field of the devices")
    columns: list[Column] = []
    map_fields: list[int] = []
    map_profiles: list[uuid.UUID | None] = []
    map_positions: list[int] = []
    map_numeric: list[bool] = []
    map_types: list[str] = []
    for position, identifier in enumerate(wanted, start=1):
        if identifier == SIGNAL_QUALITY and identifier not in by_identifier:
            check_field(params, "number", "gauge")
            columns.append(Column(identifier, "number"))
            map_fields.append(0)
            map_profiles.append(None)
            map_positions.append(position)
            map_numeric.append(True)
            map_types.append("number")
            continue
        rows = [r for r in by_identifier.get(identifier, []) if r["kind"] != "static"]
        for r in rows:
            check_field(params, r["data_type"], r["measurement"])
        types = {r["data_type"] for r in rows}
        if (
            params.agg is not None
            and params.agg not in (*NON_NUMERIC_AGGS, *STATE_AGGS)
            and types - {"number"}
        ):
            raise invalid_parameter(
                "agg", f"{identifier!r} is not a number field: it takes count or last only"
            )
        columns.append(Column(identifier, _kind(types, params.agg)))
        for r in rows:
            map_fields.append(r["num"])
            map_profiles.append(r["profile_id"])
            map_positions.append(position)
            map_numeric.append(r["data_type"] == "number")
            map_types.append(r["data_type"])

    start, end = params.start, params.end
    if end <= params.cutoff:
        raise forbidden(
            ErrorCode.OUTSIDE_RETENTION, "the range is entirely outside the plan retention"
        )
    start = max(start, params.cutoff)
    plan = ExportPlan(
        format=params.format,
        layout=params.layout,
        fleet=fleet,
        tz=params.tz,
        columns=tuple(columns),
        device_nums=[d["num"] for d in devices],
        map_fields=map_fields,
        map_profiles=map_profiles,
        map_positions=map_positions,
        map_numeric=map_numeric,
        start=start,
        end=end,
        filename=filename(name, start, end, params.format),
        resolution=params.resolution,
        agg=params.agg,
        device_ids=[d["id"] for d in devices],
        device_euis=[d["dev_eui"] for d in devices],
        device_profiles=[d["profile_id"] for d in devices],
        chart=params.chart,
        map_types=map_types,
        cutoff=params.cutoff,
    )
    if plan.device_nums and plan.map_fields:
        if wide.applies(plan):
            counts = await count_device_readings(pool, settings, plan)
            plan = msgspec.structs.replace(plan, device_readings=counts)
            total = sum(counts)
        else:
            total = await count_readings(pool, settings, plan)
        limit = settings.export_max_readings
        if total > limit:
            raise invalid_parameter(
                "readings",
                f"the export holds {total:,} readings, more than {limit:,}; narrow the range,"
                " the fields or the devices",
            )
    return plan


def check_field(params: ExportParams, data_type: str, measurement: str | None) -> None:
    """Section 3's rules that depend on an exported field (its measurement and type), as
    /history checks them."""
    chart.check_field(params.chart, params.agg, data_type, measurement)
    if params.agg in STATE_AGGS:
        chart.state_value(params.chart, data_type)


def map_args(plan: ExportPlan) -> list[Any]:
    """$1..$7 of the row and count queries."""
    return [
        plan.device_nums,
        plan.map_fields,
        plan.map_profiles,
        plan.map_positions,
        plan.map_numeric,
        plan.start,
        plan.end,
    ]


def client_timeout(statement_timeout_ms: int) -> float:
    """The client-side bound of an export statement: a second above its own server-side
    statement_timeout, which is far above the pool's db_command_timeout_s (app/core/db.py)
    that would otherwise cut a long stream short."""
    return statement_timeout_ms / 1000 + 1.0


async def count_readings(pool: asyncpg.Pool, settings: Settings, plan: ExportPlan) -> int:
    async with pool.acquire() as connection, connection.transaction(readonly=True):
        await connection.execute(
            f"SET LOCAL statement_timeout = {int(settings.export_count_timeout_ms)}"
        )
        total: int = await connection.fetchval(
            QUERIES["export.count_readings"],
            *map_args(plan),
            timeout=client_timeout(settings.export_count_timeout_ms),
        )
    return total


async def count_device_readings(
    pool: asyncpg.Pool, settings: Settings, plan: ExportPlan
) -> list[int]:
    """The readings of each device of a raw wide export (app/export/wide.py), within the
    bound of the count."""
    async with pool.acquire() as connection, connection.transaction(readonly=True):
        await connection.execute(
            f"SET LOCAL statement_timeout = {int(settings.export_count_timeout_ms)}"
        )
        return await wide.device_counts(
            connection, plan, client_timeout(settings.export_count_timeout_ms)
        )


def names(plan: ExportPlan) -> list[str]:
    """$8: the field names as the format writes them in rows (see app/export/query.py)."""
    identifiers = [c.identifier for c in plan.columns]
    if plan.format == "ndjson":
        return [msgspec.json.encode(i).decode() for i in identifiers]
    if plan.format == "csv":
        return [neutralise(i) for i in identifiers]
    return identifiers


def header(plan: ExportPlan, format: Format) -> list[str]:
    lead = ["time", *(["deviceId", "devEui"] if plan.fleet else [])]
    lead += ["localTime"] if plan.tz is not None else []
    if plan.layout == "long":
        return [*lead, "field", "value", *(["valueText"] if format == "parquet" else [])]
    return [*lead, *(c.identifier for c in plan.columns)]


def filename(name: str, start: datetime, end: datetime, format: Format) -> str:
    stamp = "%Y%m%dT%H%M%SZ"
    return (
        f"telemetry-{name}-{start.astimezone(UTC).strftime(stamp)}"
        f"-{end.astimezone(UTC).strftime(stamp)}.{format}"
    )


def device_row(device: DeviceRef) -> dict[str, Any]:
    return {
        "num": device.num,
        "id": device.id,
        "dev_eui": device.dev_eui,
        "profile_id": device.profile_id,
    }
