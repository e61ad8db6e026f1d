"""GET /multicast-groups and GET /multicast-groups/{group_id} (api-spec 2.9, 4.7, D17).

Executing a group is a separate controller of the downlink area (app/multicast/execute.py).
"""

from __future__ import annotations

from typing import Annotated

import asyncpg
from litestar import Controller, get
from litestar.params import Parameter

from app.auth.principal import Principal
from app.core.api import Limit, Listing, Offset, Pagination, Single, parse_uuid
from app.core.errors import error_responses, not_found
from app.core.routing import reader
from app.core.sql import QUERIES
from app.devices.filters import parse_plain_id
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
        responses=error_responses(400, 403),
    )
    async def list_groups(
        self,
        pool: asyncpg.Pool,
        principal: Principal,
        sub_account_id: Annotated[str | None, Parameter(query="subAccountId")] = None,
        limit: Limit = 50,
        offset: Offset = 0,
    ) -> Listing[MulticastGroup]:
        sub_account = parse_plain_id("subAccountId", sub_account_id)
        rows = await reader(principal).fetch(
            LIST_GROUPS, principal.partner_id, principal.sub_account_id, sub_account, limit, offset
        )
        return Listing(
            data=[
                MulticastGroup(
                    id=r["id"],
                    name=r["name"],
                    sub_account_id=r["sub_account_id"],
                    device_count=r["device_count"],
                )
                for r in rows
                if r["id"] is not None
            ],
            pagination=Pagination(limit=limit, offset=offset, total=rows[0]["total"]),
        )

    @get(
        "/{group_id:str}",
        operation_id="getMulticastGroup",
        summary="One multicast group with its member devices and their status",
        description="Members in inventory stay listed, with their status.",
        responses=error_responses(403, 404),
    )
    async def get_group(
        self, pool: asyncpg.Pool, principal: Principal, group_id: str
    ) -> Single[MulticastGroupDetail]:
        wanted = parse_uuid(group_id)
        row = None
        if wanted is not None:
            row = await pool.fetchrow(
                GET_GROUP, principal.partner_id, principal.sub_account_id, wanted
            )
        if row is None:
            raise not_found("multicast group")
        members = await pool.fetch(GROUP_MEMBERS, row["id"])
        return Single(
            MulticastGroupDetail(
                id=row["id"],
                name=row["name"],
                sub_account_id=row["sub_account_id"],
                device_count=row["device_count"],
                devices=[
                    GroupMember(
                        device_id=m["id"], dev_eui=m["dev_eui"], name=m["name"], status=m["status"]
                    )
                    for m in members
                ],
            )
        )
