"""GET /networks and GET /networks/{network_id} (api-spec 2.10, 4.8, decisions D8, D17, D18)."""

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
from app.devices.filters import (
    check_features,
    features,
    parse_bool,
    parse_plain_id,
    parse_site_filter,
)
from app.networks.structs import (
    Network,
    NetworkDetail,
    NetworkDevice,
    NetworkGateway,
    rollup_fields,
)

LIST_NETWORKS = QUERIES["networks.list_networks"]
GET_NETWORK = QUERIES["networks.get_network"]
NETWORK_DEVICES = QUERIES["networks.network_devices"]
NETWORK_GATEWAYS = QUERIES["networks.network_gateways"]


class NetworkController(Controller):
    path = "/networks"
    opt = {"scope": "devices:read", **features("networks")}
    tags = ["Networks"]
    before_request = staticmethod(check_features)

    @get(
        operation_id="listNetworks",
        summary="Networks with health rollups",
        description=(
            "Needs the Networks feature (else 403 `networks_disabled`); a partner key sees "
            "the networks of its sub-accounts where the feature is on. Members are the "
            "assigned devices and gateways. A device is online when its last uplink is "
            "within its offline threshold (default 30 minutes), a gateway when it reported "
            "within 30 minutes; alerting means at least one active alert of any level."
        ),
        responses=error_responses(400, 403),
        opt=features("networks", siteId="multi_site"),
    )
    async def list_networks(
        self,
        pool: asyncpg.Pool,
        principal: Principal,
        sub_account_id: Annotated[str | None, Parameter(query="subAccountId")] = None,
        site_id: Annotated[
            str | None, Parameter(query="siteId", description="A site id or `none`.")
        ] = None,
        include_descendants: Annotated[
            str | None, Parameter(query="includeDescendants", description="`true` or `false`.")
        ] = None,
        limit: Limit = 50,
        offset: Offset = 0,
    ) -> Listing[Network]:
        site = parse_site_filter(principal, site_id)
        sub_account = parse_plain_id("subAccountId", sub_account_id)
        descendants = parse_bool("includeDescendants", include_descendants) or False
        rows = await reader(principal).fetch(
            LIST_NETWORKS,
            principal.partner_id,
            principal.sub_account_id,
            sub_account,
            site.id,
            site.none,
            descendants,
            limit,
            offset,
        )
        return Listing(
            data=[Network(**rollup_fields(r)) for r in rows if r["id"] is not None],
            pagination=Pagination(limit=limit, offset=offset, total=rows[0]["total"]),
        )

    @get(
        "/{network_id:str}",
        operation_id="getNetwork",
        summary="One network with rollups and its member devices and gateways",
        responses=error_responses(403, 404),
    )
    async def get_network(
        self, pool: asyncpg.Pool, principal: Principal, network_id: str
    ) -> Single[NetworkDetail]:
        wanted = parse_uuid(network_id)
        row = None
        if wanted is not None:
            row = await pool.fetchrow(
                GET_NETWORK, principal.partner_id, principal.sub_account_id, wanted
            )
        if row is None:
            raise not_found("network")
        devices = await pool.fetch(NETWORK_DEVICES, row["id"])
        gateways = await pool.fetch(NETWORK_GATEWAYS, row["id"])
        return Single(
            NetworkDetail(
                **rollup_fields(row),
                devices=[
                    NetworkDevice(
                        device_id=d["id"],
                        name=d["name"],
                        dev_eui=d["dev_eui"],
                        online=d["online"],
                        signal_quality=d["signal_quality"],
                        last_seen_at=d["last_seen_at"],
                    )
                    for d in devices
                ],
                gateways=[
                    NetworkGateway(
                        gateway_id=g["id"],
                        name=g["name"],
                        gateway_eui=g["gateway_eui"],
                        online=g["online"],
                        last_seen_at=g["last_seen_at"],
                    )
                    for g in gateways
                ],
            )
        )
