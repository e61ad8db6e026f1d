from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_envelope import ErrorEnvelope
from ...models.ingest_chirp_stack_body import IngestChirpStackBody
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    *,
    body: IngestChirpStackBody,
    event: str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    params: dict[str, Any] = {}

    params["event"] = event


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/ingest/chirpstack",
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Any | ErrorEnvelope | None:
    if response.status_code == 204:
        response_204 = cast(Any, None)
        return response_204

    if response.status_code == 400:
        response_400 = ErrorEnvelope.from_dict(response.json())



        return response_400

    if response.status_code == 401:
        response_401 = ErrorEnvelope.from_dict(response.json())



        return response_401

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Any | ErrorEnvelope]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: IngestChirpStackBody,
    event: str | Unset = UNSET,

) -> Response[Any | ErrorEnvelope]:
    """ Receive a ChirpStack v4 HTTP integration event

     ChirpStack's HTTP integration with the JSON marshaler posts here with
    `?event=up|status|join|location|...` and `Authorization: Bearer <integration token>`. 204 once
    stored (or for an event type the service ignores); a repeated `deduplicationId` is stored once.

    Args:
        event (str | Unset): ChirpStack event type
        body (IngestChirpStackBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorEnvelope]
     """


    kwargs = _get_kwargs(
        body=body,
event=event,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    body: IngestChirpStackBody,
    event: str | Unset = UNSET,

) -> Any | ErrorEnvelope | None:
    """ Receive a ChirpStack v4 HTTP integration event

     ChirpStack's HTTP integration with the JSON marshaler posts here with
    `?event=up|status|join|location|...` and `Authorization: Bearer <integration token>`. 204 once
    stored (or for an event type the service ignores); a repeated `deduplicationId` is stored once.

    Args:
        event (str | Unset): ChirpStack event type
        body (IngestChirpStackBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorEnvelope
     """


    return sync_detailed(
        client=client,
body=body,
event=event,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: IngestChirpStackBody,
    event: str | Unset = UNSET,

) -> Response[Any | ErrorEnvelope]:
    """ Receive a ChirpStack v4 HTTP integration event

     ChirpStack's HTTP integration with the JSON marshaler posts here with
    `?event=up|status|join|location|...` and `Authorization: Bearer <integration token>`. 204 once
    stored (or for an event type the service ignores); a repeated `deduplicationId` is stored once.

    Args:
        event (str | Unset): ChirpStack event type
        body (IngestChirpStackBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorEnvelope]
     """


    kwargs = _get_kwargs(
        body=body,
event=event,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    body: IngestChirpStackBody,
    event: str | Unset = UNSET,

) -> Any | ErrorEnvelope | None:
    """ Receive a ChirpStack v4 HTTP integration event

     ChirpStack's HTTP integration with the JSON marshaler posts here with
    `?event=up|status|join|location|...` and `Authorization: Bearer <integration token>`. 204 once
    stored (or for an event type the service ignores); a repeated `deduplicationId` is stored once.

    Args:
        event (str | Unset): ChirpStack event type
        body (IngestChirpStackBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorEnvelope
     """


    return (await asyncio_detailed(
        client=client,
body=body,
event=event,

    )).parsed
