"""GET /me, GET /health and the sub-account reads."""

from __future__ import annotations

import asyncio
from functools import partial
from typing import Any

import asyncpg
from litestar import Controller, Request, Response, get

from app.accounts.structs import Features, Health, Identity, RateLimit, SubAccount
from app.auth.cache import current_cache
from app.auth.principal import Principal
from app.core.api import Listing, Page, Single
from app.core.errors import UNAVAILABLE_RETRY_AFTER_S
from app.core.reads import from_row, get_owned, list_owned
from app.core.sql import QUERIES

DESCRIBE_KEY = QUERIES["accounts.describe_key"]


class HealthController(Controller):
    path = "/health"
    opt = {"public": True}
    tags = ["Service"]

    @get(operation_id="getHealth", summary="Service and database health", security=[])
    async def health(
        self, request: Request[Any, Any, Any], pool: asyncpg.Pool
    ) -> Response[Single[Health]]:
        # One bound for the whole check (waiting for a connection included), so a hung
        # database answers 503 within it (issue 11, defect 4). The check is its own task:
        # cancelling a query waits for asyncpg's cleanup, which a hung server stretches, so
        # on timeout the task is left to finish that by itself.
        check = asyncio.ensure_future(pool.fetchval("SELECT 1"))
        check.add_done_callback(lambda task: task.cancelled() or task.exception())
        done, _ = await asyncio.wait({check}, timeout=request.app.state.settings.health_timeout_s)
        if not done:
            check.cancel()
        if not done or check.exception() is not None:
            return Response(
                Single(Health(status="unavailable", database="unavailable")),
                status_code=503,
                headers={"Retry-After": str(UNAVAILABLE_RETRY_AFTER_S)},
            )
        return Response(Single(Health(status="ok", database="ok")))


class IdentityController(Controller):
    path = "/me"
    tags = ["Service"]

    @get(operation_id="getMe", summary="The tenancy and scopes the key resolves to")
    async def me(self, request: Request[Any, Any, Any], principal: Principal) -> Single[Identity]:
        # The names from the worker's key cache while it serves (no round trip), else read.
        # The pool comes from the request, not as a second dependency: Litestar resolves
        # two dependencies in an anyio task group, ~10% of this route's CPU.
        cache = current_cache(request.app)
        if cache is not None:
            row = await cache.describe(principal.key_id)
        else:
            row = await request.app.state.pool.fetchrow(DESCRIBE_KEY, principal.key_id)
        return Single(
            Identity(
                key_id=principal.key_id,
                key_name=row["key_name"],
                bound_to="partner" if principal.is_partner_key else "sub_account",
                partner_id=principal.partner_id,
                partner_name=row["partner_name"],
                sub_account_id=principal.sub_account_id,
                sub_account_name=row["sub_account_name"],
                scopes=sorted(principal.scopes),
                api_write=principal.api_write,
                retention_days=principal.retention_days,
                features=Features(
                    networks=principal.networks_enabled, multi_site=principal.multi_site_enabled
                ),
                rate_limit=RateLimit(
                    per_minute=principal.rate_limit, remaining=principal.remaining
                ),
                expires_at=row["expires_at"],
            )
        )


class SubAccountController(Controller):
    path = "/sub-accounts"
    opt = {"scope": "devices:read"}
    tags = ["Sub-accounts"]

    @get(operation_id="listSubAccounts", summary="Sub-accounts visible to the key")
    async def list_sub_accounts(self, principal: Principal, page: Page) -> Listing[SubAccount]:
        return await list_owned(
            principal,
            partial(from_row, SubAccount),
            QUERIES["accounts.list_sub_accounts"],
            page=page,
            count=QUERIES["accounts.count_sub_accounts"],
        )

    @get(
        "/{sub_account_id:str}",
        operation_id="getSubAccount",
        summary="One sub-account",
    )
    async def get_sub_account(
        self, pool: asyncpg.Pool, principal: Principal, sub_account_id: str
    ) -> Single[SubAccount]:
        query = QUERIES["accounts.get_sub_account"]
        return await get_owned(pool, principal, "sub-account", query, sub_account_id, SubAccount)
