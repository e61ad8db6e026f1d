"""GET /networks and GET /networks/{network_id} (api-spec 2.10, 4.8, decisions D8, D17, D18)."""

from __future__ import annotations

import asyncpg
from litestar import Controller, get

from app.auth.principal import Principal
from app.core.api import Listing, Page, Single
from app.core.reads import fetch_owned_by_id, from_row, list_owned
from app.core.sql import QUERIES
from app.devices.filters import (
    DescendantsFilter,
    SiteFilter,
    SubAccountFilter,
    check_features,
    features,
    parse_filters,
)
from app.networks.structs import (
    Network,
    NetworkDetail,
    NetworkDevice,
    NetworkGateway,
    offline_counts,
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
        opt=features("networks", siteId="multi_site"),
    )
    async def list_networks(
        self,
        principal: Principal,
        sub_account_id: SubAccountFilter = None,
        site_id: SiteFilter = None,
        include_descendants: DescendantsFilter = None,
        *,
        page: Page,
    ) -> Listing[Network]:
        filters = parse_filters(
            principal,
            sub_account_id=sub_account_id,
            site_id=site_id,
            include_descendants=include_descendants,
        )
        return await list_owned(
            principal,
            lambda row: from_row(Network, row, **offline_counts(row)),
            LIST_NETWORKS,
            filters.sub_account,
            filters.site.id,
            filters.site.none,
            filters.descendants,
            page=page,
        )

    @get(
        "/{network_id:str}",
        operation_id="getNetwork",
        summary="One network with rollups and its member devices and gateways",
    )
    async def get_network(
        self, pool: asyncpg.Pool, principal: Principal, network_id: str
    ) -> Single[NetworkDetail]:
        row = await fetch_owned_by_id(pool, principal, "network", GET_NETWORK, network_id)
        devices = await pool.fetch(NETWORK_DEVICES, row["id"])
        gateways = await pool.fetch(NETWORK_GATEWAYS, row["id"])
        return Single(
            from_row(
                NetworkDetail,
                row,
                **offline_counts(row),
                devices=[from_row(NetworkDevice, d, device_id=d["id"]) for d in devices],
                gateways=[from_row(NetworkGateway, g, gateway_id=g["id"]) for g in gateways],
            )
        )
