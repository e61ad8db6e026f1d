"""Access rules declared once per controller: scopes, key flavour and plan write access.

A handler or controller declares what it needs in `opt`: `scope` (one scope string),
`write` (plan API write access) and `subaccount_key` (members routes); `check_access`
applies them in the order of decisions D3 and D17.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.auth.principal import Principal
from app.core.errors import ApiError


def check_access(principal: Principal, opt: Mapping[str, Any]) -> None:
    """The scope, key-flavour and plan checks of a route, in the order of D3 and D17.

    Run by `AuthMiddleware` right after authentication rather than as a Litestar guard:
    a router-level guard makes Litestar copy the route handler on every request.
    Inline-auth handlers (/latest) call it after their own authentication.
    """
    scope = opt.get("scope")
    if scope and scope not in principal.scopes:
        raise ApiError(403, "insufficient_scope", f"this API key lacks the scope {scope}")
    if opt.get("subaccount_key") and principal.is_partner_key:
        raise ApiError(
            403, "subaccount_key_required", "this route needs a key bound to a sub-account"
        )
    if opt.get("write") and not principal.api_write:
        raise ApiError(403, "write_not_enabled", "the plan has no API write access")


def require_networks(principal: Principal) -> None:
    if not principal.networks_enabled:
        raise ApiError(403, "networks_disabled", "the Networks feature is off for this account")


def require_multi_site(principal: Principal) -> None:
    if not principal.multi_site_enabled:
        raise ApiError(403, "multi_site_disabled", "the multi-site feature is off for this account")
