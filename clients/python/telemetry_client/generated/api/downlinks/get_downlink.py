from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.downlink_item_response import DownlinkItemResponse
from ...models.error_envelope import ErrorEnvelope
from typing import cast
from uuid import UUID



def _get_kwargs(
    device_id: Any,
    queue_item_id: UUID,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/devices/{device_id}/downlinks/{queue_item_id}".format(device_id=quote(str(device_id), safe=""),queue_item_id=quote(str(queue_item_id), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> DownlinkItemResponse | ErrorEnvelope | None:
    if response.status_code == 200:
        response_200 = DownlinkItemResponse.from_dict(response.json())



        return response_200

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[DownlinkItemResponse | ErrorEnvelope]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    device_id: Any,
    queue_item_id: UUID,
    *,
    client: AuthenticatedClient,

) -> Response[DownlinkItemResponse | ErrorEnvelope]:
    """ One queued downlink and its delivery state

     Needs `devices:read`. `status`: `queued` (accepted), `submitted` (ChirpStack took it), `sent`
    (transmitted), `acknowledged` / `nacked` (confirmed downlinks), `failed` (refused, or a downlink
    error reported by the network; see `error`), `expired` (`expiresAt` passed before it was sent).
    Inventory and archived devices, another device's item and an unknown id answer 404.

    Args:
        device_id (Any):
        queue_item_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DownlinkItemResponse | ErrorEnvelope]
     """


    kwargs = _get_kwargs(
        device_id=device_id,
queue_item_id=queue_item_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    device_id: Any,
    queue_item_id: UUID,
    *,
    client: AuthenticatedClient,

) -> DownlinkItemResponse | ErrorEnvelope | None:
    """ One queued downlink and its delivery state

     Needs `devices:read`. `status`: `queued` (accepted), `submitted` (ChirpStack took it), `sent`
    (transmitted), `acknowledged` / `nacked` (confirmed downlinks), `failed` (refused, or a downlink
    error reported by the network; see `error`), `expired` (`expiresAt` passed before it was sent).
    Inventory and archived devices, another device's item and an unknown id answer 404.

    Args:
        device_id (Any):
        queue_item_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DownlinkItemResponse | ErrorEnvelope
     """


    return sync_detailed(
        device_id=device_id,
queue_item_id=queue_item_id,
client=client,

    ).parsed

async def asyncio_detailed(
    device_id: Any,
    queue_item_id: UUID,
    *,
    client: AuthenticatedClient,

) -> Response[DownlinkItemResponse | ErrorEnvelope]:
    """ One queued downlink and its delivery state

     Needs `devices:read`. `status`: `queued` (accepted), `submitted` (ChirpStack took it), `sent`
    (transmitted), `acknowledged` / `nacked` (confirmed downlinks), `failed` (refused, or a downlink
    error reported by the network; see `error`), `expired` (`expiresAt` passed before it was sent).
    Inventory and archived devices, another device's item and an unknown id answer 404.

    Args:
        device_id (Any):
        queue_item_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DownlinkItemResponse | ErrorEnvelope]
     """


    kwargs = _get_kwargs(
        device_id=device_id,
queue_item_id=queue_item_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    device_id: Any,
    queue_item_id: UUID,
    *,
    client: AuthenticatedClient,

) -> DownlinkItemResponse | ErrorEnvelope | None:
    """ One queued downlink and its delivery state

     Needs `devices:read`. `status`: `queued` (accepted), `submitted` (ChirpStack took it), `sent`
    (transmitted), `acknowledged` / `nacked` (confirmed downlinks), `failed` (refused, or a downlink
    error reported by the network; see `error`), `expired` (`expiresAt` passed before it was sent).
    Inventory and archived devices, another device's item and an unknown id answer 404.

    Args:
        device_id (Any):
        queue_item_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DownlinkItemResponse | ErrorEnvelope
     """


    return (await asyncio_detailed(
        device_id=device_id,
queue_item_id=queue_item_id,
client=client,

    )).parsed
