from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_envelope import ErrorEnvelope
from ...models.execute_multicast_group_body_type_0 import ExecuteMulticastGroupBodyType0
from ...models.execute_multicast_group_body_type_1 import ExecuteMulticastGroupBodyType1
from ...models.execute_result_response import ExecuteResultResponse
from typing import cast
from uuid import UUID



def _get_kwargs(
    group_id: UUID,
    *,
    body: ExecuteMulticastGroupBodyType0 | ExecuteMulticastGroupBodyType1,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/multicast-groups/{group_id}/execute".format(group_id=quote(str(group_id), safe=""),),
    }

    
    if isinstance(body, ExecuteMulticastGroupBodyType0):
        _kwargs["json"] = body.to_dict()
    else:
        _kwargs["json"] = body.to_dict()


    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorEnvelope | ExecuteResultResponse | None:
    if response.status_code == 202:
        response_202 = ExecuteResultResponse.from_dict(response.json())



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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorEnvelope | ExecuteResultResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    group_id: UUID,
    *,
    client: AuthenticatedClient,
    body: ExecuteMulticastGroupBodyType0 | ExecuteMulticastGroupBodyType1,

) -> Response[ErrorEnvelope | ExecuteResultResponse]:
    """ Queue a downlink to every assigned member of a group

     Needs `downlinks:write` and a plan with API write access. Body as a single send. Each member takes
    the template of its own profile (`key` is looked up per profile; `templateId` fits only members of
    that template's profile); a member without it is `failed` with `error`. When no member can take the
    request, 400 `invalid_body`. Inventory and archived members are left out; `deviceCount` =
    `enqueuedCount` + `rateLimitedCount` + `failedCount`; `perDevice` is ordered by device name. `error`
    is null when queued, else `<code>: <detail>` with code `rate_limited`, `template_not_found` or
    `invalid_data`.

    Args:
        group_id (UUID):
        body (ExecuteMulticastGroupBodyType0 | ExecuteMulticastGroupBodyType1): Body of a single
            send and of a multicast execution.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | ExecuteResultResponse]
     """


    kwargs = _get_kwargs(
        group_id=group_id,
body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    group_id: UUID,
    *,
    client: AuthenticatedClient,
    body: ExecuteMulticastGroupBodyType0 | ExecuteMulticastGroupBodyType1,

) -> ErrorEnvelope | ExecuteResultResponse | None:
    """ Queue a downlink to every assigned member of a group

     Needs `downlinks:write` and a plan with API write access. Body as a single send. Each member takes
    the template of its own profile (`key` is looked up per profile; `templateId` fits only members of
    that template's profile); a member without it is `failed` with `error`. When no member can take the
    request, 400 `invalid_body`. Inventory and archived members are left out; `deviceCount` =
    `enqueuedCount` + `rateLimitedCount` + `failedCount`; `perDevice` is ordered by device name. `error`
    is null when queued, else `<code>: <detail>` with code `rate_limited`, `template_not_found` or
    `invalid_data`.

    Args:
        group_id (UUID):
        body (ExecuteMulticastGroupBodyType0 | ExecuteMulticastGroupBodyType1): Body of a single
            send and of a multicast execution.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | ExecuteResultResponse
     """


    return sync_detailed(
        group_id=group_id,
client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    group_id: UUID,
    *,
    client: AuthenticatedClient,
    body: ExecuteMulticastGroupBodyType0 | ExecuteMulticastGroupBodyType1,

) -> Response[ErrorEnvelope | ExecuteResultResponse]:
    """ Queue a downlink to every assigned member of a group

     Needs `downlinks:write` and a plan with API write access. Body as a single send. Each member takes
    the template of its own profile (`key` is looked up per profile; `templateId` fits only members of
    that template's profile); a member without it is `failed` with `error`. When no member can take the
    request, 400 `invalid_body`. Inventory and archived members are left out; `deviceCount` =
    `enqueuedCount` + `rateLimitedCount` + `failedCount`; `perDevice` is ordered by device name. `error`
    is null when queued, else `<code>: <detail>` with code `rate_limited`, `template_not_found` or
    `invalid_data`.

    Args:
        group_id (UUID):
        body (ExecuteMulticastGroupBodyType0 | ExecuteMulticastGroupBodyType1): Body of a single
            send and of a multicast execution.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | ExecuteResultResponse]
     """


    kwargs = _get_kwargs(
        group_id=group_id,
body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    group_id: UUID,
    *,
    client: AuthenticatedClient,
    body: ExecuteMulticastGroupBodyType0 | ExecuteMulticastGroupBodyType1,

) -> ErrorEnvelope | ExecuteResultResponse | None:
    """ Queue a downlink to every assigned member of a group

     Needs `downlinks:write` and a plan with API write access. Body as a single send. Each member takes
    the template of its own profile (`key` is looked up per profile; `templateId` fits only members of
    that template's profile); a member without it is `failed` with `error`. When no member can take the
    request, 400 `invalid_body`. Inventory and archived members are left out; `deviceCount` =
    `enqueuedCount` + `rateLimitedCount` + `failedCount`; `perDevice` is ordered by device name. `error`
    is null when queued, else `<code>: <detail>` with code `rate_limited`, `template_not_found` or
    `invalid_data`.

    Args:
        group_id (UUID):
        body (ExecuteMulticastGroupBodyType0 | ExecuteMulticastGroupBodyType1): Body of a single
            send and of a multicast execution.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | ExecuteResultResponse
     """


    return (await asyncio_detailed(
        group_id=group_id,
client=client,
body=body,

    )).parsed
