from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_envelope import ErrorEnvelope
from typing import cast



def _get_kwargs(
    
) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/live",
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorEnvelope | str | None:
    if response.status_code == 200:
        response_200 = response.text
        return response_200

    if response.status_code == 404:
        response_404 = ErrorEnvelope.from_dict(response.json())



        return response_404

    if response.status_code == 413:
        response_413 = ErrorEnvelope.from_dict(response.json())



        return response_413

    if response.status_code == 414:
        response_414 = ErrorEnvelope.from_dict(response.json())



        return response_414

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
    client: AuthenticatedClient | Client,

) -> Response[ErrorEnvelope | str]:
    """ The live page (a small dashboard; TELEMETRY_LIVE_PAGE=1)

     An HTML page showing one site's devices with their latest values updating from `GET /api/v1/stream`
    and a chart of one device's last day. No key to load it: it takes one in its fragment
    (`#key=...&site=...`) or a form. 404 unless the server runs with `TELEMETRY_LIVE_PAGE=1`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | str]
     """


    kwargs = _get_kwargs(
        
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient | Client,

) -> ErrorEnvelope | str | None:
    """ The live page (a small dashboard; TELEMETRY_LIVE_PAGE=1)

     An HTML page showing one site's devices with their latest values updating from `GET /api/v1/stream`
    and a chart of one device's last day. No key to load it: it takes one in its fragment
    (`#key=...&site=...`) or a form. 404 unless the server runs with `TELEMETRY_LIVE_PAGE=1`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | str
     """


    return sync_detailed(
        client=client,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,

) -> Response[ErrorEnvelope | str]:
    """ The live page (a small dashboard; TELEMETRY_LIVE_PAGE=1)

     An HTML page showing one site's devices with their latest values updating from `GET /api/v1/stream`
    and a chart of one device's last day. No key to load it: it takes one in its fragment
    (`#key=...&site=...`) or a form. 404 unless the server runs with `TELEMETRY_LIVE_PAGE=1`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | str]
     """


    kwargs = _get_kwargs(
        
    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient | Client,

) -> ErrorEnvelope | str | None:
    """ The live page (a small dashboard; TELEMETRY_LIVE_PAGE=1)

     An HTML page showing one site's devices with their latest values updating from `GET /api/v1/stream`
    and a chart of one device's last day. No key to load it: it takes one in its fragment
    (`#key=...&site=...`) or a form. 404 unless the server runs with `TELEMETRY_LIVE_PAGE=1`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | str
     """


    return (await asyncio_detailed(
        client=client,

    )).parsed
