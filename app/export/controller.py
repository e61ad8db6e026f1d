"""GET /devices/{id}/export and GET /export (integrations.md section 4)."""

from __future__ import annotations

from typing import Annotated, Any

import asyncpg
from litestar import Controller, Request, get
from litestar.di import Provide
from litestar.params import Parameter
from litestar.response import Stream

from app.auth.principal import Principal
from app.auth.tenancy import resolve_device
from app.core.config import Settings
from app.core.deadline import STATEMENT_BOUND
from app.core.enums import Scope
from app.core.routing import reader
from app.devices.filters import (
    DescendantsFilter,
    NetworkFilter,
    OnlineFilter,
    ProfileFilter,
    SiteFilter,
    SubAccountFilter,
    check_features,
    features,
    fleet_filters,
)
from app.export.service import (
    client_timeout,
    device_row,
    fleet_devices,
    parse_params,
    plan_export,
)
from app.export.structs import MEDIA_TYPES, ExportParams, ExportPlan
from app.export.writers import export_slots, stream_export

EXPORT_DESCRIPTION = """\
Every reading of the {what} in `[from, to)`, oldest first, streamed as one file (no 500
cap; a failure mid-stream aborts the connection, so a cut file never looks whole).

- `format`: `csv` (default; RFC 4180 with a header row; a string cell beginning with `=`,
  `+`, `-`, `@` or a tab gets a leading `'`), `ndjson` (one object per line) or `parquet`
  (typed columns: timestamp UTC, float64, string, bool).
- `layout`: `wide` (default; one row per reading time, a column per field in the order
  asked) or `long` (one row per reading: `field`, `value`; Parquet adds `valueText` for
  values that are not numbers).
- Columns: `time` (RFC 3339 UTC){fleet_columns}, `localTime` with `tz` (ISO 8601 with
  the zone's offset), then the fields.
- `fields`: comma-separated identifiers or `signal_quality`; default every decoded and
  derived field.
- `resolution` (`hourly`, `daily` or an ISO 8601 duration) with `agg` (one for every
  field; default `avg`), `tz` and `fill`: a row per bucket instead of per reading, `time`
  its start, oldest first, each value the bucket's `agg`, equal to what `POST /query` and
  `/history` give (at most 10,000 buckets per series). `agg` takes the aggregates of
  `/history`: `increase` (counter fields), `twa` and `integral` (number fields),
  `duration` (state fields, with `state`); on a field of another measurement 400
  `invalid_parameter` naming it. `fill` (`null`, `previous`, `linear`, `zero` with count
  and sum) and `fillMaxGap` (with `previous`) give every bucket of the range a value as
  on `/history`; a filled null is an empty cell. `maxPoints` (raw, number fields) with
  `downsample` (`lttb` or `minmax`) reduces each series to at most that many real
  readings, the ones `/history` gives.
- `from` and `to` are clamped by the plan's retention as on `/history` (entirely outside:
  403 `outside_retention`). At most 10,000 devices and 50,000,000 readings per request,
  else 400 `invalid_parameter` naming the bound. Counts as one request. A server
  already streaming its limit of exports answers 503 `unavailable` with `Retry-After`.
"""

FieldsParam = Annotated[
    str | None,
    Parameter(description="Comma-separated field identifiers or `signal_quality`."),
]
FromParam = Annotated[
    str | None,
    Parameter(
        query="from",
        description="Start (inclusive): an ISO 8601 timestamp, `now` or `now-<duration>`.",
    ),
]
ToParam = Annotated[
    str | None,
    Parameter(description="End (exclusive): an ISO 8601 timestamp, `now` or `now-<duration>`."),
]
FormatParam = Annotated[str | None, Parameter(description="`csv` (default), `ndjson`, `parquet`.")]
LayoutParam = Annotated[str | None, Parameter(description="`wide` (default) or `long`.")]
TzParam = Annotated[
    str | None,
    Parameter(
        description="IANA time zone: adds a `localTime` column; with `resolution`, the zone "
        "of the buckets."
    ),
]
ResolutionParam = Annotated[
    str | None,
    Parameter(
        description="`raw` (default: every reading), `hourly`, `daily` or an ISO 8601 "
        "duration: a row per bucket, as `/history` buckets."
    ),
]
AggParam = Annotated[
    str | None,
    Parameter(
        description="Bucketed only, one for every field: avg (default), min, max, sum, count, "
        "last, increase (counter fields), twa and integral (number fields), duration (state "
        "fields, with `state`)."
    ),
]
FillParam = Annotated[
    str | None,
    Parameter(
        description="Bucketed only: `none` (default), `null`, `previous`, `linear` or `zero` "
        "(count and sum only): a row for every bucket of the range."
    ),
]
FillMaxGapParam = Annotated[
    str | None,
    Parameter(
        query="fillMaxGap",
        description="With `fill=previous` only: an ISO 8601 duration; a bucket starting more "
        "than that after the newest reading it would carry stays null.",
    ),
]
MaxPointsParam = Annotated[
    str | None,
    Parameter(
        query="maxPoints",
        description="Raw, number fields only: 2..10,000; each series' readings reduced to at "
        "most this many real readings.",
    ),
]
DownsampleParam = Annotated[
    str | None, Parameter(description="With `maxPoints`: `lttb` (default) or `minmax`.")
]
StateParam = Annotated[
    str | None,
    Parameter(
        query="state",
        description="With `agg=duration` (required there): the state value timed (a "
        "boolean's as `true` or `false`).",
    ),
]


