"""The request observer: request id, one access-log line and the metrics of every request.

It wraps the whole application (outside Litestar's router), so unknown paths, 405s and
answers of the auth middleware are seen too. The request id is the client's `X-Request-ID`
when it is a sane token (1 to 128 characters of letters, digits and `-._:`), otherwise a
new one; it is echoed in the response's `X-Request-ID`, carried by every log record
written while the request is served, and written in the access line with the method, the
route template (never the raw path's ids), the status, the duration and the id of the API
key (never the key itself).
"""

from __future__ import annotations

import itertools
import os
import re
import time
from typing import Any

from litestar.types import ASGIApp, Message, Receive, Scope, Send

from app.core.config import Settings
from app.observe.logs import REQUEST_ID, access_logger
from app.observe.metrics import observe_request

_SANE_ID = re.compile(rb"^[A-Za-z0-9\-._:]{1,128}$")
UNMATCHED = "unmatched"


class _Ids:
    """Request ids unique across processes and restarts: 16 random hex characters drawn
    when the worker starts, then a 16-hex-digit counter (a uuid4 per request costs more
    than the rest of a 304 answer's bookkeeping)."""

    def __init__(self) -> None:
        self.prefix = os.urandom(8).hex()
        self.counter = itertools.count(1)

    def next(self) -> str:
        return f"{self.prefix}{next(self.counter):016x}"


def _incoming_id(headers: Any) -> str | None:
    for name, value in headers:
        if name == b"x-request-id":
            return value.decode("ascii") if _SANE_ID.match(value) else None
    return None


def _key_id(scope: Scope) -> str | None:
    principal = scope.get("state", {}).get("principal")
    return None if principal is None else str(principal.key_id)


class RequestObserver:
    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.log = access_logger(settings) if settings.access_log else None
        self.metrics = settings.metrics_port != 0
        self.ids = _Ids()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        request_id = _incoming_id(scope["headers"]) or self.ids.next()
        echoed = (b"x-request-id", request_id.encode())
        status = 500

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", ()), echoed]
            await send(message)

        token = REQUEST_ID.set(request_id)
        try:
            await self.app(scope, receive, send_with_id)
        finally:
            ended = time.perf_counter()
            seconds = ended - started
            route = scope.get("path_template") or UNMATCHED
            method: str = scope["method"]  # type: ignore[typeddict-item]
            if self.metrics:
                observe_request(method, route, status, seconds)
            if self.log is not None:
                self.log.request(
                    request_id,
                    method,
                    route,
                    status,
                    round(seconds * 1000, 3),
                    _key_id(scope),
                    ended,
                )
            REQUEST_ID.reset(token)
