from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_envelope import ErrorEnvelope
from ...models.list_networks_include_descendants import ListNetworksIncludeDescendants
from ...models.list_networks_site_id_type_1 import ListNetworksSiteIdType1
from ...models.network_list import NetworkList
from ...types import UNSET, Unset
from typing import cast
from uuid import UUID



def _get_kwargs(
    *,
    sub_account_id: UUID | Unset = UNSET,
    site_id: Any | ListNetworksSiteIdType1 | Unset = UNSET,
    include_descendants: ListNetworksIncludeDescendants | Unset = UNSET,
    limit: int | Unset = 50,
    offset: int | Unset = 0,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    json_sub_account_id: str | Unset = UNSET
    if not isinstance(sub_account_id, Unset):
        json_sub_account_id = str(sub_account_id)
    params["subAccountId"] = json_sub_account_id

    json_site_id: Any | str | Unset
    if isinstance(site_id, Unset):
        json_site_id = UNSET
    elif isinstance(site_id, ListNetworksSiteIdType1):
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
        "url": "/api/v1/networks",
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorEnvelope | NetworkList | None:
    if response.status_code == 200:
        response_200 = NetworkList.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorEnvelope | NetworkList]:
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
    site_id: Any | ListNetworksSiteIdType1 | Unset = UNSET,
    include_descendants: ListNetworksIncludeDescendants | Unset = UNSET,
    limit: int | Unset = 50,
    offset: int | Unset = 0,

) -> Response[ErrorEnvelope | NetworkList]:
    """ Networks with health rollups

     Needs the Networks feature (else 403 `networks_disabled`); a partner key sees the networks of its
    sub-accounts where the feature is on. Members are the assigned devices and gateways. A device is
    online when its last uplink is within its offline threshold (default 30 minutes), a gateway when it
    reported within 30 minutes; alerting means at least one active alert of any level.

    Args:
        sub_account_id (UUID | Unset):
        site_id (Any | ListNetworksSiteIdType1 | Unset): A site id or `none`.
        include_descendants (ListNetworksIncludeDescendants | Unset): `true` or `false`.
        limit (int | Unset): Page size, 1 to 200 (default 50). Default: 50.
        offset (int | Unset): Items to skip, 0 or more (default 0). Default: 0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | NetworkList]
     """


    kwargs = _get_kwargs(
        sub_account_id=sub_account_id,
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
    site_id: Any | ListNetworksSiteIdType1 | Unset = UNSET,
    include_descendants: ListNetworksIncludeDescendants | Unset = UNSET,
    limit: int | Unset = 50,
    offset: int | Unset = 0,

) -> ErrorEnvelope | NetworkList | None:
    """ Networks with health rollups

     Needs the Networks feature (else 403 `networks_disabled`); a partner key sees the networks of its
    sub-accounts where the feature is on. Members are the assigned devices and gateways. A device is
    online when its last uplink is within its offline threshold (default 30 minutes), a gateway when it
    reported within 30 minutes; alerting means at least one active alert of any level.

    Args:
        sub_account_id (UUID | Unset):
        site_id (Any | ListNetworksSiteIdType1 | Unset): A site id or `none`.
        include_descendants (ListNetworksIncludeDescendants | Unset): `true` or `false`.
        limit (int | Unset): Page size, 1 to 200 (default 50). Default: 50.
        offset (int | Unset): Items to skip, 0 or more (default 0). Default: 0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | NetworkList
     """


    return sync_detailed(
        client=client,
sub_account_id=sub_account_id,
site_id=site_id,
include_descendants=include_descendants,
limit=limit,
offset=offset,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    sub_account_id: UUID | Unset = UNSET,
    site_id: Any | ListNetworksSiteIdType1 | Unset = UNSET,
    include_descendants: ListNetworksIncludeDescendants | Unset = UNSET,
    limit: int | Unset = 50,
    offset: int | Unset = 0,

) -> Response[ErrorEnvelope | NetworkList]:
    """ Networks with health rollups

     Needs the Networks feature (else 403 `networks_disabled`); a partner key sees the networks of its
    sub-accounts where the feature is on. Members are the assigned devices and gateways. A device is
    online when its last uplink is within its offline threshold (default 30 minutes), a gateway when it
    reported within 30 minutes; alerting means at least one active alert of any level.

    Args:
        sub_account_id (UUID | Unset):
        site_id (Any | ListNetworksSiteIdType1 | Unset): A site id or `none`.
        include_descendants (ListNetworksIncludeDescendants | Unset): `true` or `false`.
        limit (int | Unset): Page size, 1 to 200 (default 50). Default: 50.
        offset (int | Unset): Items to skip, 0 or more (default 0). Default: 0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | NetworkList]
     """


    kwargs = _get_kwargs(
        sub_account_id=sub_account_id,
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
    site_id: Any | ListNetworksSiteIdType1 | Unset = UNSET,
    include_descendants: ListNetworksIncludeDescendants | Unset = UNSET,
    limit: int | Unset = 50,
    offset: int | Unset = 0,

) -> ErrorEnvelope | NetworkList | None:
    """ Networks with health rollups

     Needs the Networks feature (else 403 `networks_disabled`); a partner key sees the networks of its
    sub-accounts where the feature is on. Members are the assigned devices and gateways. A device is
    online when its last uplink is within its offline threshold (default 30 minutes), a gateway when it
    reported within 30 minutes; alerting means at least one active alert of any level.

    Args:
        sub_account_id (UUID | Unset):
        site_id (Any | ListNetworksSiteIdType1 | Unset): A site id or `none`.
        include_descendants (ListNetworksIncludeDescendants | Unset): `true` or `false`.
        limit (int | Unset): Page size, 1 to 200 (default 50). Default: 50.
        offset (int | Unset): Items to skip, 0 or more (default 0). Default: 0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | NetworkList
     """


    return (await asyncio_detailed(
        client=client,
sub_account_id=sub_account_id,
site_id=site_id,
include_descendants=include_descendants,
limit=limit,
offset=offset,

    )).parsed
