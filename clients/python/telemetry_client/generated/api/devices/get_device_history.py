from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_envelope import ErrorEnvelope
from ...models.get_device_history_agg import GetDeviceHistoryAgg
from ...models.get_device_history_downsample import GetDeviceHistoryDownsample
from ...models.get_device_history_fill import GetDeviceHistoryFill
from ...models.history_response import HistoryResponse
from ...types import UNSET, Unset
from typing import cast
from uuid import UUID



def _get_kwargs(
    device_ref: Any,
    *,
    field: str,
    from_: Any,
    to: Any,
    resolution: str | Unset = 'raw',
    agg: GetDeviceHistoryAgg | Unset = GetDeviceHistoryAgg.AVG,
    site_id: UUID | Unset = UNSET,
    tz: str | Unset = UNSET,
    fill: GetDeviceHistoryFill | Unset = GetDeviceHistoryFill.NONE,
    fill_max_gap: str | Unset = UNSET,
    max_points: int | Unset = UNSET,
    downsample: GetDeviceHistoryDownsample | Unset = GetDeviceHistoryDownsample.LTTB,
    state: str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["field"] = field

    json_from_: Any
    json_from_ = from_
    params["from"] = json_from_

    json_to: Any
    json_to = to
    params["to"] = json_to

    params["resolution"] = resolution

    json_agg: str | Unset = UNSET
    if not isinstance(agg, Unset):
        json_agg = agg.value

    params["agg"] = json_agg

    json_site_id: str | Unset = UNSET
    if not isinstance(site_id, Unset):
        json_site_id = str(site_id)
    params["siteId"] = json_site_id

    params["tz"] = tz

    json_fill: str | Unset = UNSET
    if not isinstance(fill, Unset):
        json_fill = fill.value

    params["fill"] = json_fill

    params["fillMaxGap"] = fill_max_gap

    params["maxPoints"] = max_points

    json_downsample: str | Unset = UNSET
    if not isinstance(downsample, Unset):
        json_downsample = downsample.value

    params["downsample"] = json_downsample

    params["state"] = state


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/devices/{device_ref}/history".format(device_ref=quote(str(device_ref), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorEnvelope | HistoryResponse | None:
    if response.status_code == 200:
        response_200 = HistoryResponse.from_dict(response.json())



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

    if response.status_code == 404:
        response_404 = ErrorEnvelope.from_dict(response.json())



        return response_404

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorEnvelope | HistoryResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    device_ref: Any,
    *,
    client: AuthenticatedClient,
    field: str,
    from_: Any,
    to: Any,
    resolution: str | Unset = 'raw',
    agg: GetDeviceHistoryAgg | Unset = GetDeviceHistoryAgg.AVG,
    site_id: UUID | Unset = UNSET,
    tz: str | Unset = UNSET,
    fill: GetDeviceHistoryFill | Unset = GetDeviceHistoryFill.NONE,
    fill_max_gap: str | Unset = UNSET,
    max_points: int | Unset = UNSET,
    downsample: GetDeviceHistoryDownsample | Unset = GetDeviceHistoryDownsample.LTTB,
    state: str | Unset = UNSET,

) -> Response[ErrorEnvelope | HistoryResponse]:
    """ Time series of one device field

     The readings of one field in `[from, to)`.

    - `resolution=raw` (default): the newest 500 readings, newest first, each with the
      `siteId` of the site the device was at when the reading arrived; `truncated: true`
      when more matched (page back with `to` = the oldest `time` received).
    - `hourly`, `daily` or an ISO 8601 duration of at least `PT1S` (`PT15M`, `PT6H`, `P1W`,
      `P1M`, ...): one point per non-empty bucket, newest first, `time` = the bucket start.
      Buckets follow TimescaleDB `time_bucket` in UTC (weeks start on Mondays, months on the
      1st); a bucket at an edge of the range aggregates only the readings inside it. At most
      10,000 buckets. `agg`: `avg` (default), `min`, `max`, `sum`, `count`, `last` (the
      value of the newest reading; on equal times the greatest value); string, boolean,
      date and location fields take `count` and `last` only, so they need an explicit `agg`.
    - `tz` (an IANA zone such as `Europe/Berlin`): buckets follow the local clock, as
      `time_bucket(interval, time, tz)` does: daily buckets start at local midnight, so a
      DST day is 23 or 25 hours long. `time` stays UTC (the instant the local bucket starts)
      and the response echoes `tz`. No effect on raw points.
    - Chart-ready series (analytics.md section 3), each rule broken a 400
      `invalid_parameter` naming it:
      - `fill` (bucketed only, not raw) = `none` (default) | `null` | `previous` | `linear` |
        `zero` (with `count` and `sum` only): a point for every bucket that starts in [the
        bucket of `from`, the earlier of `to` and now), with `filled`. `previous` carries the
        last non-empty bucket (before the first one, the single last reading before `from`);
        `fillMaxGap` (an ISO 8601 duration, with `previous` only) leaves null a bucket that
        starts more than that after the newest reading it would carry. `linear` interpolates
        by bucket start between non-empty buckets (null where a side has none).
      - `maxPoints` (2..10,000; raw only, number fields only) with `downsample` = `lttb`
        (default) | `minmax`: every reading of the range (no 500 cap) reduced to at most
        that many real readings, `downsampled: {method, readings, points}` when it reduced.
      - `agg=increase` (counter fields: growth, a lower reading being a reset that counts its
        own value; the first difference from the reading before the bucket), `twa` and
        `integral` (number fields: time-weighted average and value-hours of the step function,
        each reading held until the next, the value at the start from the reading before),
        `duration` (state fields, with `state=<value>`: the seconds that value held). A
        bucket with a value held into it has a twa, integral and duration. Another field's
        measurement is a 400 naming it.
    - `signal_quality` is the signal quality series; static fields have no history (no
      points); fields by identifier or UUID.
    - The range is bounded by the plan's telemetry retention: a range that starts before
      the cutoff starts at it, with `clamped: true` and `retentionCutoff`; a range entirely
      before it is 403 `outside_retention`.

    Args:
        device_ref (Any): Service id (UUID) or DevEUI.
        field (str): Required. Field identifier, field UUID or `signal_quality`; an unknown
            field's 400 lists the valid identifiers.
        from_ (Any): Required. Start (inclusive): an ISO 8601 timestamp (`2026-11-22T00:00:00Z`;
            no offset means UTC), `now` or `now-<duration>` (`now-P1D`, `now-PT15M`).
        to (Any): Required. End (exclusive), in the same forms as `from` (`now` for up to this
            moment).
        resolution (str | Unset): `raw` (default), `hourly`, `daily` or an ISO 8601 duration.
            Default: 'raw'.
        agg (GetDeviceHistoryAgg | Unset): Bucketed only: avg (default), min, max, sum, count,
            last, increase (counter fields), twa and integral (number fields), duration (state fields,
            with `state`). Default: GetDeviceHistoryAgg.AVG.
        site_id (UUID | Unset): Only readings recorded at this site (needs the multi-site feature,
            else 403 `multi_site_disabled`).
        tz (str | Unset): IANA time zone of the buckets (default UTC).
        fill (GetDeviceHistoryFill | Unset): Bucketed only: `none` (default), `null`, `previous`,
            `linear` or `zero` (count and sum only): a point for every bucket of the range. Default:
            GetDeviceHistoryFill.NONE.
        fill_max_gap (str | Unset): With `fill=previous` only: an ISO 8601 duration; a bucket
            starting more than that after the newest reading it would carry stays null.
        max_points (int | Unset): Raw, number fields only: 2..10,000; every reading of the range
            reduced to at most this many real readings (no 500 cap).
        downsample (GetDeviceHistoryDownsample | Unset): With `maxPoints`: `lttb` (default) or
            `minmax`. Default: GetDeviceHistoryDownsample.LTTB.
        state (str | Unset): With `agg=duration` (required there): the state value timed (a
            boolean's as `true` or `false`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | HistoryResponse]
     """


    kwargs = _get_kwargs(
        device_ref=device_ref,
field=field,
from_=from_,
to=to,
resolution=resolution,
agg=agg,
site_id=site_id,
tz=tz,
fill=fill,
fill_max_gap=fill_max_gap,
max_points=max_points,
downsample=downsample,
state=state,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    device_ref: Any,
    *,
    client: AuthenticatedClient,
    field: str,
    from_: Any,
    to: Any,
    resolution: str | Unset = 'raw',
    agg: GetDeviceHistoryAgg | Unset = GetDeviceHistoryAgg.AVG,
    site_id: UUID | Unset = UNSET,
    tz: str | Unset = UNSET,
    fill: GetDeviceHistoryFill | Unset = GetDeviceHistoryFill.NONE,
    fill_max_gap: str | Unset = UNSET,
    max_points: int | Unset = UNSET,
    downsample: GetDeviceHistoryDownsample | Unset = GetDeviceHistoryDownsample.LTTB,
    state: str | Unset = UNSET,

) -> ErrorEnvelope | HistoryResponse | None:
    """ Time series of one device field

     The readings of one field in `[from, to)`.

    - `resolution=raw` (default): the newest 500 readings, newest first, each with the
      `siteId` of the site the device was at when the reading arrived; `truncated: true`
      when more matched (page back with `to` = the oldest `time` received).
    - `hourly`, `daily` or an ISO 8601 duration of at least `PT1S` (`PT15M`, `PT6H`, `P1W`,
      `P1M`, ...): one point per non-empty bucket, newest first, `time` = the bucket start.
      Buckets follow TimescaleDB `time_bucket` in UTC (weeks start on Mondays, months on the
      1st); a bucket at an edge of the range aggregates only the readings inside it. At most
      10,000 buckets. `agg`: `avg` (default), `min`, `max`, `sum`, `count`, `last` (the
      value of the newest reading; on equal times the greatest value); string, boolean,
      date and location fields take `count` and `last` only, so they need an explicit `agg`.
    - `tz` (an IANA zone such as `Europe/Berlin`): buckets follow the local clock, as
      `time_bucket(interval, time, tz)` does: daily buckets start at local midnight, so a
      DST day is 23 or 25 hours long. `time` stays UTC (the instant the local bucket starts)
      and the response echoes `tz`. No effect on raw points.
    - Chart-ready series (analytics.md section 3), each rule broken a 400
      `invalid_parameter` naming it:
      - `fill` (bucketed only, not raw) = `none` (default) | `null` | `previous` | `linear` |
        `zero` (with `count` and `sum` only): a point for every bucket that starts in [the
        bucket of `from`, the earlier of `to` and now), with `filled`. `previous` carries the
        last non-empty bucket (before the first one, the single last reading before `from`);
        `fillMaxGap` (an ISO 8601 duration, with `previous` only) leaves null a bucket that
        starts more than that after the newest reading it would carry. `linear` interpolates
        by bucket start between non-empty buckets (null where a side has none).
      - `maxPoints` (2..10,000; raw only, number fields only) with `downsample` = `lttb`
        (default) | `minmax`: every reading of the range (no 500 cap) reduced to at most
        that many real readings, `downsampled: {method, readings, points}` when it reduced.
      - `agg=increase` (counter fields: growth, a lower reading being a reset that counts its
        own value; the first difference from the reading before the bucket), `twa` and
        `integral` (number fields: time-weighted average and value-hours of the step function,
        each reading held until the next, the value at the start from the reading before),
        `duration` (state fields, with `state=<value>`: the seconds that value held). A
        bucket with a value held into it has a twa, integral and duration. Another field's
        measurement is a 400 naming it.
    - `signal_quality` is the signal quality series; static fields have no history (no
      points); fields by identifier or UUID.
    - The range is bounded by the plan's telemetry retention: a range that starts before
      the cutoff starts at it, with `clamped: true` and `retentionCutoff`; a range entirely
      before it is 403 `outside_retention`.

    Args:
        device_ref (Any): Service id (UUID) or DevEUI.
        field (str): Required. Field identifier, field UUID or `signal_quality`; an unknown
            field's 400 lists the valid identifiers.
        from_ (Any): Required. Start (inclusive): an ISO 8601 timestamp (`2026-11-22T00:00:00Z`;
            no offset means UTC), `now` or `now-<duration>` (`now-P1D`, `now-PT15M`).
        to (Any): Required. End (exclusive), in the same forms as `from` (`now` for up to this
            moment).
        resolution (str | Unset): `raw` (default), `hourly`, `daily` or an ISO 8601 duration.
            Default: 'raw'.
        agg (GetDeviceHistoryAgg | Unset): Bucketed only: avg (default), min, max, sum, count,
            last, increase (counter fields), twa and integral (number fields), duration (state fields,
            with `state`). Default: GetDeviceHistoryAgg.AVG.
        site_id (UUID | Unset): Only readings recorded at this site (needs the multi-site feature,
            else 403 `multi_site_disabled`).
        tz (str | Unset): IANA time zone of the buckets (default UTC).
        fill (GetDeviceHistoryFill | Unset): Bucketed only: `none` (default), `null`, `previous`,
            `linear` or `zero` (count and sum only): a point for every bucket of the range. Default:
            GetDeviceHistoryFill.NONE.
        fill_max_gap (str | Unset): With `fill=previous` only: an ISO 8601 duration; a bucket
            starting more than that after the newest reading it would carry stays null.
        max_points (int | Unset): Raw, number fields only: 2..10,000; every reading of the range
            reduced to at most this many real readings (no 500 cap).
        downsample (GetDeviceHistoryDownsample | Unset): With `maxPoints`: `lttb` (default) or
            `minmax`. Default: GetDeviceHistoryDownsample.LTTB.
        state (str | Unset): With `agg=duration` (required there): the state value timed (a
            boolean's as `true` or `false`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | HistoryResponse
     """


    return sync_detailed(
        device_ref=device_ref,
client=client,
field=field,
from_=from_,
to=to,
resolution=resolution,
agg=agg,
site_id=site_id,
tz=tz,
fill=fill,
fill_max_gap=fill_max_gap,
max_points=max_points,
downsample=downsample,
state=state,

    ).parsed

