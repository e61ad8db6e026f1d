"""What the server checks of a request before the application routes it (issue 11,
defects 11 and 12): the outermost ASGI layer, around the Litestar app that granian serves.

- An id is one path segment (D6): a path with an encoded slash (`%2F`) or an empty segment
  (`//devices`) names nothing and is 404 `not_found`, before routing would decode or merge
  them.
- `HEAD` is answered like `GET` without the body; where a response lists the allowed
  methods (`OPTIONS`, 405) and `GET` is one of them, so is `HEAD`.
- A body on a request without one (GET, HEAD, DELETE, OPTIONS) counts against the same
  64 KiB as a POST: 413 `payload_too_large` instead of being read and ignored.
- A request target over 8 KiB is 414 `uri_too_long`, headers over 32 KiB are 431
  `headers_too_large`, both in the envelope. granian's own parser limits lie above these
  (app/server/granian.py): it still refuses, with an empty body, a target over 65,534 bytes,
  more than 100 header fields and a head over its 1 MiB buffer before any Python runs; the
  README lists every such input ("Before routing").
- A body that ends before its declared length, or whose chunked encoding is malformed
  (granian reports both as a disconnect), is 400 `invalid_body` where the route reads it.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec
from litestar import Litestar
from litestar.routes import HTTPRoute

from app.core.errors import (
    BODY_TOO_LARGE,
    MAX_BODY_BYTES,
    ErrorBody,
    ErrorCode,
    ErrorEnvelope,
    invalid_body,
)

MAX_TARGET_BYTES = 8 * 1024
MAX_HEADER_BYTES = 32 * 1024
_BODYLESS = frozenset({"GET", "HEAD", "DELETE", "OPTIONS"})
_ENCODED_SLASH = re.compile(rb"%2f|%5c", re.IGNORECASE)
_encode = msgspec.json.Encoder().encode

AsgiScope = dict[str, Any]


async def _answer(
    send: Any, status: int, code: ErrorCode, message: str, head: bool = False
) -> None:
    body = _encode(ErrorEnvelope(ErrorBody(code=code, message=message)))
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": b"" if head else body})


def _refusal(scope: AsgiScope) -> tuple[int, ErrorCode, str] | None:
    """The envelope answer for a request refused before routing, if it is one."""
    raw_path: bytes = scope.get("raw_path") or scope["path"].encode()
    path = raw_path.split(b"?", 1)[0]
    if len(raw_path) + len(scope.get("query_string", b"")) > MAX_TARGET_BYTES:
        return 414, ErrorCode.URI_TOO_LONG, "request target over 8 KiB"
    if sum(len(name) + len(value) + 4 for name, value in scope["headers"]) > MAX_HEADER_BYTES:
        return 431, ErrorCode.HEADERS_TOO_LARGE, "request headers over 32 KiB"
    if b"//" in path or _ENCODED_SLASH.search(path):
        return 404, ErrorCode.NOT_FOUND, "no such resource"
    if scope["method"] in _BODYLESS:
        for name, value in scope["headers"]:
            if name == b"content-length" and value.isdigit() and int(value) > MAX_BODY_BYTES:
                return 413, ErrorCode.PAYLOAD_TOO_LARGE, BODY_TOO_LARGE
    return None


class ServerFace:
    """The ASGI app granian serves: these checks, then the Litestar app."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def __getattr__(self, name: str) -> Any:
        return getattr(self.app, name)

    async def __call__(self, scope: AsgiScope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        head = scope["method"] == "HEAD"
        refusal = _refusal(scope)
        if refusal is not None:
            await _answer(send, *refusal, head=head)
            return
        if scope["method"] in _BODYLESS and any(
            name == b"transfer-encoding" for name, _ in scope["headers"]
        ):
            buffered = await _read_small_body(receive)
            if buffered is None:
                await _answer(send, 413, ErrorCode.PAYLOAD_TOO_LARGE, BODY_TOO_LARGE, head)
                return
            receive = _replay(buffered)
        elif _declares_body(scope):
            receive = _body_read_to_its_end(receive)
        if head:
            scope = {**scope, "method": "GET"}
        await self.app(scope, receive, _with_head_allowed(send, head, scope["method"]))


def _declares_body(scope: AsgiScope) -> bool:
    for name, value in scope["headers"]:
        if name == b"transfer-encoding" or (name == b"content-length" and value != b"0"):
            return True
    return False


def _body_read_to_its_end(receive: Any) -> Any:
    """`receive` for a request with a body, refusing one that ends early.

    granian reports a chunked body it cannot parse, like a connection closed before the
    declared length arrived, as `http.disconnect` while the body is still being read;
    Litestar would make that a 500. It is the client's error: 400 `invalid_body`, raised
    where the route reads the body. A disconnect after the whole body is passed on as it
    is (a streaming answer listens for it)."""
    whole = False

    async def wrapped() -> dict[str, Any]:
        nonlocal whole
        message: dict[str, Any] = await receive()
        if message["type"] == "http.request":
            whole = not message.get("more_body", False)
        elif message["type"] == "http.disconnect" and not whole:
            raise invalid_body(
                "body", "ended before its declared length, or its chunked encoding is malformed"
            )
        return message

    return wrapped


async def _read_small_body(receive: Any) -> list[dict[str, Any]] | None:
    """The request's messages while the body stays within 64 KiB, else None."""
    messages = []
    size = 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return messages
        size += len(message.get("body", b""))
        if size > MAX_BODY_BYTES:
            return None
        if not message.get("more_body", False):
            return messages


def _replay(messages: list[dict[str, Any]]) -> Any:
    queue = list(messages)

    async def receive() -> dict[str, Any]:
        return queue.pop(0) if queue else {"type": "http.disconnect"}

    return receive


def allow_every_method(app: Litestar) -> None:
    """Makes Litestar's automatic OPTIONS answer list every method of its path.

    Litestar 2 builds that answer when a path's first handlers are registered and keeps it
    when the path's route is rebuilt with more handlers, so it lists the first route's
    methods only (`OPTIONS /members` answered `Allow: OPTIONS, POST` though GET is there
    too; litestar issue 4169, fixed in Litestar 3). The answer reads the route it was built
    for from its closure; that is pointed at the final route of its path."""
    for route in app.routes:
        if not isinstance(route, HTTPRoute):
            continue
        for handler in route.route_handlers:
            closure = handler.fn.__closure__ if handler.handler_name == "options_handler" else None
            for cell in closure or ():
                if isinstance(cell.cell_contents, HTTPRoute):
                    cell.cell_contents = route


def _with_head_allowed(send: Any, head: bool, method: str) -> Any:
    """`send` for the app: HEAD added next to GET in `Allow` (which only OPTIONS answers
    and 405s carry), and no body for a HEAD request."""
    options = method == "OPTIONS"

    async def wrapped(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start" and (options or message["status"] == 405):
            headers = []
            for name, value in message.get("headers", []):
                if name.lower() == b"allow" and b"GET" in value and b"HEAD" not in value:
                    value = value + b", HEAD"
                headers.append((name, value))
            message = {**message, "headers": headers}
        elif message["type"] == "http.response.body" and head:
            message = {**message, "body": b""}
        await send(message)

    return wrapped
