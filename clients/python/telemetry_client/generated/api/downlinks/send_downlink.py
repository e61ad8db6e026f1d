from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_envelope import ErrorEnvelope
from ...models.queued_downlink_response import QueuedDownlinkResponse
from ...models.send_downlink_body_type_0 import SendDownlinkBodyType0
from ...models.send_downlink_body_type_1 import SendDownlinkBodyType1
from typing import cast



def _get_kwargs(
    device_id: Any,
    *,
    body: SendDownlinkBodyType0 | SendDownlinkBodyType1,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/devices/{device_id}/downlinks".format(device_id=quote(str(device_id), safe=""),),
    }

    
    if isinstance(body, SendDownlinkBodyType0):
        _kwargs["json"] = body.to_dict()
    else:
        _kwargs["json"] = body.to_dict()


    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorEnvelope | QueuedDownlinkResponse | None:
    if response.status_code == 202:
        response_202 = QueuedDownlinkResponse.from_dict(response.json())



        return response_202

    if response.status_code == 400:
        response_400 = ErrorEnvelope.from_dict(response.json())



        return response_400

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

    if response.status_code == 415:
        response_415 = ErrorEnvelope.from_dict(response.json())



        return response_415

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorEnvelope | QueuedDownlinkResponse]:
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
    body: SendDownlinkBodyType0 | SendDownlinkBodyType1,

) -> Response[ErrorEnvelope | QueuedDownlinkResponse]:
    """ Queue a downlink to one device

     Needs `downlinks:write` and a plan with API write access. At most the device's `downlinkRatePerHour`
    (default 30) items per rolling hour; over it 429 `rate_limited` with `Retry-After` (seconds until a
    slot frees). `expiresAt` is now + `expiresInSeconds`, else now + the device's configured expiry,
    else null.

    Args:
        device_id (Any):
        body (SendDownlinkBodyType0 | SendDownlinkBodyType1): Body of a single send and of a
            multicast execution.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | QueuedDownlinkResponse]
     """


    kwargs = _get_kwargs(
        device_id=device_id,
body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    device_id: Any,
    *,
    client: AuthenticatedClient,
    body: SendDownlinkBodyType0 | SendDownlinkBodyType1,

) -> ErrorEnvelope | QueuedDownlinkResponse | None:
    """ Queue a downlink to one device

     Needs `downlinks:write` and a plan with API write access. At most the device's `downlinkRatePerHour`
    (default 30) items per rolling hour; over it 429 `rate_limited` with `Retry-After` (seconds until a
    slot frees). `expiresAt` is now + `expiresInSeconds`, else now + the device's configured expiry,
    else null.

    Args:
        device_id (Any):
        body (SendDownlinkBodyType0 | SendDownlinkBodyType1): Body of a single send and of a
            multicast execution.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | QueuedDownlinkResponse
     """


    return sync_detailed(
        device_id=device_id,
client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    device_id: Any,
    *,
    client: AuthenticatedClient,
    body: SendDownlinkBodyType0 | SendDownlinkBodyType1,

) -> Response[ErrorEnvelope | QueuedDownlinkResponse]:
    """ Queue a downlink to one device

     Needs `downlinks:write` and a plan with API write access. At most the device's `downlinkRatePerHour`
    (default 30) items per rolling hour; over it 429 `rate_limited` with `Retry-After` (seconds until a
    slot frees). `expiresAt` is now + `expiresInSeconds`, else now + the device's configured expiry,
    else null.

    Args:
        device_id (Any):
        body (SendDownlinkBodyType0 | SendDownlinkBodyType1): Body of a single send and of a
            multicast execution.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | QueuedDownlinkResponse]
     """


    kwargs = _get_kwargs(
        device_id=device_id,
body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    device_id: Any,
    *,
    client: AuthenticatedClient,
    body: SendDownlinkBodyType0 | SendDownlinkBodyType1,

) -> ErrorEnvelope | QueuedDownlinkResponse | None:
    """ Queue a downlink to one device

     Needs `downlinks:write` and a plan with API write access. At most the device's `downlinkRatePerHour`
    (default 30) items per rolling hour; over it 429 `rate_limited` with `Retry-After` (seconds until a
    slot frees). `expiresAt` is now + `expiresInSeconds`, else now + the device's configured expiry,
    else null.

    Args:
        device_id (Any):
        body (SendDownlinkBodyType0 | SendDownlinkBodyType1): Body of a single send and of a
            multicast execution.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | QueuedDownlinkResponse
     """


    return (await asyncio_detailed(
        device_id=device_id,
client=client,
body=body,

    )).parsed
