from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.device_list import DeviceList
from ...models.error_envelope import ErrorEnvelope
from ...models.list_devices_include_descendants import ListDevicesIncludeDescendants
from ...models.list_devices_network_id_type_1 import ListDevicesNetworkIdType1
from ...models.list_devices_online import ListDevicesOnline
from ...models.list_devices_site_id_type_1 import ListDevicesSiteIdType1
from ...models.list_devices_status import ListDevicesStatus
from ...types import UNSET, Unset
from typing import cast
from uuid import UUID



def _get_kwargs(
    *,
    sub_account_id: UUID | Unset = UNSET,
    device_profile_id: UUID | Unset = UNSET,
    network_id: Any | ListDevicesNetworkIdType1 | Unset = UNSET,
    status: ListDevicesStatus | Unset = UNSET,
    online: ListDevicesOnline | Unset = UNSET,
    search: str | Unset = UNSET,
    site_id: Any | ListDevicesSiteIdType1 | Unset = UNSET,
    include_descendants: ListDevicesIncludeDescendants | Unset = UNSET,
    limit: int | Unset = 50,
    offset: int | Unset = 0,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

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
    elif isinstance(network_id, ListDevicesNetworkIdType1):
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

    params["search"] = search

    json_site_id: Any | str | Unset
    if isinstance(site_id, Unset):
        json_site_id = UNSET
    elif isinstance(site_id, ListDevicesSiteIdType1):
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
        "url": "/api/v1/devices",
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> DeviceList | ErrorEnvelope | None:
    if response.status_code == 200:
        response_200 = DeviceList.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[DeviceList | ErrorEnvelope]:
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
    device_profile_id: UUID | Unset = UNSET,
    network_id: Any | ListDevicesNetworkIdType1 | Unset = UNSET,
    status: ListDevicesStatus | Unset = UNSET,
    online: ListDevicesOnline | Unset = UNSET,
    search: str | Unset = UNSET,
    site_id: Any | ListDevicesSiteIdType1 | Unset = UNSET,
    include_descendants: ListDevicesIncludeDescendants | Unset = UNSET,
    limit: int | Unset = 50,
    offset: int | Unset = 0,

) -> Response[DeviceList | ErrorEnvelope]:
    """ Devices visible to the key, filtered

     Ordered by name, then id. With no `status`, a partner key lists every status; a sub-account key only
    ever lists its assigned devices. An id filter naming something unknown or outside the key's scope
    gives an empty list. `search` is a case-insensitive substring of the name, the serial number or the
    DevEUI (`:` and `-` are ignored for DevEUIs). `includeDescendants=true` widens `siteId` to the
    site's subtree.

    Args:
        sub_account_id (UUID | Unset):
        device_profile_id (UUID | Unset):
        network_id (Any | ListDevicesNetworkIdType1 | Unset): A network id or `none`.
        status (ListDevicesStatus | Unset): `inventory`, `assigned`, `archived` or `all`.
        online (ListDevicesOnline | Unset): `true` or `false`.
        search (str | Unset):
        site_id (Any | ListDevicesSiteIdType1 | Unset): A site id or `none`.
        include_descendants (ListDevicesIncludeDescendants | Unset): `true` or `false`.
        limit (int | Unset): Page size, 1 to 200 (default 50). Default: 50.
        offset (int | Unset): Items to skip, 0 or more (default 0). Default: 0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeviceList | ErrorEnvelope]
     """


    kwargs = _get_kwargs(
        sub_account_id=sub_account_id,
device_profile_id=device_profile_id,
network_id=network_id,
status=status,
online=online,
search=search,
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
    device_profile_id: UUID | Unset = UNSET,
    network_id: Any | ListDevicesNetworkIdType1 | Unset = UNSET,
    status: ListDevicesStatus | Unset = UNSET,
    online: ListDevicesOnline | Unset = UNSET,
    search: str | Unset = UNSET,
    site_id: Any | ListDevicesSiteIdType1 | Unset = UNSET,
    include_descendants: ListDevicesIncludeDescendants | Unset = UNSET,
    limit: int | Unset = 50,
    offset: int | Unset = 0,

) -> DeviceList | ErrorEnvelope | None:
    """ Devices visible to the key, filtered

     Ordered by name, then id. With no `status`, a partner key lists every status; a sub-account key only
    ever lists its assigned devices. An id filter naming something unknown or outside the key's scope
    gives an empty list. `search` is a case-insensitive substring of the name, the serial number or the
    DevEUI (`:` and `-` are ignored for DevEUIs). `includeDescendants=true` widens `siteId` to the
    site's subtree.

    Args:
        sub_account_id (UUID | Unset):
        device_profile_id (UUID | Unset):
        network_id (Any | ListDevicesNetworkIdType1 | Unset): A network id or `none`.
        status (ListDevicesStatus | Unset): `inventory`, `assigned`, `archived` or `all`.
        online (ListDevicesOnline | Unset): `true` or `false`.
        search (str | Unset):
        site_id (Any | ListDevicesSiteIdType1 | Unset): A site id or `none`.
        include_descendants (ListDevicesIncludeDescendants | Unset): `true` or `false`.
        limit (int | Unset): Page size, 1 to 200 (default 50). Default: 50.
        offset (int | Unset): Items to skip, 0 or more (default 0). Default: 0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeviceList | ErrorEnvelope
     """


    return sync_detailed(
        client=client,
sub_account_id=sub_account_id,
device_profile_id=device_profile_id,
network_id=network_id,
status=status,
online=online,
search=search,
site_id=site_id,
include_descendants=include_descendants,
limit=limit,
offset=offset,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    sub_account_id: UUID | Unset = UNSET,
    device_profile_id: UUID | Unset = UNSET,
    network_id: Any | ListDevicesNetworkIdType1 | Unset = UNSET,
    status: ListDevicesStatus | Unset = UNSET,
    online: ListDevicesOnline | Unset = UNSET,
    search: str | Unset = UNSET,
    site_id: Any | ListDevicesSiteIdType1 | Unset = UNSET,
    include_descendants: ListDevicesIncludeDescendants | Unset = UNSET,
    limit: int | Unset = 50,
    offset: int | Unset = 0,

) -> Response[DeviceList | ErrorEnvelope]:
    """ Devices visible to the key, filtered

     Ordered by name, then id. With no `status`, a partner key lists every status; a sub-account key only
    ever lists its assigned devices. An id filter naming something unknown or outside the key's scope
    gives an empty list. `search` is a case-insensitive substring of the name, the serial number or the
    DevEUI (`:` and `-` are ignored for DevEUIs). `includeDescendants=true` widens `siteId` to the
    site's subtree.

    Args:
        sub_account_id (UUID | Unset):
        device_profile_id (UUID | Unset):
        network_id (Any | ListDevicesNetworkIdType1 | Unset): A network id or `none`.
        status (ListDevicesStatus | Unset): `inventory`, `assigned`, `archived` or `all`.
        online (ListDevicesOnline | Unset): `true` or `false`.
        search (str | Unset):
        site_id (Any | ListDevicesSiteIdType1 | Unset): A site id or `none`.
        include_descendants (ListDevicesIncludeDescendants | Unset): `true` or `false`.
        limit (int | Unset): Page size, 1 to 200 (default 50). Default: 50.
        offset (int | Unset): Items to skip, 0 or more (default 0). Default: 0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeviceList | ErrorEnvelope]
     """


    kwargs = _get_kwargs(
        sub_account_id=sub_account_id,
device_profile_id=device_profile_id,
network_id=network_id,
status=status,
online=online,
search=search,
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
    device_profile_id: UUID | Unset = UNSET,
    network_id: Any | ListDevicesNetworkIdType1 | Unset = UNSET,
    status: ListDevicesStatus | Unset = UNSET,
    online: ListDevicesOnline | Unset = UNSET,
    search: str | Unset = UNSET,
    site_id: Any | ListDevicesSiteIdType1 | Unset = UNSET,
    include_descendants: ListDevicesIncludeDescendants | Unset = UNSET,
    limit: int | Unset = 50,
    offset: int | Unset = 0,

) -> DeviceList | ErrorEnvelope | None:
    """ Devices visible to the key, filtered

     Ordered by name, then id. With no `status`, a partner key lists every status; a sub-account key only
    ever lists its assigned devices. An id filter naming something unknown or outside the key's scope
    gives an empty list. `search` is a case-insensitive substring of the name, the serial number or the
    DevEUI (`:` and `-` are ignored for DevEUIs). `includeDescendants=true` widens `siteId` to the
    site's subtree.

    Args:
        sub_account_id (UUID | Unset):
        device_profile_id (UUID | Unset):
        network_id (Any | ListDevicesNetworkIdType1 | Unset): A network id or `none`.
        status (ListDevicesStatus | Unset): `inventory`, `assigned`, `archived` or `all`.
        online (ListDevicesOnline | Unset): `true` or `false`.
        search (str | Unset):
        site_id (Any | ListDevicesSiteIdType1 | Unset): A site id or `none`.
        include_descendants (ListDevicesIncludeDescendants | Unset): `true` or `false`.
        limit (int | Unset): Page size, 1 to 200 (default 50). Default: 50.
        offset (int | Unset): Items to skip, 0 or more (default 0). Default: 0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeviceList | ErrorEnvelope
     """


    return (await asyncio_detailed(
        client=client,
sub_account_id=sub_account_id,
device_profile_id=device_profile_id,
network_id=network_id,
status=status,
online=online,
search=search,
site_id=site_id,
include_descendants=include_descendants,
limit=limit,
offset=offset,

    )).parsed
