from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_envelope import ErrorEnvelope
from ...models.ingest_the_things_stack_application_up import IngestTheThingsStackApplicationUp
from typing import cast



def _get_kwargs(
    *,
    body: IngestTheThingsStackApplicationUp,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/ingest/tts",
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
    body: IngestTheThingsStackApplicationUp,

) -> Response[Any | ErrorEnvelope]:
    """ Receive a The Things Stack webhook message

     The Things Stack's webhook integration (JSON) posts uplinks, join-accepts and solved locations here
    with `Authorization: Bearer <integration token>` of an integration of kind `tts`. 204 once stored
    (or for a message type the service ignores); a repeated `as:up:` correlation id is stored once.

    Args:
        body (IngestTheThingsStackApplicationUp): One webhook body: exactly one of the message
            fields is set.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorEnvelope]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    body: IngestTheThingsStackApplicationUp,

) -> Any | ErrorEnvelope | None:
    """ Receive a The Things Stack webhook message

     The Things Stack's webhook integration (JSON) posts uplinks, join-accepts and solved locations here
    with `Authorization: Bearer <integration token>` of an integration of kind `tts`. 204 once stored
    (or for a message type the service ignores); a repeated `as:up:` correlation id is stored once.

    Args:
        body (IngestTheThingsStackApplicationUp): One webhook body: exactly one of the message
            fields is set.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorEnvelope
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: IngestTheThingsStackApplicationUp,

) -> Response[Any | ErrorEnvelope]:
    """ Receive a The Things Stack webhook message

     The Things Stack's webhook integration (JSON) posts uplinks, join-accepts and solved locations here
    with `Authorization: Bearer <integration token>` of an integration of kind `tts`. 204 once stored
    (or for a message type the service ignores); a repeated `as:up:` correlation id is stored once.

    Args:
        body (IngestTheThingsStackApplicationUp): One webhook body: exactly one of the message
            fields is set.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorEnvelope]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    body: IngestTheThingsStackApplicationUp,

) -> Any | ErrorEnvelope | None:
    """ Receive a The Things Stack webhook message

     The Things Stack's webhook integration (JSON) posts uplinks, join-accepts and solved locations here
    with `Authorization: Bearer <integration token>` of an integration of kind `tts`. 204 once stored
    (or for a message type the service ignores); a repeated `as:up:` correlation id is stored once.

    Args:
        body (IngestTheThingsStackApplicationUp): One webhook body: exactly one of the message
            fields is set.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorEnvelope
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
