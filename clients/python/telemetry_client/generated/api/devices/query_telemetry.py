from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_envelope import ErrorEnvelope
from ...models.query_page import QueryPage
from ...models.query_telemetry_query_body import QueryTelemetryQueryBody
from typing import cast



def _get_kwargs(
    *,
    body: QueryTelemetryQueryBody,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/query",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorEnvelope | QueryPage | None:
    if response.status_code == 200:
        response_200 = QueryPage.from_dict(response.json())



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

    if response.status_code == 415:
        response_415 = ErrorEnvelope.from_dict(response.json())



        return response_415

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorEnvelope | QueryPage]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: QueryTelemetryQueryBody,

) -> Response[ErrorEnvelope | QueryPage]:
    """ Many devices' series in one call, paged by cursors

     Many series in one call: the fields of the devices named by `devices.ids` (ids or
    DevEUIs, at most 1,000) or selected by the filters of `GET /devices` (assigned devices
    only, at most 1,000), raw or bucketed, with one or more aggregates per field.

    - Each series is one (device, field, agg); series are ordered by device id, then the
      order of `fields`, then of the field's aggregates. Its points are exactly those of
      `GET /devices/{id}/history` for the same device, field, range, resolution, agg,
      `tz`, `fill` and `maxPoints`, oldest first (raw: every reading, no 500 cap, each
      with its `siteId`).
    - A field that a device's profile lacks gives no series for it; a field no selected
      device has is 400 `invalid_body`. Static fields give empty series.
    - Paging: a page holds at most `limit` points (1..100,000, default 10,000) and may hold
      fewer; `nextCursor` continues where it stopped, possibly inside a series (which then
      appears again with the rest of its points). Ask the next page with the same body plus
      `cursor` (only `limit` may change). Following the cursors returns every point exactly
      once, even while readings arrive and while weeks are packed. A cursor is bound to its
      key and query and valid for an hour; anything else is 400 `invalid_cursor`.
    - Rules that tie members together or depend on the devices (each 400 `invalid_body`):
      `devices` gives `ids` or filters, not both, and its filters follow `GET /devices`'
      rules; `fields` lists each field once and names fields a selected device has; `agg`
      only with a bucketed `resolution`, an object names every field of `fields` and only
      them, and a string or boolean field takes `count`, `last` or `duration:<state>`;
      `from` before `to`; `tz` a zone of the server's tz database; `fill`, `fillMaxGap`,
      `maxPoints`, `downsample` and the aggregates `increase`, `twa`, `integral` and
      `duration` as `GET /devices/{id}/history` says (its 400 `invalid_parameter` rules are
      `invalid_body` here, naming the member).
    - Errors in the body are 400 `invalid_body` naming the field, unknown keys included;
      at most 1,000 devices, 20 fields and 20,000 series per query, and 10,000 buckets per
      series. Ranges are clamped by retention as on `/history` (entirely outside: 403
      `outside_retention`).
    - Chart-ready series (analytics.md section 3): `fill` (bucketed) gives a point for
      every bucket of the range, each with `filled`; `maxPoints` (raw, number fields) reduces
      each series to at most that many real readings by `downsample` (`lttb` or `minmax`), a
      reduced series carrying its own `downsampled` on every page that holds it. A series'
      points equal `/history`'s for the same parameters; `duration` names its state in the
      aggregate (`{"door": "duration:open"}`). Cursors resume inside a filled or reduced
      series as in any other.

    Args:
        body (QueryTelemetryQueryBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | QueryPage]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    body: QueryTelemetryQueryBody,

) -> ErrorEnvelope | QueryPage | None:
    """ Many devices' series in one call, paged by cursors

     Many series in one call: the fields of the devices named by `devices.ids` (ids or
    DevEUIs, at most 1,000) or selected by the filters of `GET /devices` (assigned devices
    only, at most 1,000), raw or bucketed, with one or more aggregates per field.

    - Each series is one (device, field, agg); series are ordered by device id, then the
      order of `fields`, then of the field's aggregates. Its points are exactly those of
      `GET /devices/{id}/history` for the same device, field, range, resolution, agg,
      `tz`, `fill` and `maxPoints`, oldest first (raw: every reading, no 500 cap, each
      with its `siteId`).
    - A field that a device's profile lacks gives no series for it; a field no selected
      device has is 400 `invalid_body`. Static fields give empty series.
    - Paging: a page holds at most `limit` points (1..100,000, default 10,000) and may hold
      fewer; `nextCursor` continues where it stopped, possibly inside a series (which then
      appears again with the rest of its points). Ask the next page with the same body plus
      `cursor` (only `limit` may change). Following the cursors returns every point exactly
      once, even while readings arrive and while weeks are packed. A cursor is bound to its
      key and query and valid for an hour; anything else is 400 `invalid_cursor`.
    - Rules that tie members together or depend on the devices (each 400 `invalid_body`):
      `devices` gives `ids` or filters, not both, and its filters follow `GET /devices`'
      rules; `fields` lists each field once and names fields a selected device has; `agg`
      only with a bucketed `resolution`, an object names every field of `fields` and only
      them, and a string or boolean field takes `count`, `last` or `duration:<state>`;
      `from` before `to`; `tz` a zone of the server's tz database; `fill`, `fillMaxGap`,
      `maxPoints`, `downsample` and the aggregates `increase`, `twa`, `integral` and
      `duration` as `GET /devices/{id}/history` says (its 400 `invalid_parameter` rules are
      `invalid_body` here, naming the member).
    - Errors in the body are 400 `invalid_body` naming the field, unknown keys included;
      at most 1,000 devices, 20 fields and 20,000 series per query, and 10,000 buckets per
      series. Ranges are clamped by retention as on `/history` (entirely outside: 403
      `outside_retention`).
    - Chart-ready series (analytics.md section 3): `fill` (bucketed) gives a point for
      every bucket of the range, each with `filled`; `maxPoints` (raw, number fields) reduces
      each series to at most that many real readings by `downsample` (`lttb` or `minmax`), a
      reduced series carrying its own `downsampled` on every page that holds it. A series'
      points equal `/history`'s for the same parameters; `duration` names its state in the
      aggregate (`{"door": "duration:open"}`). Cursors resume inside a filled or reduced
      series as in any other.

    Args:
        body (QueryTelemetryQueryBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | QueryPage
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: QueryTelemetryQueryBody,

) -> Response[ErrorEnvelope | QueryPage]:
    """ Many devices' series in one call, paged by cursors

     Many series in one call: the fields of the devices named by `devices.ids` (ids or
    DevEUIs, at most 1,000) or selected by the filters of `GET /devices` (assigned devices
    only, at most 1,000), raw or bucketed, with one or more aggregates per field.

    - Each series is one (device, field, agg); series are ordered by device id, then the
      order of `fields`, then of the field's aggregates. Its points are exactly those of
      `GET /devices/{id}/history` for the same device, field, range, resolution, agg,
      `tz`, `fill` and `maxPoints`, oldest first (raw: every reading, no 500 cap, each
      with its `siteId`).
    - A field that a device's profile lacks gives no series for it; a field no selected
      device has is 400 `invalid_body`. Static fields give empty series.
    - Paging: a page holds at most `limit` points (1..100,000, default 10,000) and may hold
      fewer; `nextCursor` continues where it stopped, possibly inside a series (which then
      appears again with the rest of its points). Ask the next page with the same body plus
      `cursor` (only `limit` may change). Following the cursors returns every point exactly
      once, even while readings arrive and while weeks are packed. A cursor is bound to its
      key and query and valid for an hour; anything else is 400 `invalid_cursor`.
    - Rules that tie members together or depend on the devices (each 400 `invalid_body`):
      `devices` gives `ids` or filters, not both, and its filters follow `GET /devices`'
      rules; `fields` lists each field once and names fields a selected device has; `agg`
      only with a bucketed `resolution`, an object names every field of `fields` and only
      them, and a string or boolean field takes `count`, `last` or `duration:<state>`;
      `from` before `to`; `tz` a zone of the server's tz database; `fill`, `fillMaxGap`,
      `maxPoints`, `downsample` and the aggregates `increase`, `twa`, `integral` and
      `duration` as `GET /devices/{id}/history` says (its 400 `invalid_parameter` rules are
      `invalid_body` here, naming the member).
    - Errors in the body are 400 `invalid_body` naming the field, unknown keys included;
      at most 1,000 devices, 20 fields and 20,000 series per query, and 10,000 buckets per
      series. Ranges are clamped by retention as on `/history` (entirely outside: 403
      `outside_retention`).
    - Chart-ready series (analytics.md section 3): `fill` (bucketed) gives a point for
      every bucket of the range, each with `filled`; `maxPoints` (raw, number fields) reduces
      each series to at most that many real readings by `downsample` (`lttb` or `minmax`), a
      reduced series carrying its own `downsampled` on every page that holds it. A series'
      points equal `/history`'s for the same parameters; `duration` names its state in the
      aggregate (`{"door": "duration:open"}`). Cursors resume inside a filled or reduced
      series as in any other.

    Args:
        body (QueryTelemetryQueryBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | QueryPage]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    body: QueryTelemetryQueryBody,

) -> ErrorEnvelope | QueryPage | None:
    """ Many devices' series in one call, paged by cursors

     Many series in one call: the fields of the devices named by `devices.ids` (ids or
    DevEUIs, at most 1,000) or selected by the filters of `GET /devices` (assigned devices
    only, at most 1,000), raw or bucketed, with one or more aggregates per field.

    - Each series is one (device, field, agg); series are ordered by device id, then the
      order of `fields`, then of the field's aggregates. Its points are exactly those of
      `GET /devices/{id}/history` for the same device, field, range, resolution, agg,
      `tz`, `fill` and `maxPoints`, oldest first (raw: every reading, no 500 cap, each
      with its `siteId`).
    - A field that a device's profile lacks gives no series for it; a field no selected
      device has is 400 `invalid_body`. Static fields give empty series.
    - Paging: a page holds at most `limit` points (1..100,000, default 10,000) and may hold
      fewer; `nextCursor` continues where it stopped, possibly inside a series (which then
      appears again with the rest of its points). Ask the next page with the same body plus
      `cursor` (only `limit` may change). Following the cursors returns every point exactly
      once, even while readings arrive and while weeks are packed. A cursor is bound to its
      key and query and valid for an hour; anything else is 400 `invalid_cursor`.
    - Rules that tie members together or depend on the devices (each 400 `invalid_body`):
      `devices` gives `ids` or filters, not both, and its filters follow `GET /devices`'
      rules; `fields` lists each field once and names fields a selected device has; `agg`
      only with a bucketed `resolution`, an object names every field of `fields` and only
      them, and a string or boolean field takes `count`, `last` or `duration:<state>`;
      `from` before `to`; `tz` a zone of the server's tz database; `fill`, `fillMaxGap`,
      `maxPoints`, `downsample` and the aggregates `increase`, `twa`, `integral` and
      `duration` as `GET /devices/{id}/history` says (its 400 `invalid_parameter` rules are
      `invalid_body` here, naming the member).
    - Errors in the body are 400 `invalid_body` naming the field, unknown keys included;
      at most 1,000 devices, 20 fields and 20,000 series per query, and 10,000 buckets per
      series. Ranges are clamped by retention as on `/history` (entirely outside: 403
      `outside_retention`).
    - Chart-ready series (analytics.md section 3): `fill` (bucketed) gives a point for
      every bucket of the range, each with `filled`; `maxPoints` (raw, number fields) reduces
      each series to at most that many real readings by `downsample` (`lttb` or `minmax`), a
      reduced series carrying its own `downsampled` on every page that holds it. A series'
      points equal `/history`'s for the same parameters; `duration` names its state in the
      aggregate (`{"door": "duration:open"}`). Cursors resume inside a filled or reduced
      series as in any other.

    Args:
        body (QueryTelemetryQueryBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | QueryPage
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
