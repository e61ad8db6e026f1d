"""Access rules declared once per controller: scopes, key flavour and plan write access.

A handler or controller declares what it needs in `opt`: `scope` (one `Scope`), `write`
(plan API write access) and `subaccount_key` (members routes); `check_access` applies them
in the order of decisions D3 and D17. `public` and `inline_auth` tell the middleware to
skip authentication or leave it to the handler, `features` (app/devices/filters.py) names
feature switches. `check_route_options` refuses, at start-up, any other key or a scope
that does not exist: a misspelt key would otherwise silently drop its check.
"""

from __future__ import annotations

import types
from collections.abc import Iterable, Mapping
from typing import Any

from app.auth.principal import Principal
from app.core.deadline import STATEMENT_BOUND
from app.core.enums import Scope
from app.core.errors import ApiError, ErrorCode


def check_access(principal: Principal, opt: Mapping[str, Any]) -> None:
    """The scope, key-flavour and plan checks of a route, in the order of D3 and D17.

    Run by `AuthMiddleware` right after authentication rather than as a Litestar guard:
    a router-level guard makes Litestar copy the route handler on every request.
    Inline-auth handlers (/latest) call it after their own authentication.
    """
    scope = opt.get("scope")
    if scope and scope not in principal.scopes:
        raise ApiError(403, ErrorCode.INSUFFICIENT_SCOPE, f"this API key lacks the scope {scope}")
    if opt.get("subaccount_key") and principal.is_partner_key:
        raise ApiError(
            403, ErrorCode.SUBACCOUNT_KEY_REQUIRED, "this route needs a key bound to a sub-account"
        )
    if opt.get("write") and not principal.api_write:
        raise ApiError(403, ErrorCode.WRITE_NOT_ENABLED, "the plan has no API write access")


def require_networks(principal: Principal) -> None:
    if not principal.networks_enabled:
        raise ApiError(
            403, ErrorCode.NETWORKS_DISABLED, "the Networks feature is off for this account"
        )


def require_multi_site(principal: Principal) -> None:
    if not principal.multi_site_enabled:
        raise ApiError(
            403, ErrorCode.MULTI_SITE_DISABLED, "the multi-site feature is off for this account"
        )


# The `opt` keys routes may declare, with the type of their value.
ROUTE_OPTIONS: dict[str, type | tuple[type, ...]] = {
    "scope": Scope,
    "write": bool,
    "subaccount_key": bool,
    "public": bool,
    "inline_auth": bool,
    "features": tuple,
    # A statement bound of the route's own (app/core/deadline.py): settings -> seconds.
    STATEMENT_BOUND: types.FunctionType,
}


def check_route_options(handlers: Iterable[Any]) -> None:
    """Raises ValueError naming the first route whose `opt` has an unknown key or value."""
    for handler in handlers:
        for key, value in handler.opt.items():
            expected = ROUTE_OPTIONS.get(key)
            if expected is None:
                raise ValueError(f"route {handler}: unknown opt key {key!r}")
            if key == "scope" and value not in set(Scope):
                raise ValueError(f"route {handler}: unknown scope {value!r}")
            if key != "scope" and not isinstance(value, expected):
                raise ValueError(f"route {handler}: opt {key!r} must be {expected}")