async def asyncio_detailed(
    device_ref: Any,
    *,
    client: AuthenticatedClient,
    field: str,
    from_: Any,
    to: Any,
    resolution: str | Unset = 'raw',
    agg: GetDeviceHistoryAgg | Unset = GetDeviceHistoryAgg.AVG,
    site_id: UUID | Unset = UNSET,
    tz: str | Unset = UNSET,
    fill: GetDeviceHistoryFill | Unset = GetDeviceHistoryFill.NONE,
    fill_max_gap: str | Unset = UNSET,
    max_points: int | Unset = UNSET,
    downsample: GetDeviceHistoryDownsample | Unset = GetDeviceHistoryDownsample.LTTB,
    state: str | Unset = UNSET,

) -> Response[ErrorEnvelope | HistoryResponse]:
    """ Time series of one device field

     The readings of one field in `[from, to)`.

    - `resolution=raw` (default): the newest 500 readings, newest first, each with the
      `siteId` of the site the device was at when the reading arrived; `truncated: true`
      when more matched (page back with `to` = the oldest `time` received).
    - `hourly`, `daily` or an ISO 8601 duration of at least `PT1S` (`PT15M`, `PT6H`, `P1W`,
      `P1M`, ...): one point per non-empty bucket, newest first, `time` = the bucket start.
      Buckets follow TimescaleDB `time_bucket` in UTC (weeks start on Mondays, months on the
      1st); a bucket at an edge of the range aggregates only the readings inside it. At most
      10,000 buckets. `agg`: `avg` (default), `min`, `max`, `sum`, `count`, `last` (the
      value of the newest reading; on equal times the greatest value); string, boolean,
      date and location fields take `count` and `last` only, so they need an explicit `agg`.
    - `tz` (an IANA zone such as `Europe/Berlin`): buckets follow the local clock, as
      `time_bucket(interval, time, tz)` does: daily buckets start at local midnight, so a
      DST day is 23 or 25 hours long. `time` stays UTC (the instant the local bucket starts)
      and the response echoes `tz`. No effect on raw points.
    - Chart-ready series (analytics.md section 3), each rule broken a 400
      `invalid_parameter` naming it:
      - `fill` (bucketed only, not raw) = `none` (default) | `null` | `previous` | `linear` |
        `zero` (with `count` and `sum` only): a point for every bucket that starts in [the
        bucket of `from`, the earlier of `to` and now), with `filled`. `previous` carries the
        last non-empty bucket (before the first one, the single last reading before `from`);
        `fillMaxGap` (an ISO 8601 duration, with `previous` only) leaves null a bucket that
        starts more than that after the newest reading it would carry. `linear` interpolates
        by bucket start between non-empty buckets (null where a side has none).
      - `maxPoints` (2..10,000; raw only, number fields only) with `downsample` = `lttb`
        (default) | `minmax`: every reading of the range (no 500 cap) reduced to at most
        that many real readings, `downsampled: {method, readings, points}` when it reduced.
      - `agg=increase` (counter fields: growth, a lower reading being a reset that counts its
        own value; the first difference from the reading before the bucket), `twa` and
        `integral` (number fields: time-weighted average and value-hours of the step function,
        each reading held until the next, the value at the start from the reading before),
        `duration` (state fields, with `state=<value>`: the seconds that value held). A
        bucket with a value held into it has a twa, integral and duration. Another field's
        measurement is a 400 naming it.
    - `signal_quality` is the signal quality series; static fields have no history (no
      points); fields by identifier or UUID.
    - The range is bounded by the plan's telemetry retention: a range that starts before
      the cutoff starts at it, with `clamped: true` and `retentionCutoff`; a range entirely
      before it is 403 `outside_retention`.

    Args:
        device_ref (Any): Service id (UUID) or DevEUI.
        field (str): Required. Field identifier, field UUID or `signal_quality`; an unknown
            field's 400 lists the valid identifiers.
        from_ (Any): Required. Start (inclusive): an ISO 8601 timestamp (`2026-11-22T00:00:00Z`;
            no offset means UTC), `now` or `now-<duration>` (`now-P1D`, `now-PT15M`).
        to (Any): Required. End (exclusive), in the same forms as `from` (`now` for up to this
            moment).
        resolution (str | Unset): `raw` (default), `hourly`, `daily` or an ISO 8601 duration.
            Default: 'raw'.
        agg (GetDeviceHistoryAgg | Unset): Bucketed only: avg (default), min, max, sum, count,
            last, increase (counter fields), twa and integral (number fields), duration (state fields,
            with `state`). Default: GetDeviceHistoryAgg.AVG.
        site_id (UUID | Unset): Only readings recorded at this site (needs the multi-site feature,
            else 403 `multi_site_disabled`).
        tz (str | Unset): IANA time zone of the buckets (default UTC).
        fill (GetDeviceHistoryFill | Unset): Bucketed only: `none` (default), `null`, `previous`,
            `linear` or `zero` (count and sum only): a point for every bucket of the range. Default:
            GetDeviceHistoryFill.NONE.
        fill_max_gap (str | Unset): With `fill=previous` only: an ISO 8601 duration; a bucket
            starting more than that after the newest reading it would carry stays null.
        max_points (int | Unset): Raw, number fields only: 2..10,000; every reading of the range
            reduced to at most this many real readings (no 500 cap).
        downsample (GetDeviceHistoryDownsample | Unset): With `maxPoints`: `lttb` (default) or
            `minmax`. Default: GetDeviceHistoryDownsample.LTTB.
        state (str | Unset): With `agg=duration` (required there): the state value timed (a
            boolean's as `true` or `false`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | HistoryResponse]
     """


    kwargs = _get_kwargs(
        device_ref=device_ref,
field=field,
from_=from_,
to=to,
resolution=resolution,
agg=agg,
site_id=site_id,
tz=tz,
fill=fill,
fill_max_gap=fill_max_gap,
max_points=max_points,
downsample=downsample,
state=state,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    device_ref: Any,
    *,
    client: AuthenticatedClient,
    field: str,
    from_: Any,
    to: Any,
    resolution: str | Unset = 'raw',
    agg: GetDeviceHistoryAgg | Unset = GetDeviceHistoryAgg.AVG,
    site_id: UUID | Unset = UNSET,
    tz: str | Unset = UNSET,
    fill: GetDeviceHistoryFill | Unset = GetDeviceHistoryFill.NONE,
    fill_max_gap: str | Unset = UNSET,
    max_points: int | Unset = UNSET,
    downsample: GetDeviceHistoryDownsample | Unset = GetDeviceHistoryDownsample.LTTB,
    state: str | Unset = UNSET,

) -> ErrorEnvelope | HistoryResponse | None:
    """ Time series of one device field

     The readings of one field in `[from, to)`.

    - `resolution=raw` (default): the newest 500 readings, newest first, each with the
      `siteId` of the site the device was at when the reading arrived; `truncated: true`
      when more matched (page back with `to` = the oldest `time` received).
    - `hourly`, `daily` or an ISO 8601 duration of at least `PT1S` (`PT15M`, `PT6H`, `P1W`,
      `P1M`, ...): one point per non-empty bucket, newest first, `time` = the bucket start.
      Buckets follow TimescaleDB `time_bucket` in UTC (weeks start on Mondays, months on the
      1st); a bucket at an edge of the range aggregates only the readings inside it. At most
      10,000 buckets. `agg`: `avg` (default), `min`, `max`, `sum`, `count`, `last` (the
      value of the newest reading; on equal times the greatest value); string, boolean,
      date and location fields take `count` and `last` only, so they need an explicit `agg`.
    - `tz` (an IANA zone such as `Europe/Berlin`): buckets follow the local clock, as
      `time_bucket(interval, time, tz)` does: daily buckets start at local midnight, so a
      DST day is 23 or 25 hours long. `time` stays UTC (the instant the local bucket starts)
      and the response echoes `tz`. No effect on raw points.
    - Chart-ready series (analytics.md section 3), each rule broken a 400
      `invalid_parameter` naming it:
      - `fill` (bucketed only, not raw) = `none` (default) | `null` | `previous` | `linear` |
        `zero` (with `count` and `sum` only): a point for every bucket that starts in [the
        bucket of `from`, the earlier of `to` and now), with `filled`. `previous` carries the
        last non-empty bucket (before the first one, the single last reading before `from`);
        `fillMaxGap` (an ISO 8601 duration, with `previous` only) leaves null a bucket that
        starts more than that after the newest reading it would carry. `linear` interpolates
        by bucket start between non-empty buckets (null where a side has none).
      - `maxPoints` (2..10,000; raw only, number fields only) with `downsample` = `lttb`
        (default) | `minmax`: every reading of the range (no 500 cap) reduced to at most
        that many real readings, `downsampled: {method, readings, points}` when it reduced.
      - `agg=increase` (counter fields: growth, a lower reading being a reset that counts its
        own value; the first difference from the reading before the bucket), `twa` and
        `integral` (number fields: time-weighted average and value-hours of the step function,
        each reading held until the next, the value at the start from the reading before),
        `duration` (state fields, with `state=<value>`: the seconds that value held). A
        bucket with a value held into it has a twa, integral and duration. Another field's
        measurement is a 400 naming it.
    - `signal_quality` is the signal quality series; static fields have no history (no
      points); fields by identifier or UUID.
    - The range is bounded by the plan's telemetry retention: a range that starts before
      the cutoff starts at it, with `clamped: true` and `retentionCutoff`; a range entirely
      before it is 403 `outside_retention`.

    Args:
        device_ref (Any): Service id (UUID) or DevEUI.
        field (str): Required. Field identifier, field UUID or `signal_quality`; an unknown
            field's 400 lists the valid identifiers.
        from_ (Any): Required. Start (inclusive): an ISO 8601 timestamp (`2026-11-22T00:00:00Z`;
            no offset means UTC), `now` or `now-<duration>` (`now-P1D`, `now-PT15M`).
        to (Any): Required. End (exclusive), in the same forms as `from` (`now` for up to this
            moment).
        resolution (str | Unset): `raw` (default), `hourly`, `daily` or an ISO 8601 duration.
            Default: 'raw'.
        agg (GetDeviceHistoryAgg | Unset): Bucketed only: avg (default), min, max, sum, count,
            last, increase (counter fields), twa and integral (number fields), duration (state fields,
            with `state`). Default: GetDeviceHistoryAgg.AVG.
        site_id (UUID | Unset): Only readings recorded at this site (needs the multi-site feature,
            else 403 `multi_site_disabled`).
        tz (str | Unset): IANA time zone of the buckets (default UTC).
        fill (GetDeviceHistoryFill | Unset): Bucketed only: `none` (default), `null`, `previous`,
            `linear` or `zero` (count and sum only): a point for every bucket of the range. Default:
            GetDeviceHistoryFill.NONE.
        fill_max_gap (str | Unset): With `fill=previous` only: an ISO 8601 duration; a bucket
            starting more than that after the newest reading it would carry stays null.
        max_points (int | Unset): Raw, number fields only: 2..10,000; every reading of the range
            reduced to at most this many real readings (no 500 cap).
        downsample (GetDeviceHistoryDownsample | Unset): With `maxPoints`: `lttb` (default) or
            `minmax`. Default: GetDeviceHistoryDownsample.LTTB.
        state (str | Unset): With `agg=duration` (required there): the state value timed (a
            boolean's as `true` or `false`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | HistoryResponse
     """


    return (await asyncio_detailed(
        device_ref=device_ref,
client=client,
field=field,
from_=from_,
to=to,
resolution=resolution,
agg=agg,
site_id=site_id,
tz=tz,
fill=fill,
fill_max_gap=fill_max_gap,
max_points=max_points,
downsample=downsample,
state=state,

    )).parsed
