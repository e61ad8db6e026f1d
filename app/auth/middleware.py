"""Authentication and rate limiting for every `/api/v1` route (decisions D2-D4).

Runs after routing, so an unknown path is a 404 before any key is looked at (D18).
Routes marked `opt={"public": True}` (health) skip it; routes marked
`opt={"inline_auth": True}` get only the key's hash (`scope["state"]["key_hash"]`) and run
`api_authenticate` themselves, with the same order of checks.
"""

from __future__ import annotations

from typing import Any

from litestar.datastructures import MutableScopeHeaders
from litestar.middleware import AbstractMiddleware
from litestar.types import Message, Receive, Scope, Send

from app.auth.principal import KEY_PATTERN, Principal, hash_secret, principal_from_row
from app.core.errors import ApiError
from app.core.sql import QUERIES

AUTHENTICATE = QUERIES["auth.authenticate"]
_CHALLENGE = {"WWW-Authenticate": "Bearer"}
_FAILURES = {
    "unauthorized": "missing, malformed or unknown API key",
    "key_expired": "the API key has expired",
    "key_revoked": "the API key has been revoked",
}


def bearer_key(scope: Scope) -> str | None:
    for name, value in scope["headers"]:
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            token = token.strip()
            if scheme.lower() == "bearer" and KEY_PATTERN.match(token):
                return token
            return None
    return None


def unauthorized(code: str) -> ApiError:
    return ApiError(401, code, _FAILURES[code], dict(_CHALLENGE))


def rate_headers(limit: int, remaining: int) -> dict[str, str]:
    return {"X-RateLimit-Limit": str(limit), "X-RateLimit-Remaining": str(max(remaining, 0))}


def outcome_to_principal(row: Any) -> Principal:
    """Turns a row of `api_authenticate` into a principal, or raises its 401/429."""
    outcome = row["outcome"]
    if outcome in _FAILURES:
        raise unauthorized(outcome)
    if outcome in ("rate_limited", "quota_exceeded"):
        headers = rate_headers(row["rate_limit"], row["remaining"])
        headers["Retry-After"] = str(row["retry_after"])
        message = (
            "per-minute request limit exceeded"
            if outcome == "rate_limited"
            else "daily request quota exceeded"
        )
        raise ApiError(429, outcome, message, headers)
    return principal_from_row(row)


class AuthMiddleware(AbstractMiddleware):
    exclude_opt_key = "public"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        key = bearer_key(scope)
        if key is None:
            raise unauthorized("unauthorized")
        if scope["route_handler"].opt.get("inline_auth"):
            # The handler authenticates in the same SQL statement as its own lookup (one
            # round trip) and adds the rate-limit headers itself; see
            # app/telemetry/controller.py.
            scope.setdefault("state", {})["key_hash"] = hash_secret(key)
            await self.app(scope, receive, send)
            return
        pool = scope["app"].state.pool
        row = await pool.fetchrow(AUTHENTICATE, hash_secret(key))
        principal = outcome_to_principal(row)
        scope.setdefault("state", {})["principal"] = principal
        extra = rate_headers(principal.rate_limit, principal.remaining)

        async def send_with_limits(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableScopeHeaders.from_message(message)
                for name, value in extra.items():
                    headers[name] = value
            await send(message)

        await self.app(scope, receive, send_with_limits)
