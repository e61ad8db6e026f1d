from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_envelope import ErrorEnvelope
from ...models.gateway_response import GatewayResponse
from typing import cast



def _get_kwargs(
    gateway_id: Any,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/gateways/{gateway_id}".format(gateway_id=quote(str(gateway_id), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorEnvelope | GatewayResponse | None:
    if response.status_code == 200:
        response_200 = GatewayResponse.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorEnvelope | GatewayResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    gateway_id: Any,
    *,
    client: AuthenticatedClient,

) -> Response[ErrorEnvelope | GatewayResponse]:
    """ One gateway

     `{gateway_id}` is the service id or the GatewayEUI (any case, `:`/`-`).

    Args:
        gateway_id (Any):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | GatewayResponse]
     """


    kwargs = _get_kwargs(
        gateway_id=gateway_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    gateway_id: Any,
    *,
    client: AuthenticatedClient,

) -> ErrorEnvelope | GatewayResponse | None:
    """ One gateway

     `{gateway_id}` is the service id or the GatewayEUI (any case, `:`/`-`).

    Args:
        gateway_id (Any):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | GatewayResponse
     """


    return sync_detailed(
        gateway_id=gateway_id,
client=client,

    ).parsed

async def asyncio_detailed(
    gateway_id: Any,
    *,
    client: AuthenticatedClient,

) -> Response[ErrorEnvelope | GatewayResponse]:
    """ One gateway

     `{gateway_id}` is the service id or the GatewayEUI (any case, `:`/`-`).

    Args:
        gateway_id (Any):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | GatewayResponse]
     """


    kwargs = _get_kwargs(
        gateway_id=gateway_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    gateway_id: Any,
    *,
    client: AuthenticatedClient,

) -> ErrorEnvelope | GatewayResponse | None:
    """ One gateway

     `{gateway_id}` is the service id or the GatewayEUI (any case, `:`/`-`).

    Args:
        gateway_id (Any):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | GatewayResponse
     """


    return (await asyncio_detailed(
        gateway_id=gateway_id,
client=client,

    )).parsed
