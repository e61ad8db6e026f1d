from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.device_detail_response import DeviceDetailResponse
from ...models.error_envelope import ErrorEnvelope
from typing import cast



def _get_kwargs(
    device_id: Any,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/devices/{device_id}".format(device_id=quote(str(device_id), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> DeviceDetailResponse | ErrorEnvelope | None:
    if response.status_code == 200:
        response_200 = DeviceDetailResponse.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[DeviceDetailResponse | ErrorEnvelope]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    device_id: Any,
    *,
    client: AuthenticatedClient,

) -> Response[DeviceDetailResponse | ErrorEnvelope]:
    """ One device with its profile and field catalog

     `{device_id}` is the service id or the DevEUI (any case, `:`/`-` allowed).

    Args:
        device_id (Any):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeviceDetailResponse | ErrorEnvelope]
     """


    kwargs = _get_kwargs(
        device_id=device_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    device_id: Any,
    *,
    client: AuthenticatedClient,

) -> DeviceDetailResponse | ErrorEnvelope | None:
    """ One device with its profile and field catalog

     `{device_id}` is the service id or the DevEUI (any case, `:`/`-` allowed).

    Args:
        device_id (Any):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeviceDetailResponse | ErrorEnvelope
     """


    return sync_detailed(
        device_id=device_id,
client=client,

    ).parsed

async def asyncio_detailed(
    device_id: Any,
    *,
    client: AuthenticatedClient,

) -> Response[DeviceDetailResponse | ErrorEnvelope]:
    """ One device with its profile and field catalog

     `{device_id}` is the service id or the DevEUI (any case, `:`/`-` allowed).

    Args:
        device_id (Any):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeviceDetailResponse | ErrorEnvelope]
     """


    kwargs = _get_kwargs(
        device_id=device_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    device_id: Any,
    *,
    client: AuthenticatedClient,

) -> DeviceDetailResponse | ErrorEnvelope | None:
    """ One device with its profile and field catalog

     `{device_id}` is the service id or the DevEUI (any case, `:`/`-` allowed).

    Args:
        device_id (Any):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeviceDetailResponse | ErrorEnvelope
     """


    return (await asyncio_detailed(
        device_id=device_id,
client=client,

    )).parsed
