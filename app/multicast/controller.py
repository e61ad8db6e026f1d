"""GET /multicast-groups and GET /multicast-groups/{group_id} (api-spec 2.9, 4.7, D17).

Executing a group is a separate controller of the downlink area (app/multicast/execute.py).
"""

from __future__ import annotations

from functools import partial

import asyncpg
from litestar import Controller, get

from app.auth.principal import Principal
from app.core.api import Listing, Page, Single
from app.core.reads import fetch_owned_by_id, from_row, list_owned
from app.core.sql import QUERIES
from app.devices.filters import (
    SubAccountFilter,
    parse_plain_id,
)
from app.multicast.structs import GroupMember, MulticastGroup, MulticastGroupDetail

LIST_GROUPS = QUERIES["multicast.list_groups"]
GET_GROUP = QUERIES["multicast.get_group"]
GROUP_MEMBERS = QUERIES["multicast.group_members"]


class MulticastGroupController(Controller):
    path = "/multicast-groups"
    opt = {"scope": "devices:read"}
    tags = ["Multicast groups"]

    @get(
        operation_id="listMulticastGroups",
        summary="Multicast groups visible to the key",
        description="`deviceCount` counts every member, whatever its status.",
    )
    async def list_groups(
        self, principal: Principal, sub_account_id: SubAccountFilter = None, *, page: Page
    ) -> Listing[MulticastGroup]:
        sub_account = parse_plain_id("subAccountId", sub_account_id)
        build = partial(from_row, MulticastGroup)
        return await list_owned(principal, build, LIST_GROUPS, sub_account, page=page)

    @get(
        "/{group_id:str}",
        operation_id="getMulticastGroup",
        summary="One multicast group with its member devices and their status",
        description="Members in inventory stay listed, with their status.",
    )
    async def get_group(
        self, pool: asyncpg.Pool, principal: Principal, group_id: str
    ) -> Single[MulticastGroupDetail]:
        row = await fetch_owned_by_id(pool, principal, "multicast group", GET_GROUP, group_id)
        members = await pool.fetch(GROUP_MEMBERS, row["id"])
        devices = [from_row(GroupMember, m, device_id=m["id"]) for m in members]
        return Single(from_row(MulticastGroupDetail, row, devices=devices))
