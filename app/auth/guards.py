"""Guards declared once per controller: scopes, key flavour and plan write access (D3).

A handler declares what it needs in `opt`: `scope` (one scope string), `write` (plan
API write access) and `subaccount_key` (members routes). The guard checks them in the
order of decisions D3 and D17.
"""

from __future__ import annotations

from typing import Any

from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler

from app.auth.principal import Principal
from app.core.errors import ApiError


def current_principal(connection: ASGIConnection[Any, Any, Any, Any]) -> Principal:
    principal: Principal = connection.scope["state"]["principal"]
    return principal


# Async on purpose: Litestar runs a sync guard in a thread pool, on every request.
async def access_guard(
    connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler
) -> None:
    if handler.opt.get("public") or handler.opt.get("inline_auth"):
        # Inline-auth handlers check their scope after their own authentication.
        return
    principal = current_principal(connection)
    scope = handler.opt.get("scope")
    if scope and scope not in principal.scopes:
        raise ApiError(403, "insufficient_scope", f"this API key lacks the scope {scope}")
    if handler.opt.get("subaccount_key") and principal.is_partner_key:
        raise ApiError(
            403, "subaccount_key_required", "this route needs a key bound to a sub-account"
        )
    if handler.opt.get("write") and not principal.api_write:
        raise ApiError(403, "write_not_enabled", "the plan has no API write access")


def require_networks(principal: Principal) -> None:
    if not principal.networks_enabled:
        raise ApiError(403, "networks_disabled", "the Networks feature is off for this account")


def require_multi_site(principal: Principal) -> None:
    if not principal.multi_site_enabled:
        raise ApiError(403, "multi_site_disabled", "the multi-site feature is off for this account")