def provide_params(
    principal: Principal,
    fields: FieldsParam = None,
    from_: FromParam = None,
    to: ToParam = None,
    format: FormatParam = None,
    layout: LayoutParam = None,
    tz: TzParam = None,
    resolution: ResolutionParam = None,
    agg: AggParam = None,
    fill: FillParam = None,
    fill_max_gap: FillMaxGapParam = None,
    state_value: StateParam = None,
    max_points: MaxPointsParam = None,
    downsample: DownsampleParam = None,
) -> ExportParams:
    """The `params` dependency: the query parameters both export routes take, declared once
    and checked before the route resolves its device or fleet."""
    return parse_params(
        principal, fields, from_, to, format, layout, tz, resolution, agg,
        fill=fill, fill_max_gap=fill_max_gap, state=state_value, max_points=max_points,
        method=downsample,
    )  # fmt: skip


def respond(request: Request[Any, Any, Any], pool: asyncpg.Pool, plan: ExportPlan) -> Stream:
    settings = request.app.state.settings
    slots = export_slots(request.app.state, settings)
    slots.check()
    return Stream(
        stream_export(pool, settings, plan, slots),
        media_type=MEDIA_TYPES[plan.format],
        headers={
            "Content-Disposition": f'attachment; filename="{plan.filename}"',
            "Cache-Control": "no-store",
        },
    )


def export_statement_bound(settings: Settings) -> float:
    """An export's answer starts after its size count, which has its own bound."""
    return client_timeout(settings.export_count_timeout_ms)


class ExportController(Controller):
    opt = {"scope": Scope.TELEMETRY_READ, STATEMENT_BOUND: export_statement_bound}
    tags = ["Export"]
    before_request = staticmethod(check_features)
    dependencies = {"params": Provide(provide_params, sync_to_thread=False)}

    @get(
        "/devices/{device_ref:str}/export",
        operation_id="exportDeviceTelemetry",
        summary="Every reading of one device in a range, as CSV, NDJSON or Parquet",
        description=EXPORT_DESCRIPTION.format(what="device", fleet_columns=""),
    )
    async def export_device(
        self,
        request: Request[Any, Any, Any],
        pool: asyncpg.Pool,
        principal: Principal,
        device_ref: Annotated[str, Parameter(description="Service id (UUID) or DevEUI.")],
        params: ExportParams,
    ) -> Stream:
        pool = reader(principal)  # a read that tolerates staleness: a standby may serve it
        device = await resolve_device(pool, principal, device_ref, live=True)
        settings = request.app.state.settings
        plan = await plan_export(
            pool, settings, params, [device_row(device)], fleet=False, name=device.dev_eui
        )
        return respond(request, pool, plan)

    @get(
        "/export",
        operation_id="exportFleetTelemetry",
        summary="Every reading of the devices the filters select, as CSV, NDJSON or Parquet",
        description=EXPORT_DESCRIPTION.format(
            what="assigned devices that the filters of `GET /devices` select",
            fleet_columns=", `deviceId`, `devEui`; rows by device id, then time",
        ),
        opt=features(networkId="networks", siteId="multi_site"),
    )
    async def export_fleet(
        self,
        request: Request[Any, Any, Any],
        pool: asyncpg.Pool,
        principal: Principal,
        params: ExportParams,
        sub_account_id: SubAccountFilter = None,
        device_profile_id: ProfileFilter = None,
        network_id: NetworkFilter = None,
        site_id: SiteFilter = None,
        include_descendants: DescendantsFilter = None,
        online: OnlineFilter = None,
        search: str | None = None,
    ) -> Stream:
        filters = fleet_filters(
            principal,
            sub_account_id=sub_account_id,
            device_profile_id=device_profile_id,
            network_id=network_id,
            site_id=site_id,
            include_descendants=include_descendants,
            online=online,
            search=search,
        )
        settings = request.app.state.settings
        pool = reader(principal)  # a read that tolerates staleness: a standby may serve it
        devices = await fleet_devices(pool, principal, filters, settings.export_max_devices)
        plan = await plan_export(pool, settings, params, devices, fleet=True, name="fleet")
        return respond(request, pool, plan)
