"""Authentication and rate limiting for every `/api/v1` route (decisions D2-D4).

Runs after routing, so an unknown path is a 404 before any key is looked at (D18).
Routes marked `opt={"public": True}` (health) skip it; routes marked
`opt={"inline_auth": True}` get only the key's hash (`scope["state"]["key_hash"]`) and run
`api_authenticate` themselves, with the same order of checks. Keys are resolved and
permits spent through the worker's key cache (app/auth/cache.py) while it is up, by
`api_authenticate` per request otherwise.
"""

from __future__ import annotations

from typing import Any

from litestar.datastructures import MutableScopeHeaders
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from app.auth.cache import current_cache
from app.auth.errors import is_failure, limited_error, rate_headers, unauthorized
from app.auth.guards import check_access
from app.auth.principal import KEY_PATTERN, Principal, hash_secret, principal_from_row
from app.core.errors import ApiError
from app.core.sql import QUERIES

AUTHENTICATE = QUERIES["auth.authenticate"]
__all__ = ["AuthMiddleware", "bearer_key", "outcome_to_principal", "rate_headers"]


def bearer_key(scope: Scope) -> str | None:
    for name, value in scope["headers"]:
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            token = token.strip()
            if scheme.lower() == "bearer" and KEY_PATTERN.match(token):
                return token
            return None
    return None


def outcome_to_principal(row: Any) -> Principal:
    """Turns a row of `api_authenticate` into a principal, or raises its 401/429."""
    outcome = row["outcome"]
    if is_failure(outcome):
        raise unauthorized(outcome)
    if outcome in ("rate_limited", "quota_exceeded"):
        raise limited_error(
            outcome,
            row["rate_limit"],
            row["remaining"],
            row["retry_after"],
            row["day_limit"],
            row["day_remaining"],
        )
    return principal_from_row(row)


def add_headers(message: Any, fields: dict[str, str]) -> None:
    """Sets `fields` on a response start. Appended as raw pairs when the answer has none of
    them (every answer but a few errors): MutableScopeHeaders' search per field was ~3% of
    GET /me's CPU (py-spy)."""
    headers: list[tuple[bytes, bytes]] = list(message.get("headers", ()))
    encoded = [
        (name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in fields.items()
    ]
    names = {name for name, _ in encoded}
    message["headers"] = headers
    if any(name in names for name, _ in headers):
        mutable = MutableScopeHeaders.from_message(message)
        for name, value in fields.items():
            mutable[name] = value
        return
    headers.extend(encoded)


class AuthMiddleware:
    """A plain ASGI middleware (Litestar's AbstractMiddleware wrapper costs a call per
    request); routes with `opt={"public": True}` pass through."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # OPTIONS (Litestar's own handler: the Allow header) needs no key, like a preflight.
        if scope["route_handler"].opt.get("public") or scope.get("method") == "OPTIONS":
            await self.app(scope, receive, send)
            return
        key = bearer_key(scope)
        if key is None:
            raise unauthorized("unauthorized")
        if scope["route_handler"].opt.get("inline_auth"):
            # The handler authenticates in the same SQL statement as its own lookup (one
            # round trip) and adds the rate-limit headers itself; see
            # app/latest/controller.py.
            scope.setdefault("state", {})["key_hash"] = hash_secret(key)
            await self.app(scope, receive, send)
            return
        cache = current_cache(scope["app"])
        if cache is not None:
            principal = await cache.authenticate(hash_secret(key))
        else:
            row = await scope["app"].state.pool.fetchrow(AUTHENTICATE, hash_secret(key))
            principal = outcome_to_principal(row)
        scope.setdefault("state", {})["principal"] = principal
        extra = rate_headers(
            principal.rate_limit,
            principal.remaining,
            principal.day_limit,
            principal.day_remaining,
        )

        async def send_with_limits(message: Message) -> None:
            if message["type"] == "http.response.start":
                add_headers(message, extra)
            await send(message)

        try:
            check_access(principal, scope["route_handler"].opt)
        except ApiError as error:
            error.headers.update(extra)
            raise
        await self.app(scope, receive, send_with_limits)
