"""GET, POST /members, DELETE /members/{user_id} and POST /members/validate (api-spec 4.11)."""

from __future__ import annotations

from typing import Any

import asyncpg
from litestar import Controller, Request, Response, delete, get, post

from app.auth.principal import Principal
from app.core.api import Listing, Page, Single
from app.core.body import json_body_operation, read_json_body, read_json_object
from app.core.reads import fetch_page, from_row
from app.core.routing import reader
from app.core.sql import QUERIES
from app.members.service import add_member, remove_member
from app.members.structs import (
    CREDENTIALS_DECODER,
    AddedMember,
    AddMember,
    Credentials,
    Member,
    RemovedMember,
    ValidatedMember,
    ValidatedUser,
)
from app.members.validate import validate_login

ADD_DESCRIPTION = (
    "`email` (required); `name` and `password` for a brand-new account (password 10 to 256 "
    "characters, else 400 `weak_password`); `role` (default `subaccount_viewer`); `siteId` "
    "(null or absent: no restriction; a non-null value needs the multi-site feature, else "
    "403 `multi_site_disabled`; a site of the key's sub-account, else 400 "
    "`invalid_site`; not with role `subaccount_admin`: 409 `role_not_restrictable`)."
)


class MembersController(Controller):
    path = "/members"
    tags = ["Members"]

    @get(
        operation_id="listMembers",
        summary="Members of the key's sub-account, by email",
        opt={"scope": "members:read", "subaccount_key": True},
    )
    async def list_members(self, principal: Principal, page: Page) -> Listing[Member]:
        return await fetch_page(
            reader(principal),
            lambda row: from_row(Member, row),
            QUERIES["members.list_members"],
            principal.sub_account_id,
            page=page,
            count=QUERIES["members.count_members"],
        )

    @post(
        operation_id="addMember",
        summary="Add a member to the key's sub-account",
        description=(
            "201. A brand-new email creates an `active` account that can sign in at once "
            "(`existing: false`); an email with an account in the workspace is attached "
            "without touching its password (`existing: true`). Order of checks: 403 "
            "`multi_site_disabled`, 400 `invalid_body`, 400 `invalid_site`, 409 "
            "`role_not_restrictable`, 409 `already_member`, 422 `member_quota_reached`, then "
            "for a new email 400 `invalid_body` (name or password missing) and 400 "
            "`weak_password`."
        ),
        opt={"scope": "members:manage", "subaccount_key": True},
        status_code=201,
        operation_class=json_body_operation(AddMember, ADD_DESCRIPTION),
    )
    async def add(
        self, request: Request[Any, Any, Any], pool: asyncpg.Pool, principal: Principal
    ) -> Response[Single[AddedMember]]:
        document = await read_json_object(request)
        added = await add_member(pool, principal, document)
        return Response(Single(added), status_code=201)

    @delete(
        "/{user_id:str}",
        operation_id="removeMember",
        summary="Remove a member from the key's sub-account and end their sessions",
        description=(
            "200 with `{data: {userId, removed: true, subAccountId, subAccountName}}`. Not a "
            "member: 404. The only remaining administrator: 409 `last_admin`."
        ),
        opt={"scope": "members:manage", "subaccount_key": True},
        status_code=200,
    )
    async def remove(
        self, pool: asyncpg.Pool, principal: Principal, user_id: str
    ) -> Single[RemovedMember]:
        return Single(await remove_member(pool, principal, user_id))

    @post(
        "/validate",
        operation_id="validateMember",
        summary="Check a member's email and password (changes nothing)",
        description=(
            "The password is verified first; an unknown email takes the same time as a wrong "
            "password and both answer 401 `invalid_credentials` (with `WWW-Authenticate: "
            'Bearer realm="members"`; a refused API key is 401 `unauthorized`, '
            "`key_expired` or `key_revoked` with `WWW-Authenticate: Bearer`). "
            "Then 403 `account_locked`, "
            "`account_inactive`, `not_a_member`. Never counts failures or locks. A "
            "sub-account key answers the membership in its sub-account; a partner key "
            "answers `memberships` in every sub-account of the partner."
        ),
        opt={"scope": "members:read"},
        status_code=200,
        operation_class=json_body_operation(Credentials, "`email` and `password`."),
    )
    async def validate(
        self, request: Request[Any, Any, Any], pool: asyncpg.Pool, principal: Principal
    ) -> Single[ValidatedMember | ValidatedUser]:
        credentials = await read_json_body(request, CREDENTIALS_DECODER)
        return Single(await validate_login(pool, principal, credentials))
