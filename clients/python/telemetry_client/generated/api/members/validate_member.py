from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error_envelope import ErrorEnvelope
from ...models.validate_member_credentials import ValidateMemberCredentials
from ...models.validated_member_or_validated_user_response import ValidatedMemberOrValidatedUserResponse
from typing import cast



def _get_kwargs(
    *,
    body: ValidateMemberCredentials,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/members/validate",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorEnvelope | ValidatedMemberOrValidatedUserResponse | None:
    if response.status_code == 200:
        response_200 = ValidatedMemberOrValidatedUserResponse.from_dict(response.json())



        return response_200

    if response.status_code == 400:
        response_400 = ErrorEnvelope.from_dict(response.json())



        return response_400

    if response.status_code == 401:
        response_401 = ErrorEnvelope.from_dict(response.json())



        return response_401

    if response.status_code == 403:
        response_403 = ErrorEnvelope.from_dict(response.json())



        return response_403

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorEnvelope | ValidatedMemberOrValidatedUserResponse]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: ValidateMemberCredentials,

) -> Response[ErrorEnvelope | ValidatedMemberOrValidatedUserResponse]:
    """ Check a member's email and password (changes nothing)

     The password is verified first; an unknown email takes the same time as a wrong password and both
    answer 401 `invalid_credentials` (with `WWW-Authenticate: Bearer realm="members"`; a refused API key
    is 401 `unauthorized`, `key_expired` or `key_revoked` with `WWW-Authenticate: Bearer`). Then 403
    `account_locked`, `account_inactive`, `not_a_member`. Never counts failures or locks. A sub-account
    key answers the membership in its sub-account; a partner key answers `memberships` in every sub-
    account of the partner.

    Args:
        body (ValidateMemberCredentials):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | ValidatedMemberOrValidatedUserResponse]
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
    body: ValidateMemberCredentials,

) -> ErrorEnvelope | ValidatedMemberOrValidatedUserResponse | None:
    """ Check a member's email and password (changes nothing)

     The password is verified first; an unknown email takes the same time as a wrong password and both
    answer 401 `invalid_credentials` (with `WWW-Authenticate: Bearer realm="members"`; a refused API key
    is 401 `unauthorized`, `key_expired` or `key_revoked` with `WWW-Authenticate: Bearer`). Then 403
    `account_locked`, `account_inactive`, `not_a_member`. Never counts failures or locks. A sub-account
    key answers the membership in its sub-account; a partner key answers `memberships` in every sub-
    account of the partner.

    Args:
        body (ValidateMemberCredentials):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | ValidatedMemberOrValidatedUserResponse
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: ValidateMemberCredentials,

) -> Response[ErrorEnvelope | ValidatedMemberOrValidatedUserResponse]:
    """ Check a member's email and password (changes nothing)

     The password is verified first; an unknown email takes the same time as a wrong password and both
    answer 401 `invalid_credentials` (with `WWW-Authenticate: Bearer realm="members"`; a refused API key
    is 401 `unauthorized`, `key_expired` or `key_revoked` with `WWW-Authenticate: Bearer`). Then 403
    `account_locked`, `account_inactive`, `not_a_member`. Never counts failures or locks. A sub-account
    key answers the membership in its sub-account; a partner key answers `memberships` in every sub-
    account of the partner.

    Args:
        body (ValidateMemberCredentials):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | ValidatedMemberOrValidatedUserResponse]
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
    body: ValidateMemberCredentials,

) -> ErrorEnvelope | ValidatedMemberOrValidatedUserResponse | None:
    """ Check a member's email and password (changes nothing)

     The password is verified first; an unknown email takes the same time as a wrong password and both
    answer 401 `invalid_credentials` (with `WWW-Authenticate: Bearer realm="members"`; a refused API key
    is 401 `unauthorized`, `key_expired` or `key_revoked` with `WWW-Authenticate: Bearer`). Then 403
    `account_locked`, `account_inactive`, `not_a_member`. Never counts failures or locks. A sub-account
    key answers the membership in its sub-account; a partner key answers `memberships` in every sub-
    account of the partner.

    Args:
        body (ValidateMemberCredentials):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | ValidatedMemberOrValidatedUserResponse
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
