from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_envelope import ErrorEnvelope
from ...models.gateway_list import GatewayList
from ...models.list_gateways_include_descendants import ListGatewaysIncludeDescendants
from ...models.list_gateways_network_id_type_1 import ListGatewaysNetworkIdType1
from ...models.list_gateways_online import ListGatewaysOnline
from ...models.list_gateways_site_id_type_1 import ListGatewaysSiteIdType1
from ...models.list_gateways_status import ListGatewaysStatus
from ...types import UNSET, Unset
from typing import cast
from uuid import UUID



def _get_kwargs(
    *,
    sub_account_id: UUID | Unset = UNSET,
    network_id: Any | ListGatewaysNetworkIdType1 | Unset = UNSET,
    status: ListGatewaysStatus | Unset = UNSET,
    online: ListGatewaysOnline | Unset = UNSET,
    site_id: Any | ListGatewaysSiteIdType1 | Unset = UNSET,
    include_descendants: ListGatewaysIncludeDescendants | Unset = UNSET,
    limit: int | Unset = 50,
    offset: int | Unset = 0,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    json_sub_account_id: str | Unset = UNSET
    if not isinstance(sub_account_id, Unset):
        json_sub_account_id = str(sub_account_id)
    params["subAccountId"] = json_sub_account_id

    json_network_id: Any | str | Unset
    if isinstance(network_id, Unset):
        json_network_id = UNSET
    elif isinstance(network_id, ListGatewaysNetworkIdType1):
        json_network_id = network_id.value
    else:
        json_network_id = network_id
    params["networkId"] = json_network_id

    json_status: str | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = status.value

    params["status"] = json_status

    json_online: str | Unset = UNSET
    if not isinstance(online, Unset):
        json_online = online.value

    params["online"] = json_online

    json_site_id: Any | str | Unset
    if isinstance(site_id, Unset):
        json_site_id = UNSET
    elif isinstance(site_id, ListGatewaysSiteIdType1):
        json_site_id = site_id.value
    else:
        json_site_id = site_id
    params["siteId"] = json_site_id

    json_include_descendants: str | Unset = UNSET
    if not isinstance(include_descendants, Unset):
        json_include_descendants = include_descendants.value

    params["includeDescendants"] = json_include_descendants

    params["limit"] = limit

    params["offset"] = offset


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/gateways",
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorEnvelope | GatewayList | None:
    if response.status_code == 200:
        response_200 = GatewayList.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorEnvelope | GatewayList]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    sub_account_id: UUID | Unset = UNSET,
    network_id: Any | ListGatewaysNetworkIdType1 | Unset = UNSET,
    status: ListGatewaysStatus | Unset = UNSET,
    online: ListGatewaysOnline | Unset = UNSET,
    site_id: Any | ListGatewaysSiteIdType1 | Unset = UNSET,
    include_descendants: ListGatewaysIncludeDescendants | Unset = UNSET,
    limit: int | Unset = 50,
    offset: int | Unset = 0,

) -> Response[ErrorEnvelope | GatewayList]:
    """ Gateways visible to the key, filtered

     Ordered by name, then id; `status` as for devices. A gateway is online when assigned and it reported
    (stats or a relayed uplink) within 30 minutes.

    Args:
        sub_account_id (UUID | Unset):
        network_id (Any | ListGatewaysNetworkIdType1 | Unset): A network id or `none`.
        status (ListGatewaysStatus | Unset): `inventory`, `assigned`, `archived` or `all`.
        online (ListGatewaysOnline | Unset): `true` or `false`.
        site_id (Any | ListGatewaysSiteIdType1 | Unset): A site id or `none`.
        include_descendants (ListGatewaysIncludeDescendants | Unset): `true` or `false`.
        limit (int | Unset): Page size, 1 to 200 (default 50). Default: 50.
        offset (int | Unset): Items to skip, 0 or more (default 0). Default: 0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | GatewayList]
     """


    kwargs = _get_kwargs(
        sub_account_id=sub_account_id,
network_id=network_id,
status=status,
online=online,
site_id=site_id,
include_descendants=include_descendants,
limit=limit,
offset=offset,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    sub_account_id: UUID | Unset = UNSET,
    network_id: Any | ListGatewaysNetworkIdType1 | Unset = UNSET,
    status: ListGatewaysStatus | Unset = UNSET,
    online: ListGatewaysOnline | Unset = UNSET,
    site_id: Any | ListGatewaysSiteIdType1 | Unset = UNSET,
    include_descendants: ListGatewaysIncludeDescendants | Unset = UNSET,
    limit: int | Unset = 50,
    offset: int | Unset = 0,

) -> ErrorEnvelope | GatewayList | None:
    """ Gateways visible to the key, filtered

     Ordered by name, then id; `status` as for devices. A gateway is online when assigned and it reported
    (stats or a relayed uplink) within 30 minutes.

    Args:
        sub_account_id (UUID | Unset):
        network_id (Any | ListGatewaysNetworkIdType1 | Unset): A network id or `none`.
        status (ListGatewaysStatus | Unset): `inventory`, `assigned`, `archived` or `all`.
        online (ListGatewaysOnline | Unset): `true` or `false`.
        site_id (Any | ListGatewaysSiteIdType1 | Unset): A site id or `none`.
        include_descendants (ListGatewaysIncludeDescendants | Unset): `true` or `false`.
        limit (int | Unset): Page size, 1 to 200 (default 50). Default: 50.
        offset (int | Unset): Items to skip, 0 or more (default 0). Default: 0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | GatewayList
     """


    return sync_detailed(
        client=client,
sub_account_id=sub_account_id,
network_id=network_id,
status=status,
online=online,
site_id=site_id,
include_descendants=include_descendants,
limit=limit,
offset=offset,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    sub_account_id: UUID | Unset = UNSET,
    network_id: Any | ListGatewaysNetworkIdType1 | Unset = UNSET,
    status: ListGatewaysStatus | Unset = UNSET,
    online: ListGatewaysOnline | Unset = UNSET,
    site_id: Any | ListGatewaysSiteIdType1 | Unset = UNSET,
    include_descendants: ListGatewaysIncludeDescendants | Unset = UNSET,
    limit: int | Unset = 50,
    offset: int | Unset = 0,

) -> Response[ErrorEnvelope | GatewayList]:
    """ Gateways visible to the key, filtered

     Ordered by name, then id; `status` as for devices. A gateway is online when assigned and it reported
    (stats or a relayed uplink) within 30 minutes.

    Args:
        sub_account_id (UUID | Unset):
        network_id (Any | ListGatewaysNetworkIdType1 | Unset): A network id or `none`.
        status (ListGatewaysStatus | Unset): `inventory`, `assigned`, `archived` or `all`.
        online (ListGatewaysOnline | Unset): `true` or `false`.
        site_id (Any | ListGatewaysSiteIdType1 | Unset): A site id or `none`.
        include_descendants (ListGatewaysIncludeDescendants | Unset): `true` or `false`.
        limit (int | Unset): Page size, 1 to 200 (default 50). Default: 50.
        offset (int | Unset): Items to skip, 0 or more (default 0). Default: 0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | GatewayList]
     """


    kwargs = _get_kwargs(
        sub_account_id=sub_account_id,
network_id=network_id,
status=status,
online=online,
site_id=site_id,
include_descendants=include_descendants,
limit=limit,
offset=offset,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    sub_account_id: UUID | Unset = UNSET,
    network_id: Any | ListGatewaysNetworkIdType1 | Unset = UNSET,
    status: ListGatewaysStatus | Unset = UNSET,
    online: ListGatewaysOnline | Unset = UNSET,
    site_id: Any | ListGatewaysSiteIdType1 | Unset = UNSET,
    include_descendants: ListGatewaysIncludeDescendants | Unset = UNSET,
    limit: int | Unset = 50,
    offset: int | Unset = 0,

) -> ErrorEnvelope | GatewayList | None:
    """ Gateways visible to the key, filtered

     Ordered by name, then id; `status` as for devices. A gateway is online when assigned and it reported
    (stats or a relayed uplink) within 30 minutes.

    Args:
        sub_account_id (UUID | Unset):
        network_id (Any | ListGatewaysNetworkIdType1 | Unset): A network id or `none`.
        status (ListGatewaysStatus | Unset): `inventory`, `assigned`, `archived` or `all`.
        online (ListGatewaysOnline | Unset): `true` or `false`.
        site_id (Any | ListGatewaysSiteIdType1 | Unset): A site id or `none`.
        include_descendants (ListGatewaysIncludeDescendants | Unset): `true` or `false`.
        limit (int | Unset): Page size, 1 to 200 (default 50). Default: 50.
        offset (int | Unset): Items to skip, 0 or more (default 0). Default: 0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | GatewayList
     """


    return (await asyncio_detailed(
        client=client,
sub_account_id=sub_account_id,
network_id=network_id,
status=status,
online=online,
site_id=site_id,
include_descendants=include_descendants,
limit=limit,
offset=offset,

    )).parsed
