from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_envelope import ErrorEnvelope
from ...models.get_fleet_latest_include_descendants import GetFleetLatestIncludeDescendants
from ...models.get_fleet_latest_network_id_type_1 import GetFleetLatestNetworkIdType1
from ...models.get_fleet_latest_online import GetFleetLatestOnline
from ...models.get_fleet_latest_site_id_type_1 import GetFleetLatestSiteIdType1
from ...models.latest_values_list import LatestValuesList
from ...types import UNSET, Unset
from typing import cast
from uuid import UUID



def _get_kwargs(
    *,
    device_ids: None | str | Unset = UNSET,
    fields: str | Unset = UNSET,
    sub_account_id: UUID | Unset = UNSET,
    device_profile_id: UUID | Unset = UNSET,
    network_id: Any | GetFleetLatestNetworkIdType1 | Unset = UNSET,
    site_id: Any | GetFleetLatestSiteIdType1 | Unset = UNSET,
    include_descendants: GetFleetLatestIncludeDescendants | Unset = UNSET,
    online: GetFleetLatestOnline | Unset = UNSET,
    search: str | Unset = UNSET,
    limit: int | Unset = 50,
    offset: int | Unset = 0,
    if_none_match: str | Unset = UNSET,
    prefer: str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_none_match, Unset):
        headers["If-None-Match"] = if_none_match

    if not isinstance(prefer, Unset):
        headers["Prefer"] = prefer



    

    params: dict[str, Any] = {}

    json_device_ids: None | str | Unset
    if isinstance(device_ids, Unset):
        json_device_ids = UNSET
    else:
        json_device_ids = device_ids
    params["deviceIds"] = json_device_ids

    params["fields"] = fields

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
    elif isinstance(network_id, GetFleetLatestNetworkIdType1):
        json_network_id = network_id.value
    else:
        json_network_id = network_id
    params["networkId"] = json_network_id

    json_site_id: Any | str | Unset
    if isinstance(site_id, Unset):
        json_site_id = UNSET
    elif isinstance(site_id, GetFleetLatestSiteIdType1):
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

    params["limit"] = limit

    params["offset"] = offset


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/latest",
        "params": params,
    }


    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Any | ErrorEnvelope | LatestValuesList | None:
    if response.status_code == 200:
        response_200 = LatestValuesList.from_dict(response.json())



        return response_200

    if response.status_code == 304:
        response_304 = cast(Any, None)
        return response_304

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Any | ErrorEnvelope | LatestValuesList]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    device_ids: None | str | Unset = UNSET,
    fields: str | Unset = UNSET,
    sub_account_id: UUID | Unset = UNSET,
    device_profile_id: UUID | Unset = UNSET,
    network_id: Any | GetFleetLatestNetworkIdType1 | Unset = UNSET,
    site_id: Any | GetFleetLatestSiteIdType1 | Unset = UNSET,
    include_descendants: GetFleetLatestIncludeDescendants | Unset = UNSET,
    online: GetFleetLatestOnline | Unset = UNSET,
    search: str | Unset = UNSET,
    limit: int | Unset = 50,
    offset: int | Unset = 0,
    if_none_match: str | Unset = UNSET,
    prefer: str | Unset = UNSET,

) -> Response[Any | ErrorEnvelope | LatestValuesList]:
    """ Latest values of many devices

     Selects devices by `deviceIds` or by the filters of `GET /devices` (assigned devices only), ordered
    by device id and paged. Each item is exactly the `data` of `GET /devices/{id}/latest`, restricted by
    `fields`. One strong `ETag` covers the whole answer: `If-None-Match` answers 304 while nothing
    changed, and with `Prefer: wait=N` an unchanged answer is held until it changes (200) or N seconds
    pass (304); `Preference-Applied` then says the wait applied.

    Args:
        device_ids (None | str | Unset): Comma-separated device ids or DevEUIs, at most 200; not
            with the filters.
        fields (str | Unset): Comma-separated field identifiers: `values`, `retained` and
            `derived` hold only these.
        sub_account_id (UUID | Unset):
        device_profile_id (UUID | Unset):
        network_id (Any | GetFleetLatestNetworkIdType1 | Unset): A network id or `none`.
        site_id (Any | GetFleetLatestSiteIdType1 | Unset): A site id or `none`.
        include_descendants (GetFleetLatestIncludeDescendants | Unset): `true` or `false`.
        online (GetFleetLatestOnline | Unset): `true` or `false`.
        search (str | Unset):
        limit (int | Unset): Page size, 1 to 200 (default 50). Default: 50.
        offset (int | Unset): Items to skip, 0 or more (default 0). Default: 0.
        if_none_match (str | Unset):
        prefer (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorEnvelope | LatestValuesList]
     """


    kwargs = _get_kwargs(
        device_ids=device_ids,
fields=fields,
sub_account_id=sub_account_id,
device_profile_id=device_profile_id,
network_id=network_id,
site_id=site_id,
include_descendants=include_descendants,
online=online,
search=search,
limit=limit,
offset=offset,
if_none_match=if_none_match,
prefer=prefer,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    device_ids: None | str | Unset = UNSET,
    fields: str | Unset = UNSET,
    sub_account_id: UUID | Unset = UNSET,
    device_profile_id: UUID | Unset = UNSET,
    network_id: Any | GetFleetLatestNetworkIdType1 | Unset = UNSET,
    site_id: Any | GetFleetLatestSiteIdType1 | Unset = UNSET,
    include_descendants: GetFleetLatestIncludeDescendants | Unset = UNSET,
    online: GetFleetLatestOnline | Unset = UNSET,
    search: str | Unset = UNSET,
    limit: int | Unset = 50,
    offset: int | Unset = 0,
    if_none_match: str | Unset = UNSET,
    prefer: str | Unset = UNSET,

) -> Any | ErrorEnvelope | LatestValuesList | None:
    """ Latest values of many devices

     Selects devices by `deviceIds` or by the filters of `GET /devices` (assigned devices only), ordered
    by device id and paged. Each item is exactly the `data` of `GET /devices/{id}/latest`, restricted by
    `fields`. One strong `ETag` covers the whole answer: `If-None-Match` answers 304 while nothing
    changed, and with `Prefer: wait=N` an unchanged answer is held until it changes (200) or N seconds
    pass (304); `Preference-Applied` then says the wait applied.

    Args:
        device_ids (None | str | Unset): Comma-separated device ids or DevEUIs, at most 200; not
            with the filters.
        fields (str | Unset): Comma-separated field identifiers: `values`, `retained` and
            `derived` hold only these.
        sub_account_id (UUID | Unset):
        device_profile_id (UUID | Unset):
        network_id (Any | GetFleetLatestNetworkIdType1 | Unset): A network id or `none`.
        site_id (Any | GetFleetLatestSiteIdType1 | Unset): A site id or `none`.
        include_descendants (GetFleetLatestIncludeDescendants | Unset): `true` or `false`.
        online (GetFleetLatestOnline | Unset): `true` or `false`.
        search (str | Unset):
        limit (int | Unset): Page size, 1 to 200 (default 50). Default: 50.
        offset (int | Unset): Items to skip, 0 or more (default 0). Default: 0.
        if_none_match (str | Unset):
        prefer (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorEnvelope | LatestValuesList
     """


    return sync_detailed(
        client=client,
device_ids=device_ids,
fields=fields,
sub_account_id=sub_account_id,
device_profile_id=device_profile_id,
network_id=network_id,
site_id=site_id,
include_descendants=include_descendants,
online=online,
search=search,
limit=limit,
offset=offset,
if_none_match=if_none_match,
prefer=prefer,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    device_ids: None | str | Unset = UNSET,
    fields: str | Unset = UNSET,
    sub_account_id: UUID | Unset = UNSET,
    device_profile_id: UUID | Unset = UNSET,
    network_id: Any | GetFleetLatestNetworkIdType1 | Unset = UNSET,
    site_id: Any | GetFleetLatestSiteIdType1 | Unset = UNSET,
    include_descendants: GetFleetLatestIncludeDescendants | Unset = UNSET,
    online: GetFleetLatestOnline | Unset = UNSET,
    search: str | Unset = UNSET,
    limit: int | Unset = 50,
    offset: int | Unset = 0,
    if_none_match: str | Unset = UNSET,
    prefer: str | Unset = UNSET,

) -> Response[Any | ErrorEnvelope | LatestValuesList]:
    """ Latest values of many devices

     Selects devices by `deviceIds` or by the filters of `GET /devices` (assigned devices only), ordered
    by device id and paged. Each item is exactly the `data` of `GET /devices/{id}/latest`, restricted by
    `fields`. One strong `ETag` covers the whole answer: `If-None-Match` answers 304 while nothing
    changed, and with `Prefer: wait=N` an unchanged answer is held until it changes (200) or N seconds
    pass (304); `Preference-Applied` then says the wait applied.

    Args:
        device_ids (None | str | Unset): Comma-separated device ids or DevEUIs, at most 200; not
            with the filters.
        fields (str | Unset): Comma-separated field identifiers: `values`, `retained` and
            `derived` hold only these.
        sub_account_id (UUID | Unset):
        device_profile_id (UUID | Unset):
        network_id (Any | GetFleetLatestNetworkIdType1 | Unset): A network id or `none`.
        site_id (Any | GetFleetLatestSiteIdType1 | Unset): A site id or `none`.
        include_descendants (GetFleetLatestIncludeDescendants | Unset): `true` or `false`.
        online (GetFleetLatestOnline | Unset): `true` or `false`.
        search (str | Unset):
        limit (int | Unset): Page size, 1 to 200 (default 50). Default: 50.
        offset (int | Unset): Items to skip, 0 or more (default 0). Default: 0.
        if_none_match (str | Unset):
        prefer (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorEnvelope | LatestValuesList]
     """


    kwargs = _get_kwargs(
        device_ids=device_ids,
fields=fields,
sub_account_id=sub_account_id,
device_profile_id=device_profile_id,
network_id=network_id,
site_id=site_id,
include_descendants=include_descendants,
online=online,
search=search,
limit=limit,
offset=offset,
if_none_match=if_none_match,
prefer=prefer,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    device_ids: None | str | Unset = UNSET,
    fields: str | Unset = UNSET,
    sub_account_id: UUID | Unset = UNSET,
    device_profile_id: UUID | Unset = UNSET,
    network_id: Any | GetFleetLatestNetworkIdType1 | Unset = UNSET,
    site_id: Any | GetFleetLatestSiteIdType1 | Unset = UNSET,
    include_descendants: GetFleetLatestIncludeDescendants | Unset = UNSET,
    online: GetFleetLatestOnline | Unset = UNSET,
    search: str | Unset = UNSET,
    limit: int | Unset = 50,
    offset: int | Unset = 0,
    if_none_match: str | Unset = UNSET,
    prefer: str | Unset = UNSET,

) -> Any | ErrorEnvelope | LatestValuesList | None:
    """ Latest values of many devices

     Selects devices by `deviceIds` or by the filters of `GET /devices` (assigned devices only), ordered
    by device id and paged. Each item is exactly the `data` of `GET /devices/{id}/latest`, restricted by
    `fields`. One strong `ETag` covers the whole answer: `If-None-Match` answers 304 while nothing
    changed, and with `Prefer: wait=N` an unchanged answer is held until it changes (200) or N seconds
    pass (304); `Preference-Applied` then says the wait applied.

    Args:
        device_ids (None | str | Unset): Comma-separated device ids or DevEUIs, at most 200; not
            with the filters.
        fields (str | Unset): Comma-separated field identifiers: `values`, `retained` and
            `derived` hold only these.
        sub_account_id (UUID | Unset):
        device_profile_id (UUID | Unset):
        network_id (Any | GetFleetLatestNetworkIdType1 | Unset): A network id or `none`.
        site_id (Any | GetFleetLatestSiteIdType1 | Unset): A site id or `none`.
        include_descendants (GetFleetLatestIncludeDescendants | Unset): `true` or `false`.
        online (GetFleetLatestOnline | Unset): `true` or `false`.
        search (str | Unset):
        limit (int | Unset): Page size, 1 to 200 (default 50). Default: 50.
        offset (int | Unset): Items to skip, 0 or more (default 0). Default: 0.
        if_none_match (str | Unset):
        prefer (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorEnvelope | LatestValuesList
     """


    return (await asyncio_detailed(
        client=client,
device_ids=device_ids,
fields=fields,
sub_account_id=sub_account_id,
device_profile_id=device_profile_id,
network_id=network_id,
site_id=site_id,
include_descendants=include_descendants,
online=online,
search=search,
limit=limit,
offset=offset,
if_none_match=if_none_match,
prefer=prefer,

    )).parsed
