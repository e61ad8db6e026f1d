"""GET /devices/{id}/latest: the stored latest values body with a strong ETag (D11).

Dashboards poll this all day, mostly answered 304. The route authenticates inline
(`opt={"inline_auth": True}`): the middleware only checks the key's form. With the
worker's key cache (app/auth/cache.py) the key and its permit are resolved locally and one
read-only statement finds the device and its stored body; without it one SQL statement
does authentication, the rate limit and the device lookup. Either way an answer costs at
most one database round trip. The order of D3 is kept: 401, 429, 403 scope, then 404.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

import asyncpg
from litestar import Controller, Request, Response, get

from app.auth.cache import current_cache
from app.auth.middleware import outcome_to_principal, rate_headers
from app.auth.principal import Principal
from app.auth.tenancy import split_reference
from app.core.api import Single
from app.core.enums import DeviceStatus
from app.core.errors import ApiError, ErrorCode, error_responses
from app.core.routing import fetchrow_unless_changed
from app.core.sql import QUERIES
from app.latest.cache import LatestCache, current_latest_cache
from app.latest.structs import LatestValues
from app.notify.wait import Answer, hold, requested_wait
from app.profiles.contexts import DeviceContext, DeviceContexts

SCOPE = "telemetry:read"
LATEST_WITH_AUTH = QUERIES["latest.latest_with_auth"]
LATEST_BY_ID = QUERIES["latest.latest_by_id"]
LATEST_BY_EUI = QUERIES["latest.latest_by_eui"]
DEVICE_BY_NUM = QUERIES["profiles.context_device_by_num"]
STATIC_BODY = QUERIES["latest.static_body"]
# Every answer may be stored by the client but must be revalidated (with its ETag).
CACHE_CONTROL = "private, no-cache"


def first_if_none_match(raw_headers: Any) -> str | None:
    """The `If-None-Match` header read straight from the ASGI scope (no Headers object)."""
    for name, value in raw_headers:
        if name == b"if-none-match":
            text: str = value.decode("latin-1")
            return text
    return None


def matches(if_none_match: str | None, etag: str) -> bool:
    """`If-None-Match` with a list, `*`, and weak comparison (RFC 9110 13.1.2)."""
    if not if_none_match:
        return False
    for candidate in if_none_match.split(","):
        tag = candidate.strip()
        if tag == "*":
            return True
        if tag.startswith(("W/", "w/")):
            tag = tag[2:]
        if tag == etag:
            return True
    return False


async def static_body(pool: asyncpg.Pool, contexts: DeviceContexts, num: int) -> tuple[bytes, str]:
    """The body of a device that has not reported yet: its static values and formulas
    over them (api-spec 2.4), built by the same SQL as every stored body. The app's
    context cached for the num is used only if the statement finds it is the device's."""
    context = contexts.cached(num)
    row = await _static_body(pool, context) if context is not None else None
    if row is None:
        context = await contexts.of_row(pool, await pool.fetchrow(DEVICE_BY_NUM, num))
        row = await _static_body(pool, context)
    return row["latest_body"], row["latest_etag"]


async def _static_body(pool: asyncpg.Pool, context: DeviceContext) -> Any:
    derived = (
        {k: context.static_part[k] for k in context.static_derived} if context.has_derived else None
    )
    return await pool.fetchrow(STATIC_BODY, context.id, context.num, context.static_part, derived)


async def _stored_or_static(
    pool: asyncpg.Pool, contexts: DeviceContexts, row: Any
) -> tuple[bytes, str]:
    body: bytes | None = row["latest_body"]
    if body is None:
        return await static_body(pool, contexts, row["device_num"])
    etag: str = row["latest_etag"]
    return body, etag


