from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_envelope import ErrorEnvelope
from ...models.stream_latest_include_descendants import StreamLatestIncludeDescendants
from ...models.stream_latest_network_id_type_1 import StreamLatestNetworkIdType1
from ...models.stream_latest_online import StreamLatestOnline
from ...models.stream_latest_site_id_type_1 import StreamLatestSiteIdType1
from ...types import UNSET, Unset
from typing import cast
from uuid import UUID



def _get_kwargs(
    *,
    device_ids: None | str | Unset = UNSET,
    fields: str | Unset = UNSET,
    sub_account_id: UUID | Unset = UNSET,
    device_profile_id: UUID | Unset = UNSET,
    network_id: Any | StreamLatestNetworkIdType1 | Unset = UNSET,
    site_id: Any | StreamLatestSiteIdType1 | Unset = UNSET,
    include_descendants: StreamLatestIncludeDescendants | Unset = UNSET,
    online: StreamLatestOnline | Unset = UNSET,
    search: str | Unset = UNSET,
    last_event_id: str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(last_event_id, Unset):
        headers["Last-Event-ID"] = last_event_id



    

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
    elif isinstance(network_id, StreamLatestNetworkIdType1):
        json_network_id = network_id.value
    else:
        json_network_id = network_id
    params["networkId"] = json_network_id

    json_site_id: Any | str | Unset
    if isinstance(site_id, Unset):
        json_site_id = UNSET
    elif isinstance(site_id, StreamLatestSiteIdType1):
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
        "url": "/api/v1/stream",
        "params": params,
    }


    _kwargs["headers"] = headers
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
    device_ids: None | str | Unset = UNSET,
    fields: str | Unset = UNSET,
    sub_account_id: UUID | Unset = UNSET,
    device_profile_id: UUID | Unset = UNSET,
    network_id: Any | StreamLatestNetworkIdType1 | Unset = UNSET,
    site_id: Any | StreamLatestSiteIdType1 | Unset = UNSET,
    include_descendants: StreamLatestIncludeDescendants | Unset = UNSET,
    online: StreamLatestOnline | Unset = UNSET,
    search: str | Unset = UNSET,
    last_event_id: str | Unset = UNSET,

) -> Response[ErrorEnvelope | str]:
    """ Latest values as they change (Server-Sent Events)

     Selects devices as fleet latest does (at most 1,000). Sends `event: latest` with each device's
    latest values object first, then one each time a device's values change; `event: removed` when a
    device leaves what the key may see; a comment line at least every 15 s. Every event has an `id:`;
    reconnecting with `Last-Event-ID` within 5 minutes sends only what changed since, otherwise `event:
    reset` and the whole first send again. The stream ends within 5 s of the key's revocation or expiry.
    At most 10 open streams per key (429). Opening counts as one request; events do not count.

    Args:
        device_ids (None | str | Unset): Comma-separated device ids or DevEUIs, at most 200; not
            with the filters.
        fields (str | Unset): Comma-separated field identifiers: `values`, `retained` and
            `derived` hold only these.
        sub_account_id (UUID | Unset):
        device_profile_id (UUID | Unset):
        network_id (Any | StreamLatestNetworkIdType1 | Unset): A network id or `none`.
        site_id (Any | StreamLatestSiteIdType1 | Unset): A site id or `none`.
        include_descendants (StreamLatestIncludeDescendants | Unset): `true` or `false`.
        online (StreamLatestOnline | Unset): `true` or `false`.
        search (str | Unset):
        last_event_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | str]
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
last_event_id=last_event_id,

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
    network_id: Any | StreamLatestNetworkIdType1 | Unset = UNSET,
    site_id: Any | StreamLatestSiteIdType1 | Unset = UNSET,
    include_descendants: StreamLatestIncludeDescendants | Unset = UNSET,
    online: StreamLatestOnline | Unset = UNSET,
    search: str | Unset = UNSET,
    last_event_id: str | Unset = UNSET,

) -> ErrorEnvelope | str | None:
    """ Latest values as they change (Server-Sent Events)

     Selects devices as fleet latest does (at most 1,000). Sends `event: latest` with each device's
    latest values object first, then one each time a device's values change; `event: removed` when a
    device leaves what the key may see; a comment line at least every 15 s. Every event has an `id:`;
    reconnecting with `Last-Event-ID` within 5 minutes sends only what changed since, otherwise `event:
    reset` and the whole first send again. The stream ends within 5 s of the key's revocation or expiry.
    At most 10 open streams per key (429). Opening counts as one request; events do not count.

    Args:
        device_ids (None | str | Unset): Comma-separated device ids or DevEUIs, at most 200; not
            with the filters.
        fields (str | Unset): Comma-separated field identifiers: `values`, `retained` and
            `derived` hold only these.
        sub_account_id (UUID | Unset):
        device_profile_id (UUID | Unset):
        network_id (Any | StreamLatestNetworkIdType1 | Unset): A network id or `none`.
        site_id (Any | StreamLatestSiteIdType1 | Unset): A site id or `none`.
        include_descendants (StreamLatestIncludeDescendants | Unset): `true` or `false`.
        online (StreamLatestOnline | Unset): `true` or `false`.
        search (str | Unset):
        last_event_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | str
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
last_event_id=last_event_id,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    device_ids: None | str | Unset = UNSET,
    fields: str | Unset = UNSET,
    sub_account_id: UUID | Unset = UNSET,
    device_profile_id: UUID | Unset = UNSET,
    network_id: Any | StreamLatestNetworkIdType1 | Unset = UNSET,
    site_id: Any | StreamLatestSiteIdType1 | Unset = UNSET,
    include_descendants: StreamLatestIncludeDescendants | Unset = UNSET,
    online: StreamLatestOnline | Unset = UNSET,
    search: str | Unset = UNSET,
    last_event_id: str | Unset = UNSET,

) -> Response[ErrorEnvelope | str]:
    """ Latest values as they change (Server-Sent Events)

     Selects devices as fleet latest does (at most 1,000). Sends `event: latest` with each device's
    latest values object first, then one each time a device's values change; `event: removed` when a
    device leaves what the key may see; a comment line at least every 15 s. Every event has an `id:`;
    reconnecting with `Last-Event-ID` within 5 minutes sends only what changed since, otherwise `event:
    reset` and the whole first send again. The stream ends within 5 s of the key's revocation or expiry.
    At most 10 open streams per key (429). Opening counts as one request; events do not count.

    Args:
        device_ids (None | str | Unset): Comma-separated device ids or DevEUIs, at most 200; not
            with the filters.
        fields (str | Unset): Comma-separated field identifiers: `values`, `retained` and
            `derived` hold only these.
        sub_account_id (UUID | Unset):
        device_profile_id (UUID | Unset):
        network_id (Any | StreamLatestNetworkIdType1 | Unset): A network id or `none`.
        site_id (Any | StreamLatestSiteIdType1 | Unset): A site id or `none`.
        include_descendants (StreamLatestIncludeDescendants | Unset): `true` or `false`.
        online (StreamLatestOnline | Unset): `true` or `false`.
        search (str | Unset):
        last_event_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | str]
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
last_event_id=last_event_id,

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
    network_id: Any | StreamLatestNetworkIdType1 | Unset = UNSET,
    site_id: Any | StreamLatestSiteIdType1 | Unset = UNSET,
    include_descendants: StreamLatestIncludeDescendants | Unset = UNSET,
    online: StreamLatestOnline | Unset = UNSET,
    search: str | Unset = UNSET,
    last_event_id: str | Unset = UNSET,

) -> ErrorEnvelope | str | None:
    """ Latest values as they change (Server-Sent Events)

     Selects devices as fleet latest does (at most 1,000). Sends `event: latest` with each device's
    latest values object first, then one each time a device's values change; `event: removed` when a
    device leaves what the key may see; a comment line at least every 15 s. Every event has an `id:`;
    reconnecting with `Last-Event-ID` within 5 minutes sends only what changed since, otherwise `event:
    reset` and the whole first send again. The stream ends within 5 s of the key's revocation or expiry.
    At most 10 open streams per key (429). Opening counts as one request; events do not count.

    Args:
        device_ids (None | str | Unset): Comma-separated device ids or DevEUIs, at most 200; not
            with the filters.
        fields (str | Unset): Comma-separated field identifiers: `values`, `retained` and
            `derived` hold only these.
        sub_account_id (UUID | Unset):
        device_profile_id (UUID | Unset):
        network_id (Any | StreamLatestNetworkIdType1 | Unset): A network id or `none`.
        site_id (Any | StreamLatestSiteIdType1 | Unset): A site id or `none`.
        include_descendants (StreamLatestIncludeDescendants | Unset): `true` or `false`.
        online (StreamLatestOnline | Unset): `true` or `false`.
        search (str | Unset):
        last_event_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | str
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
last_event_id=last_event_id,

    )).parsed
