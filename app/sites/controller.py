"""GET /sites and GET /sites/{site_id} (api-spec 2.11, 4.9, decisions D8, D17, D18)."""

from __future__ import annotations

from functools import partial

import asyncpg
from litestar import Controller, get

from app.auth.principal import Principal
from app.core.api import Listing, Page, Single
from app.core.reads import from_row, get_owned, list_owned
from app.core.sql import QUERIES
from app.devices.filters import (
    SubAccountFilter,
    check_features,
    features,
    parse_plain_id,
)
from app.sites.structs import Site

LIST_SITES = QUERIES["sites.list_sites"]
GET_SITE = QUERIES["sites.get_site"]


class SiteController(Controller):
    path = "/sites"
    opt = {"scope": "devices:read", **features("multi_site")}
    tags = ["Sites"]
    before_request = staticmethod(check_features)

    @get(
        operation_id="listSites",
        summary="Sites visible to the key",
        description=(
            "Needs the multi-site feature (else 403 `multi_site_disabled`); a partner key "
            "sees the sites of its sub-accounts where the feature is on. Sites nest at most "
            "three levels; `parentSiteId` is null for a root site."
        ),
    )
    async def list_sites(
        self, principal: Principal, sub_account_id: SubAccountFilter = None, *, page: Page
    ) -> Listing[Site]:
        sub_account = parse_plain_id("subAccountId", sub_account_id)
        return await list_owned(
            principal, partial(from_row, Site), LIST_SITES, sub_account, page=page
        )

    @get(
        "/{site_id:str}",
        operation_id="getSite",
        summary="One site",
    )
    async def get_site(
        self, pool: asyncpg.Pool, principal: Principal, site_id: str
    ) -> Single[Site]:
        return await get_owned(pool, principal, "site", GET_SITE, site_id, Site)