async def _cached_lookup(
    latest: LatestCache | None,
    pool: asyncpg.Pool,
    contexts: DeviceContexts,
    principal: Principal,
    device_id: uuid.UUID | None,
    dev_eui: str | None,
    headers: dict[str, str],
) -> tuple[int, bytes, str]:
    """The device's num, stored body and ETag from the worker's cache, else by one
    read-only lookup."""
    if device_id is None and dev_eui is None:
        raise ApiError(404, ErrorCode.NOT_FOUND, "device not found", headers)
    key = (principal.partner_id, principal.sub_account_id, device_id, dev_eui)
    hit = latest.entry(key) if latest is not None else None
    if hit is not None:
        return hit
    mark = latest.mark(key) if latest is not None else None
    row = await fetchrow_unless_changed(
        principal,
        latest.row_changed_at if latest is not None else None,
        LATEST_BY_ID if device_id is not None else LATEST_BY_EUI,
        device_id if device_id is not None else dev_eui,
        principal.partner_id,
        principal.sub_account_id,
    )
    if row is None or row["status"] != DeviceStatus.ASSIGNED:
        raise ApiError(404, ErrorCode.NOT_FOUND, "device not found", headers)
    body, etag = await _stored_or_static(pool, contexts, row)
    if latest is not None and mark is not None and row["latest_body"] is not None:
        latest.put(key, row["device_num"], body, etag, mark)
    return row["device_num"], body, etag


def json_bytes_response(content: bytes, status: int, headers: dict[str, str]) -> Response[Any]:
    """A response of ready-made JSON bytes (the stored body is never decoded); the
    fleet latest route (app/live/controller.py) answers with it too."""
    return Response(
        content=content, status_code=status, headers=headers, media_type="application/json"
    )


def body_of(stored: bytes) -> bytes:
    """The 200 body around a stored latest values object."""
    return b'{"data":' + stored + b"}"


class LatestController(Controller):
    path = "/devices"
    tags = ["Devices"]

    @get(
        "/{device_ref:str}/latest",
        operation_id="getDeviceLatest",
        summary="Latest values of a device",
        description=(
            "The latest values object (api-spec 2.4). Carries a strong `ETag`; send it back "
            "in `If-None-Match` to get 304 with an empty body while nothing changed. A 304 "
            "counts toward the rate limit. Inventory and archived devices: 404."
        ),
        opt={"scope": SCOPE, "inline_auth": True},
        responses=error_responses(403, 404),
    )
    async def latest(
        self, request: Request[Any, Any, Any], device_ref: str
    ) -> Response[Single[LatestValues]]:
        pool: asyncpg.Pool = request.app.state.pool
        contexts: DeviceContexts = request.app.state.device_contexts
        device_id, dev_eui = split_reference(device_ref)
        key_hash = request.scope["state"]["key_hash"]
        cache = current_cache(request.app)
        row: Any
        if cache is None:
            row = await pool.fetchrow(LATEST_WITH_AUTH, key_hash, device_id, dev_eui)
            principal = outcome_to_principal(row)
        else:
            principal = await cache.authenticate(key_hash)
        # The access log names the key (app/observe/requests.py).
        request.scope["state"]["principal"] = principal
        headers = rate_headers(
            principal.rate_limit, principal.remaining, principal.day_limit, principal.day_remaining
        )
        if SCOPE not in principal.scopes:
            raise ApiError(
                403, ErrorCode.INSUFFICIENT_SCOPE, f"this API key lacks the scope {SCOPE}", headers
            )
        read_at = time.time()
        if cache is not None:
            latest = current_latest_cache(request.app)
            num, body, etag = await _cached_lookup(
                latest, pool, contexts, principal, device_id, dev_eui, headers
            )
        else:
            if row["device_num"] is None or row["status"] != DeviceStatus.ASSIGNED:
                raise ApiError(404, ErrorCode.NOT_FOUND, "device not found", headers)
            num = row["device_num"]
            body, etag = await _stored_or_static(pool, contexts, row)
        headers["Cache-Control"] = CACHE_CONTROL
        condition = first_if_none_match(request.scope["headers"])
        wait = requested_wait(request.scope["headers"]) if condition else None
        not_modified = matches(condition, etag)
        if wait is not None:
            # Long poll (analytics.md section 1): held on the worker's live hub.
            headers["Preference-Applied"] = f"wait={wait}"
            if not_modified:

                async def read() -> Answer:
                    latest = current_latest_cache(request.app)
                    found = await _cached_lookup(
                        latest, pool, contexts, principal, device_id, dev_eui, headers
                    )
                    return frozenset((found[0],)), found[1], found[2]

                changed = await hold(
                    request.app, wait, (frozenset((num,)), body, etag), read, False, read_at
                )
                # A change ends the wait with the new body (even for `If-None-Match: *`).
                if changed is not None:
                    _, body, etag = changed
                    not_modified = False
        headers["ETag"] = etag
        if not_modified:
            return json_bytes_response(b"", 304, headers)
        return json_bytes_response(body_of(body), 200, headers)
