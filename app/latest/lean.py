"""GET /devices/{id}/latest answered below the framework when the worker's memory holds
the whole answer (issue 27: a dashboard's 304 at >= 0.6x the HTTP floor).

A polling dashboard's request is, nearly always, a cached key with a leased permit left
(app/auth/cache.py) asking for a device whose stored body the worker's /latest cache
holds (app/latest/cache.py). Its answer needs no statement and no wait, yet Litestar's
layers (exception handling, routing, the read router, the request deadline, the auth
middleware, the handler's arguments, the response object and four wrapped `send`s) cost
about twice what the route itself does (py-spy). So `LeanLatest`, between the request
observer and Litestar, answers exactly those requests itself (waiting up to 20 ms for
the permits of a lease another request is renewing), with the same helpers and the same
bytes as `LatestController.latest`; every other request (a query string, a `Prefer`
header, a key or device not cached, no permit left, a missing scope, a refusal of any
kind) goes to Litestar untouched, having spent and counted nothing. The
request observer still gives every answer its request id, access line and metrics, under
the route's own template.
"""

from __future__ import annotations

import re
from typing import Any

from litestar._asgi.utils import is_valid_host
from litestar.types import ASGIApp, Receive, Scope, Send

from app.auth.cache import current_cache
from app.auth.errors import rate_headers
from app.auth.middleware import bearer_key
from app.auth.principal import hash_secret
from app.auth.tenancy import split_reference
from app.core.api import API_PREFIX
from app.latest.cache import current_latest_cache
from app.latest.controller import CACHE_CONTROL, SCOPE, body_of, first_if_none_match, matches

_PATH = re.compile(rf"^{re.escape(API_PREFIX)}/devices/([^/]+)/latest$")
# The route's template as Litestar's router gives it, for the access line and the metrics.
TEMPLATE = f"{API_PREFIX}/devices/{{device_ref}}/latest"
_JSON = (b"content-type", b"application/json")


class LeanLatest:
    def __init__(self, app: ASGIApp, litestar: Any) -> None:
        self.app = app
        self.litestar = litestar

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        answer = await self.answer(scope) if scope["type"] == "http" else None
        if answer is None:
            await self.app(scope, receive, send)
            return
        status, headers, body = answer
        start: Any = {"type": "http.response.start", "status": status, "headers": headers}
        await send(start)
        await send({"type": "http.response.body", "body": body, "more_body": False})

    async def answer(self, scope: Any) -> tuple[int, list[tuple[bytes, bytes]], bytes] | None:
        """The status, headers and body of the answer, or None for the full path."""
        if scope["method"] != "GET" or scope.get("query_string") or scope.get("root_path"):
            return None
        found = _PATH.match(scope["path"])
        if found is None:
            return None
        for name, value in scope["headers"]:
            if (name == b"host" and not is_valid_host(value)) or name == b"prefer":
                return None  # Litestar's 400, or a long poll (the controller holds it)
        auth, latest = current_cache(self.litestar), current_latest_cache(self.litestar)
        key = bearer_key(scope)
        if auth is None or latest is None or key is None:
            return None
        device_id, dev_eui = split_reference(found.group(1))
        if device_id is None and dev_eui is None:
            return None
        key_hash = hash_secret(key)
        info = auth.ready(key_hash, SCOPE) or await auth.ready_after_renewal(key_hash, SCOPE)
        if info is None:
            return None
        tenancy = info.principal
        hit = latest.entry(
            (tenancy.partner_id, tenancy.sub_account_id, device_id, dev_eui), count_miss=False
        )
        if hit is None:
            return None
        principal = auth.spend_ready(info)
        scope.setdefault("state", {})["principal"] = principal  # the access line's key id
        scope["path_template"] = TEMPLATE
        _, stored, etag = hit
        fields = rate_headers(
            principal.rate_limit, principal.remaining, principal.day_limit, principal.day_remaining
        )
        fields["Cache-Control"] = CACHE_CONTROL
        fields["ETag"] = etag
        headers = [(name.lower().encode(), value.encode()) for name, value in fields.items()]
        if matches(first_if_none_match(scope["headers"]), etag):
            return 304, headers, b""
        body = body_of(stored)
        headers.append(_JSON)
        headers.append((b"content-length", str(len(body)).encode()))
        return 200, headers, body
