from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.add_member_add_member import AddMemberAddMember
from ...models.added_member_response import AddedMemberResponse
from ...models.error_envelope import ErrorEnvelope
from typing import cast



def _get_kwargs(
    *,
    body: AddMemberAddMember,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/members",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> AddedMemberResponse | ErrorEnvelope | None:
    if response.status_code == 201:
        response_201 = AddedMemberResponse.from_dict(response.json())



        return response_201

    if response.status_code == 400:
        response_400 = ErrorEnvelope.from_dict(response.json())



        return response_400

    if response.status_code == 401:
        response_401 = ErrorEnvelope.from_dict(response.json())



        return response_401

    if response.status_code == 403:
        response_403 = ErrorEnvelope.from_dict(response.json())



        return response_403

    if response.status_code == 409:
        response_409 = ErrorEnvelope.from_dict(response.json())



        return response_409

    if response.status_code == 413:
        response_413 = ErrorEnvelope.from_dict(response.json())



        return response_413

    if response.status_code == 414:
        response_414 = ErrorEnvelope.from_dict(response.json())



        return response_414

    if response.status_code == 415:
        response_415 = ErrorEnvelope.from_dict(response.json())



        return response_415

    if response.status_code == 422:
        response_422 = ErrorEnvelope.from_dict(response.json())



        return response_422

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[AddedMemberResponse | ErrorEnvelope]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: AddMemberAddMember,

) -> Response[AddedMemberResponse | ErrorEnvelope]:
    """ Add a member to the key's sub-account

     201. A brand-new email creates an `active` account that can sign in at once (`existing: false`); an
    email with an account in the workspace is attached without touching its password (`existing: true`).
    Order of checks: 403 `multi_site_disabled`, 400 `invalid_body`, 400 `invalid_site`, 409
    `role_not_restrictable`, 409 `already_member`, 422 `member_quota_reached`, then for a new email 400
    `invalid_body` (name or password missing) and 400 `weak_password`.

    Args:
        body (AddMemberAddMember):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AddedMemberResponse | ErrorEnvelope]
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
    body: AddMemberAddMember,

) -> AddedMemberResponse | ErrorEnvelope | None:
    """ Add a member to the key's sub-account

     201. A brand-new email creates an `active` account that can sign in at once (`existing: false`); an
    email with an account in the workspace is attached without touching its password (`existing: true`).
    Order of checks: 403 `multi_site_disabled`, 400 `invalid_body`, 400 `invalid_site`, 409
    `role_not_restrictable`, 409 `already_member`, 422 `member_quota_reached`, then for a new email 400
    `invalid_body` (name or password missing) and 400 `weak_password`.

    Args:
        body (AddMemberAddMember):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AddedMemberResponse | ErrorEnvelope
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: AddMemberAddMember,

) -> Response[AddedMemberResponse | ErrorEnvelope]:
    """ Add a member to the key's sub-account

     201. A brand-new email creates an `active` account that can sign in at once (`existing: false`); an
    email with an account in the workspace is attached without touching its password (`existing: true`).
    Order of checks: 403 `multi_site_disabled`, 400 `invalid_body`, 400 `invalid_site`, 409
    `role_not_restrictable`, 409 `already_member`, 422 `member_quota_reached`, then for a new email 400
    `invalid_body` (name or password missing) and 400 `weak_password`.

    Args:
        body (AddMemberAddMember):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AddedMemberResponse | ErrorEnvelope]
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
    body: AddMemberAddMember,

) -> AddedMemberResponse | ErrorEnvelope | None:
    """ Add a member to the key's sub-account

     201. A brand-new email creates an `active` account that can sign in at once (`existing: false`); an
    email with an account in the workspace is attached without touching its password (`existing: true`).
    Order of checks: 403 `multi_site_disabled`, 400 `invalid_body`, 400 `invalid_site`, 409
    `role_not_restrictable`, 409 `already_member`, 422 `member_quota_reached`, then for a new email 400
    `invalid_body` (name or password missing) and 400 `weak_password`.

    Args:
        body (AddMemberAddMember):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AddedMemberResponse | ErrorEnvelope
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
