from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_envelope import ErrorEnvelope
from ...models.export_fleet_telemetry_agg import ExportFleetTelemetryAgg
from ...models.export_fleet_telemetry_downsample import ExportFleetTelemetryDownsample
from ...models.export_fleet_telemetry_fill import ExportFleetTelemetryFill
from ...models.export_fleet_telemetry_format import ExportFleetTelemetryFormat
from ...models.export_fleet_telemetry_include_descendants import ExportFleetTelemetryIncludeDescendants
from ...models.export_fleet_telemetry_layout import ExportFleetTelemetryLayout
from ...models.export_fleet_telemetry_network_id_type_1 import ExportFleetTelemetryNetworkIdType1
from ...models.export_fleet_telemetry_online import ExportFleetTelemetryOnline
from ...models.export_fleet_telemetry_site_id_type_1 import ExportFleetTelemetrySiteIdType1
from ...types import UNSET, Unset
from typing import cast
from uuid import UUID



def _get_kwargs(
    *,
    fields: str | Unset = UNSET,
    from_: Any,
    to: Any,
    format_: ExportFleetTelemetryFormat | Unset = ExportFleetTelemetryFormat.CSV,
    layout: ExportFleetTelemetryLayout | Unset = ExportFleetTelemetryLayout.WIDE,
    tz: str | Unset = UNSET,
    resolution: str | Unset = 'raw',
    agg: ExportFleetTelemetryAgg | Unset = ExportFleetTelemetryAgg.AVG,
    fill: ExportFleetTelemetryFill | Unset = ExportFleetTelemetryFill.NONE,
    fill_max_gap: str | Unset = UNSET,
    state: str | Unset = UNSET,
    max_points: int | Unset = UNSET,
    downsample: ExportFleetTelemetryDownsample | Unset = ExportFleetTelemetryDownsample.LTTB,
    sub_account_id: UUID | Unset = UNSET,
    device_profile_id: UUID | Unset = UNSET,
    network_id: Any | ExportFleetTelemetryNetworkIdType1 | Unset = UNSET,
    site_id: Any | ExportFleetTelemetrySiteIdType1 | Unset = UNSET,
    include_descendants: ExportFleetTelemetryIncludeDescendants | Unset = UNSET,
    online: ExportFleetTelemetryOnline | Unset = UNSET,
    search: str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["fields"] = fields

    json_from_: Any
    json_from_ = from_
    params["from"] = json_from_

    json_to: Any
    json_to = to
    params["to"] = json_to

    json_format_: str | Unset = UNSET
    if not isinstance(format_, Unset):
        json_format_ = format_.value

    params["format"] = json_format_

    json_layout: str | Unset = UNSET
    if not isinstance(layout, Unset):
        json_layout = layout.value

    params["layout"] = json_layout

    params["tz"] = tz

    params["resolution"] = resolution

    json_agg: str | Unset = UNSET
    if not isinstance(agg, Unset):
        json_agg = agg.value

    params["agg"] = json_agg

    json_fill: str | Unset = UNSET
    if not isinstance(fill, Unset):
        json_fill = fill.value

    params["fill"] = json_fill

    params["fillMaxGap"] = fill_max_gap

    params["state"] = state

    params["maxPoints"] = max_points

    json_downsample: str | Unset = UNSET
    if not isinstance(downsample, Unset):
        json_downsample = downsample.value

    params["downsample"] = json_downsample

    json_sub_account_id: str | Unset = UNSET
    if not isinstance(sub_account_id, Unset):
        json_sub_account_id = str(sub_account_id)
    params["subAccountId"] = json_sub_account_id

    json_device_profile_id: str | Unset = UNSET
    if not isinstance(device_profile_id, Unset):
        json_device_profile_id = str(device_profile_id)
    params["deviceProfileId"] = json_device_profile_id

    json_network_id: Any | str | Unset
    if isinstance(network_id, Unset):
        json_network_id = UNSET
    elif isinstance(network_id, ExportFleetTelemetryNetworkIdType1):
        json_network_id = network_id.value
    else:
        json_network_id = network_id
    params["networkId"] = json_network_id

    json_site_id: Any | str | Unset
    if isinstance(site_id, Unset):
        json_site_id = UNSET
    elif isinstance(site_id, ExportFleetTelemetrySiteIdType1):
        json_site_id = site_id.value
    else:
        json_site_id = site_id
    params["siteId"] = json_site_id

    json_include_descendants: str | Unset = UNSET
    if not isinstance(include_descendants, Unset):
        json_include_descendants = include_descendants.value

    params["includeDescendants"] = json_include_descendants

    json_online: str | Unset = UNSET
    if not isinstance(online, Unset):
        json_online = online.value

    params["online"] = json_online

    params["search"] = search


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/export",
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorEnvelope | str | None:
    if response.status_code == 200:
        response_200 = response.text
        return response_200

    if response.status_code == 400:
        response_400 = ErrorEnvelope.from_dict(response.json())



        return response_400

    if response.status_code == 401:
        response_401 = ErrorEnvelope.from_dict(response.json())



        return response_401

    if response.status_code == 403:
        response_403 = ErrorEnvelope.from_dict(response.json())



        return response_403

    if response.status_code == 413:
        response_413 = ErrorEnvelope.from_dict(response.json())



        return response_413

    if response.status_code == 414:
        response_414 = ErrorEnvelope.from_dict(response.json())



        return response_414

    if response.status_code == 429:
        response_429 = ErrorEnvelope.from_dict(response.json())



        return response_429

    if response.status_code == 431:
        response_431 = ErrorEnvelope.from_dict(response.json())



        return response_431

    if response.status_code == 503:
        response_503 = ErrorEnvelope.from_dict(response.json())



        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorEnvelope | str]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    fields: str | Unset = UNSET,
    from_: Any,
    to: Any,
    format_: ExportFleetTelemetryFormat | Unset = ExportFleetTelemetryFormat.CSV,
    layout: ExportFleetTelemetryLayout | Unset = ExportFleetTelemetryLayout.WIDE,
    tz: str | Unset = UNSET,
    resolution: str | Unset = 'raw',
    agg: ExportFleetTelemetryAgg | Unset = ExportFleetTelemetryAgg.AVG,
    fill: ExportFleetTelemetryFill | Unset = ExportFleetTelemetryFill.NONE,
    fill_max_gap: str | Unset = UNSET,
    state: str | Unset = UNSET,
    max_points: int | Unset = UNSET,
    downsample: ExportFleetTelemetryDownsample | Unset = ExportFleetTelemetryDownsample.LTTB,
    sub_account_id: UUID | Unset = UNSET,
    device_profile_id: UUID | Unset = UNSET,
    network_id: Any | ExportFleetTelemetryNetworkIdType1 | Unset = UNSET,
    site_id: Any | ExportFleetTelemetrySiteIdType1 | Unset = UNSET,
    include_descendants: ExportFleetTelemetryIncludeDescendants | Unset = UNSET,
    online: ExportFleetTelemetryOnline | Unset = UNSET,
    search: str | Unset = UNSET,

) -> Response[ErrorEnvelope | str]:
    """ Every reading of the devices the filters select, as CSV, NDJSON or Parquet

     Every reading of the assigned devices that the filters of `GET /devices` select in `[from, to)`,
    oldest first, streamed as one file (no 500
    cap; a failure mid-stream aborts the connection, so a cut file never looks whole).

    - `format`: `csv` (default; RFC 4180 with a header row; a string cell beginning with `=`,
      `+`, `-`, `@` or a tab gets a leading `'`), `ndjson` (one object per line) or `parquet`
      (typed columns: timestamp UTC, float64, string, bool).
    - `layout`: `wide` (default; one row per reading time, a column per field in the order
      asked) or `long` (one row per reading: `field`, `value`; Parquet adds `valueText` for
      values that are not numbers).
    - Columns: `time` (RFC 3339 UTC), `deviceId`, `devEui`; rows by device id, then time, `localTime`
    with `tz` (ISO 8601 with
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

    Args:
        fields (str | Unset): Comma-separated field identifiers or `signal_quality`.
        from_ (Any): Start (inclusive): an ISO 8601 timestamp, `now` or `now-<duration>`.
        to (Any): End (exclusive): an ISO 8601 timestamp, `now` or `now-<duration>`.
        format_ (ExportFleetTelemetryFormat | Unset): `csv` (default), `ndjson`, `parquet`.
            Default: ExportFleetTelemetryFormat.CSV.
        layout (ExportFleetTelemetryLayout | Unset): `wide` (default) or `long`. Default:
            ExportFleetTelemetryLayout.WIDE.
        tz (str | Unset): IANA time zone: adds a `localTime` column; with `resolution`, the zone
            of the buckets.
        resolution (str | Unset): `raw` (default: every reading), `hourly`, `daily` or an ISO 8601
            duration: a row per bucket, as `/history` buckets. Default: 'raw'.
        agg (ExportFleetTelemetryAgg | Unset): Bucketed only, one for every field: avg (default),
            min, max, sum, count, last, increase (counter fields), twa and integral (number fields),
            duration (state fields, with `state`). Default: ExportFleetTelemetryAgg.AVG.
        fill (ExportFleetTelemetryFill | Unset): Bucketed only: `none` (default), `null`,
            `previous`, `linear` or `zero` (count and sum only): a row for every bucket of the range.
            Default: ExportFleetTelemetryFill.NONE.
        fill_max_gap (str | Unset): With `fill=previous` only: an ISO 8601 duration; a bucket
            starting more than that after the newest reading it would carry stays null.
        state (str | Unset): With `agg=duration` (required there): the state value timed (a
            boolean's as `true` or `false`).
        max_points (int | Unset): Raw, number fields only: 2..10,000; each series' readings
            reduced to at most this many real readings.
        downsample (ExportFleetTelemetryDownsample | Unset): With `maxPoints`: `lttb` (default) or
            `minmax`. Default: ExportFleetTelemetryDownsample.LTTB.
        sub_account_id (UUID | Unset):
        device_profile_id (UUID | Unset):
        network_id (Any | ExportFleetTelemetryNetworkIdType1 | Unset): A network id or `none`.
        site_id (Any | ExportFleetTelemetrySiteIdType1 | Unset): A site id or `none`.
        include_descendants (ExportFleetTelemetryIncludeDescendants | Unset): `true` or `false`.
        online (ExportFleetTelemetryOnline | Unset): `true` or `false`.
        search (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | str]
     """


    kwargs = _get_kwargs(
        fields=fields,
from_=from_,
to=to,
format_=format_,
layout=layout,
tz=tz,
resolution=resolution,
agg=agg,
fill=fill,
fill_max_gap=fill_max_gap,
state=state,
max_points=max_points,
downsample=downsample,
sub_account_id=sub_account_id,
device_profile_id=device_profile_id,
network_id=network_id,
site_id=site_id,
include_descendants=include_descendants,
online=online,
search=search,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    fields: str | Unset = UNSET,
    from_: Any,
    to: Any,
    format_: ExportFleetTelemetryFormat | Unset = ExportFleetTelemetryFormat.CSV,
    layout: ExportFleetTelemetryLayout | Unset = ExportFleetTelemetryLayout.WIDE,
    tz: str | Unset = UNSET,
    resolution: str | Unset = 'raw',
    agg: ExportFleetTelemetryAgg | Unset = ExportFleetTelemetryAgg.AVG,
    fill: ExportFleetTelemetryFill | Unset = ExportFleetTelemetryFill.NONE,
    fill_max_gap: str | Unset = UNSET,
    state: str | Unset = UNSET,
    max_points: int | Unset = UNSET,
    downsample: ExportFleetTelemetryDownsample | Unset = ExportFleetTelemetryDownsample.LTTB,
    sub_account_id: UUID | Unset = UNSET,
    device_profile_id: UUID | Unset = UNSET,
    network_id: Any | ExportFleetTelemetryNetworkIdType1 | Unset = UNSET,
    site_id: Any | ExportFleetTelemetrySiteIdType1 | Unset = UNSET,
    include_descendants: ExportFleetTelemetryIncludeDescendants | Unset = UNSET,
    online: ExportFleetTelemetryOnline | Unset = UNSET,
    search: str | Unset = UNSET,

) -> ErrorEnvelope | str | None:
    """ Every reading of the devices the filters select, as CSV, NDJSON or Parquet

     Every reading of the assigned devices that the filters of `GET /devices` select in `[from, to)`,
    oldest first, streamed as one file (no 500
    cap; a failure mid-stream aborts the connection, so a cut file never looks whole).

    - `format`: `csv` (default; RFC 4180 with a header row; a string cell beginning with `=`,
      `+`, `-`, `@` or a tab gets a leading `'`), `ndjson` (one object per line) or `parquet`
      (typed columns: timestamp UTC, float64, string, bool).
    - `layout`: `wide` (default; one row per reading time, a column per field in the order
      asked) or `long` (one row per reading: `field`, `value`; Parquet adds `valueText` for
      values that are not numbers).
    - Columns: `time` (RFC 3339 UTC), `deviceId`, `devEui`; rows by device id, then time, `localTime`
    with `tz` (ISO 8601 with
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

    Args:
        fields (str | Unset): Comma-separated field identifiers or `signal_quality`.
        from_ (Any): Start (inclusive): an ISO 8601 timestamp, `now` or `now-<duration>`.
        to (Any): End (exclusive): an ISO 8601 timestamp, `now` or `now-<duration>`.
        format_ (ExportFleetTelemetryFormat | Unset): `csv` (default), `ndjson`, `parquet`.
            Default: ExportFleetTelemetryFormat.CSV.
        layout (ExportFleetTelemetryLayout | Unset): `wide` (default) or `long`. Default:
            ExportFleetTelemetryLayout.WIDE.
        tz (str | Unset): IANA time zone: adds a `localTime` column; with `resolution`, the zone
            of the buckets.
        resolution (str | Unset): `raw` (default: every reading), `hourly`, `daily` or an ISO 8601
            duration: a row per bucket, as `/history` buckets. Default: 'raw'.
        agg (ExportFleetTelemetryAgg | Unset): Bucketed only, one for every field: avg (default),
            min, max, sum, count, last, increase (counter fields), twa and integral (number fields),
            duration (state fields, with `state`). Default: ExportFleetTelemetryAgg.AVG.
        fill (ExportFleetTelemetryFill | Unset): Bucketed only: `none` (default), `null`,
            `previous`, `linear` or `zero` (count and sum only): a row for every bucket of the range.
            Default: ExportFleetTelemetryFill.NONE.
        fill_max_gap (str | Unset): With `fill=previous` only: an ISO 8601 duration; a bucket
            starting more than that after the newest reading it would carry stays null.
        state (str | Unset): With `agg=duration` (required there): the state value timed (a
            boolean's as `true` or `false`).
        max_points (int | Unset): Raw, number fields only: 2..10,000; each series' readings
            reduced to at most this many real readings.
        downsample (ExportFleetTelemetryDownsample | Unset): With `maxPoints`: `lttb` (default) or
            `minmax`. Default: ExportFleetTelemetryDownsample.LTTB.
        sub_account_id (UUID | Unset):
        device_profile_id (UUID | Unset):
        network_id (Any | ExportFleetTelemetryNetworkIdType1 | Unset): A network id or `none`.
        site_id (Any | ExportFleetTelemetrySiteIdType1 | Unset): A site id or `none`.
        include_descendants (ExportFleetTelemetryIncludeDescendants | Unset): `true` or `false`.
        online (ExportFleetTelemetryOnline | Unset): `true` or `false`.
        search (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | str
     """


    return sync_detailed(
        client=client,
fields=fields,
from_=from_,
to=to,
format_=format_,
layout=layout,
tz=tz,
resolution=resolution,
agg=agg,
fill=fill,
fill_max_gap=fill_max_gap,
state=state,
max_points=max_points,
downsample=downsample,
sub_account_id=sub_account_id,
device_profile_id=device_profile_id,
network_id=network_id,
site_id=site_id,
include_descendants=include_descendants,
online=online,
search=search,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    fields: str | Unset = UNSET,
    from_: Any,
    to: Any,
    format_: ExportFleetTelemetryFormat | Unset = ExportFleetTelemetryFormat.CSV,
    layout: ExportFleetTelemetryLayout | Unset = ExportFleetTelemetryLayout.WIDE,
    tz: str | Unset = UNSET,
    resolution: str | Unset = 'raw',
    agg: ExportFleetTelemetryAgg | Unset = ExportFleetTelemetryAgg.AVG,
    fill: ExportFleetTelemetryFill | Unset = ExportFleetTelemetryFill.NONE,
    fill_max_gap: str | Unset = UNSET,
    state: str | Unset = UNSET,
    max_points: int | Unset = UNSET,
    downsample: ExportFleetTelemetryDownsample | Unset = ExportFleetTelemetryDownsample.LTTB,
    sub_account_id: UUID | Unset = UNSET,
    device_profile_id: UUID | Unset = UNSET,
    network_id: Any | ExportFleetTelemetryNetworkIdType1 | Unset = UNSET,
    site_id: Any | ExportFleetTelemetrySiteIdType1 | Unset = UNSET,
    include_descendants: ExportFleetTelemetryIncludeDescendants | Unset = UNSET,
    online: ExportFleetTelemetryOnline | Unset = UNSET,
    search: str | Unset = UNSET,

) -> Response[ErrorEnvelope | str]:
    """ Every reading of the devices the filters select, as CSV, NDJSON or Parquet

     Every reading of the assigned devices that the filters of `GET /devices` select in `[from, to)`,
    oldest first, streamed as one file (no 500
    cap; a failure mid-stream aborts the connection, so a cut file never looks whole).

    - `format`: `csv` (default; RFC 4180 with a header row; a string cell beginning with `=`,
      `+`, `-`, `@` or a tab gets a leading `'`), `ndjson` (one object per line) or `parquet`
      (typed columns: timestamp UTC, float64, string, bool).
    - `layout`: `wide` (default; one row per reading time, a column per field in the order
      asked) or `long` (one row per reading: `field`, `value`; Parquet adds `valueText` for
      values that are not numbers).
    - Columns: `time` (RFC 3339 UTC), `deviceId`, `devEui`; rows by device id, then time, `localTime`
    with `tz` (ISO 8601 with
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

    Args:
        fields (str | Unset): Comma-separated field identifiers or `signal_quality`.
        from_ (Any): Start (inclusive): an ISO 8601 timestamp, `now` or `now-<duration>`.
        to (Any): End (exclusive): an ISO 8601 timestamp, `now` or `now-<duration>`.
        format_ (ExportFleetTelemetryFormat | Unset): `csv` (default), `ndjson`, `parquet`.
            Default: ExportFleetTelemetryFormat.CSV.
        layout (ExportFleetTelemetryLayout | Unset): `wide` (default) or `long`. Default:
            ExportFleetTelemetryLayout.WIDE.
        tz (str | Unset): IANA time zone: adds a `localTime` column; with `resolution`, the zone
            of the buckets.
        resolution (str | Unset): `raw` (default: every reading), `hourly`, `daily` or an ISO 8601
            duration: a row per bucket, as `/history` buckets. Default: 'raw'.
        agg (ExportFleetTelemetryAgg | Unset): Bucketed only, one for every field: avg (default),
            min, max, sum, count, last, increase (counter fields), twa and integral (number fields),
            duration (state fields, with `state`). Default: ExportFleetTelemetryAgg.AVG.
        fill (ExportFleetTelemetryFill | Unset): Bucketed only: `none` (default), `null`,
            `previous`, `linear` or `zero` (count and sum only): a row for every bucket of the range.
            Default: ExportFleetTelemetryFill.NONE.
        fill_max_gap (str | Unset): With `fill=previous` only: an ISO 8601 duration; a bucket
            starting more than that after the newest reading it would carry stays null.
        state (str | Unset): With `agg=duration` (required there): the state value timed (a
            boolean's as `true` or `false`).
        max_points (int | Unset): Raw, number fields only: 2..10,000; each series' readings
            reduced to at most this many real readings.
        downsample (ExportFleetTelemetryDownsample | Unset): With `maxPoints`: `lttb` (default) or
            `minmax`. Default: ExportFleetTelemetryDownsample.LTTB.
        sub_account_id (UUID | Unset):
        device_profile_id (UUID | Unset):
        network_id (Any | ExportFleetTelemetryNetworkIdType1 | Unset): A network id or `none`.
        site_id (Any | ExportFleetTelemetrySiteIdType1 | Unset): A site id or `none`.
        include_descendants (ExportFleetTelemetryIncludeDescendants | Unset): `true` or `false`.
        online (ExportFleetTelemetryOnline | Unset): `true` or `false`.
        search (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | str]
     """


    kwargs = _get_kwargs(
        fields=fields,
from_=from_,
to=to,
format_=format_,
layout=layout,
tz=tz,
resolution=resolution,
agg=agg,
fill=fill,
fill_max_gap=fill_max_gap,
state=state,
max_points=max_points,
downsample=downsample,
sub_account_id=sub_account_id,
device_profile_id=device_profile_id,
network_id=network_id,
site_id=site_id,
include_descendants=include_descendants,
online=online,
search=search,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    fields: str | Unset = UNSET,
    from_: Any,
    to: Any,
    format_: ExportFleetTelemetryFormat | Unset = ExportFleetTelemetryFormat.CSV,
    layout: ExportFleetTelemetryLayout | Unset = ExportFleetTelemetryLayout.WIDE,
    tz: str | Unset = UNSET,
    resolution: str | Unset = 'raw',
    agg: ExportFleetTelemetryAgg | Unset = ExportFleetTelemetryAgg.AVG,
    fill: ExportFleetTelemetryFill | Unset = ExportFleetTelemetryFill.NONE,
    fill_max_gap: str | Unset = UNSET,
    state: str | Unset = UNSET,
    max_points: int | Unset = UNSET,
    downsample: ExportFleetTelemetryDownsample | Unset = ExportFleetTelemetryDownsample.LTTB,
    sub_account_id: UUID | Unset = UNSET,
    device_profile_id: UUID | Unset = UNSET,
    network_id: Any | ExportFleetTelemetryNetworkIdType1 | Unset = UNSET,
    site_id: Any | ExportFleetTelemetrySiteIdType1 | Unset = UNSET,
    include_descendants: ExportFleetTelemetryIncludeDescendants | Unset = UNSET,
    online: ExportFleetTelemetryOnline | Unset = UNSET,
    search: str | Unset = UNSET,

) -> ErrorEnvelope | str | None:
    """ Every reading of the devices the filters select, as CSV, NDJSON or Parquet

     Every reading of the assigned devices that the filters of `GET /devices` select in `[from, to)`,
    oldest first, streamed as one file (no 500
    cap; a failure mid-stream aborts the connection, so a cut file never looks whole).

    - `format`: `csv` (default; RFC 4180 with a header row; a string cell beginning with `=`,
      `+`, `-`, `@` or a tab gets a leading `'`), `ndjson` (one object per line) or `parquet`
      (typed columns: timestamp UTC, float64, string, bool).
    - `layout`: `wide` (default; one row per reading time, a column per field in the order
      asked) or `long` (one row per reading: `field`, `value`; Parquet adds `valueText` for
      values that are not numbers).
    - Columns: `time` (RFC 3339 UTC), `deviceId`, `devEui`; rows by device id, then time, `localTime`
    with `tz` (ISO 8601 with
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

    Args:
        fields (str | Unset): Comma-separated field identifiers or `signal_quality`.
        from_ (Any): Start (inclusive): an ISO 8601 timestamp, `now` or `now-<duration>`.
        to (Any): End (exclusive): an ISO 8601 timestamp, `now` or `now-<duration>`.
        format_ (ExportFleetTelemetryFormat | Unset): `csv` (default), `ndjson`, `parquet`.
            Default: ExportFleetTelemetryFormat.CSV.
        layout (ExportFleetTelemetryLayout | Unset): `wide` (default) or `long`. Default:
            ExportFleetTelemetryLayout.WIDE.
        tz (str | Unset): IANA time zone: adds a `localTime` column; with `resolution`, the zone
            of the buckets.
        resolution (str | Unset): `raw` (default: every reading), `hourly`, `daily` or an ISO 8601
            duration: a row per bucket, as `/history` buckets. Default: 'raw'.
        agg (ExportFleetTelemetryAgg | Unset): Bucketed only, one for every field: avg (default),
            min, max, sum, count, last, increase (counter fields), twa and integral (number fields),
            duration (state fields, with `state`). Default: ExportFleetTelemetryAgg.AVG.
        fill (ExportFleetTelemetryFill | Unset): Bucketed only: `none` (default), `null`,
            `previous`, `linear` or `zero` (count and sum only): a row for every bucket of the range.
            Default: ExportFleetTelemetryFill.NONE.
        fill_max_gap (str | Unset): With `fill=previous` only: an ISO 8601 duration; a bucket
            starting more than that after the newest reading it would carry stays null.
        state (str | Unset): With `agg=duration` (required there): the state value timed (a
            boolean's as `true` or `false`).
        max_points (int | Unset): Raw, number fields only: 2..10,000; each series' readings
            reduced to at most this many real readings.
        downsample (ExportFleetTelemetryDownsample | Unset): With `maxPoints`: `lttb` (default) or
            `minmax`. Default: ExportFleetTelemetryDownsample.LTTB.
        sub_account_id (UUID | Unset):
        device_profile_id (UUID | Unset):
        network_id (Any | ExportFleetTelemetryNetworkIdType1 | Unset): A network id or `none`.
        site_id (Any | ExportFleetTelemetrySiteIdType1 | Unset): A site id or `none`.
        include_descendants (ExportFleetTelemetryIncludeDescendants | Unset): `true` or `false`.
        online (ExportFleetTelemetryOnline | Unset): `true` or `false`.
        search (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | str
     """


    return (await asyncio_detailed(
        client=client,
fields=fields,
from_=from_,
to=to,
format_=format_,
layout=layout,
tz=tz,
resolution=resolution,
agg=agg,
fill=fill,
fill_max_gap=fill_max_gap,
state=state,
max_points=max_points,
downsample=downsample,
sub_account_id=sub_account_id,
device_profile_id=device_profile_id,
network_id=network_id,
site_id=site_id,
include_descendants=include_descendants,
online=online,
search=search,

    )).parsed
