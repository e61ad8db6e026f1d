"""CORS for browser dashboards (analytics.md section 4): `CORS_ORIGINS` (Settings.cors_origins,
none by default) lets pages on those origins call every `/api/v1` route.

A plain ASGI wrapper around the app, outside routing and authentication, so that a
preflight (`OPTIONS` with `Access-Control-Request-Method`) from an allowed origin is
answered 204 without a key, and every answer to an allowed origin (errors included: a
page must be able to read a 401 or a 429 and its `Retry-After`) carries
`Access-Control-Allow-Origin` and the exposed headers. A request from any other origin is
served exactly as without CORS: the browser then withholds the answer from the page.
Keys travel in the `Authorization` header, never in cookies, so credentials are not
allowed.
"""

from __future__ import annotations

from litestar.types import ASGIApp, HTTPResponseStartEvent, Message, Receive, Scope, Send

from app.core.api import API_PREFIX

ALLOWED_METHODS = "GET, POST, PUT, PATCH, DELETE, OPTIONS"
ALLOWED_HEADERS = "Authorization, If-None-Match, Prefer, Content-Type, Last-Event-ID"
EXPOSED_HEADERS = (
    "ETag, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, RateLimit-Policy, "
    "RateLimit, Preference-Applied, "
    "X-Request-ID, Content-Disposition"
)
PREFLIGHT_MAX_AGE_S = "600"


class Cors:
    def __init__(self, app: ASGIApp, origins: tuple[str, ...]) -> None:
        self.app = app
        self.any_origin = "*" in origins
        self.origins = frozenset(origin.rstrip("/").lower() for origin in origins)

    def allowed(self, origin: bytes | None) -> bool:
        if origin is None:
            return False
        return self.any_origin or origin.decode("latin-1").lower() in self.origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(API_PREFIX):
            await self.app(scope, receive, send)
            return
        origin = preflight = None
        for name, value in scope["headers"]:
            if name == b"origin":
                origin = value
            elif name == b"access-control-request-method":
                preflight = value
        if not self.allowed(origin):
            await self.app(scope, receive, send)
            return
        assert origin is not None
        if scope.get("method") == "OPTIONS" and preflight is not None:
            start: HTTPResponseStartEvent = {
                "type": "http.response.start",
                "status": 204,
                "headers": [
                    (b"access-control-allow-origin", origin),
                    (b"access-control-allow-methods", ALLOWED_METHODS.encode()),
                    (b"access-control-allow-headers", ALLOWED_HEADERS.encode()),
                    (b"access-control-max-age", PREFLIGHT_MAX_AGE_S.encode()),
                    (b"vary", b"Origin"),
                ],
            }
            await send(start)
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            return

        async def send_with_cors(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [
                    *message.get("headers", ()),
                    (b"access-control-allow-origin", origin),
                    (b"access-control-expose-headers", EXPOSED_HEADERS.encode()),
                    (b"vary", b"Origin"),
                ]
            await send(message)

        await self.app(scope, receive, send_with_cors)
