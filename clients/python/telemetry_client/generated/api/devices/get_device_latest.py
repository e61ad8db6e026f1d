from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_envelope import ErrorEnvelope
from ...models.latest_values_response import LatestValuesResponse
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    device_ref: Any,
    *,
    if_none_match: str | Unset = UNSET,
    prefer: str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_none_match, Unset):
        headers["If-None-Match"] = if_none_match

    if not isinstance(prefer, Unset):
        headers["Prefer"] = prefer



    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/devices/{device_ref}/latest".format(device_ref=quote(str(device_ref), safe=""),),
    }


    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Any | ErrorEnvelope | LatestValuesResponse | None:
    if response.status_code == 200:
        response_200 = LatestValuesResponse.from_dict(response.json())



        return response_200

    if response.status_code == 304:
        response_304 = cast(Any, None)
        return response_304

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Any | ErrorEnvelope | LatestValuesResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    device_ref: Any,
    *,
    client: AuthenticatedClient,
    if_none_match: str | Unset = UNSET,
    prefer: str | Unset = UNSET,

) -> Response[Any | ErrorEnvelope | LatestValuesResponse]:
    """ Latest values of a device

     The latest values object (api-spec 2.4). Carries a strong `ETag`; send it back in `If-None-Match` to
    get 304 with an empty body while nothing changed. A 304 counts toward the rate limit. Inventory and
    archived devices: 404.

    Args:
        device_ref (Any):
        if_none_match (str | Unset):
        prefer (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorEnvelope | LatestValuesResponse]
     """


    kwargs = _get_kwargs(
        device_ref=device_ref,
if_none_match=if_none_match,
prefer=prefer,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    device_ref: Any,
    *,
    client: AuthenticatedClient,
    if_none_match: str | Unset = UNSET,
    prefer: str | Unset = UNSET,

) -> Any | ErrorEnvelope | LatestValuesResponse | None:
    """ Latest values of a device

     The latest values object (api-spec 2.4). Carries a strong `ETag`; send it back in `If-None-Match` to
    get 304 with an empty body while nothing changed. A 304 counts toward the rate limit. Inventory and
    archived devices: 404.

    Args:
        device_ref (Any):
        if_none_match (str | Unset):
        prefer (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorEnvelope | LatestValuesResponse
     """


    return sync_detailed(
        device_ref=device_ref,
client=client,
if_none_match=if_none_match,
prefer=prefer,

    ).parsed

async def asyncio_detailed(
    device_ref: Any,
    *,
    client: AuthenticatedClient,
    if_none_match: str | Unset = UNSET,
    prefer: str | Unset = UNSET,

) -> Response[Any | ErrorEnvelope | LatestValuesResponse]:
    """ Latest values of a device

     The latest values object (api-spec 2.4). Carries a strong `ETag`; send it back in `If-None-Match` to
    get 304 with an empty body while nothing changed. A 304 counts toward the rate limit. Inventory and
    archived devices: 404.

    Args:
        device_ref (Any):
        if_none_match (str | Unset):
        prefer (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorEnvelope | LatestValuesResponse]
     """


    kwargs = _get_kwargs(
        device_ref=device_ref,
if_none_match=if_none_match,
prefer=prefer,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    device_ref: Any,
    *,
    client: AuthenticatedClient,
    if_none_match: str | Unset = UNSET,
    prefer: str | Unset = UNSET,

) -> Any | ErrorEnvelope | LatestValuesResponse | None:
    """ Latest values of a device

     The latest values object (api-spec 2.4). Carries a strong `ETag`; send it back in `If-None-Match` to
    get 304 with an empty body while nothing changed. A 304 counts toward the rate limit. Inventory and
    archived devices: 404.

    Args:
        device_ref (Any):
        if_none_match (str | Unset):
        prefer (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorEnvelope | LatestValuesResponse
     """


    return (await asyncio_detailed(
        device_ref=device_ref,
client=client,
if_none_match=if_none_match,
prefer=prefer,

    )).parsed
