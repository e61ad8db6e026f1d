"""GET /gateways and GET /gateways/{id} (api-spec 2.6, 3.1, 4.4, decisions D17, D18)."""

from __future__ import annotations

import asyncpg
from litestar import Controller, get

from app.auth.principal import Principal
from app.auth.tenancy import split_reference
from app.core.api import Listing, Page, Single
from app.core.reads import empty_page, fetch_owned, list_owned
from app.core.sql import QUERIES
from app.devices.filters import (
    FILTER_FEATURES,
    DescendantsFilter,
    NetworkFilter,
    OnlineFilter,
    SiteFilter,
    StatusFilter,
    SubAccountFilter,
    check_features,
    parse_filters,
)
from app.gateways.structs import Gateway, gateway_from_row

LIST_GATEWAYS = QUERIES["gateways.list_gateways"]
GET_GATEWAY = QUERIES["gateways.get_gateway"]


class GatewayController(Controller):
    path = "/gateways"
    opt = {"scope": "devices:read"}
    tags = ["Gateways"]
    before_request = staticmethod(check_features)

    @get(
        operation_id="listGateways",
        summary="Gateways visible to the key, filtered",
        description=(
            "Ordered by name, then id; `status` as for devices. A gateway is online when "
            "assigned and it reported (stats or a relayed uplink) within 30 minutes."
        ),
        opt=FILTER_FEATURES,
    )
    async def list_gateways(
        self,
        principal: Principal,
        sub_account_id: SubAccountFilter = None,
        network_id: NetworkFilter = None,
        status: StatusFilter = None,
        online: OnlineFilter = None,
        site_id: SiteFilter = None,
        include_descendants: DescendantsFilter = None,
        *,
        page: Page,
    ) -> Listing[Gateway]:
        filters = parse_filters(
            principal,
            sub_account_id=sub_account_id,
            network_id=network_id,
            status=status,
            site_id=site_id,
            include_descendants=include_descendants,
            online=online,
        )
        if filters.statuses == []:
            return empty_page(page)
        return await list_owned(
            principal,
            gateway_from_row,
            LIST_GATEWAYS,
            filters.sub_account,
            filters.statuses,
            filters.network.id,
            filters.network.none,
            filters.online,
            filters.site.id,
            filters.site.none,
            filters.descendants,
            page=page,
        )

    @get(
        "/{gateway_id:str}",
        operation_id="getGateway",
        summary="One gateway",
        description="`{gateway_id}` is the service id or the GatewayEUI (any case, `:`/`-`).",
    )
    async def get_gateway(
        self, pool: asyncpg.Pool, principal: Principal, gateway_id: str
    ) -> Single[Gateway]:
        keys = split_reference(gateway_id)
        return Single(
            gateway_from_row(await fetch_owned(pool, principal, "gateway", GET_GATEWAY, *keys))
        )
