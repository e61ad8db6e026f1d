"""The response class of every route that returns data (issue 27: the per-request cost of
the HTTP layer).

A route returning a struct (`Single[...]`, `Listing[...]`) has Litestar build a `Response`,
then an `ASGIResponse` from it: headers merged into a dict, a `MutableScopeHeaders` built
and searched for `content-type` and `content-length`, cookies chained, then two sends.
For the answer nearly every such route gives (a JSON body, no header, cookie or
background task of its own) that was about a sixth of `GET /me`'s CPU in the worker
(py-spy). `JsonAnswer` sends that answer itself, with the same status, the same two
header fields in the same order and the body encoded by the same call
(`Response.render`), so the bytes on the wire do not change; any other answer is built by
Litestar as before.
"""

from __future__ import annotations

from typing import Any

from litestar import Response
from litestar.serialization import get_serializer
from litestar.types import Receive, Scope, Send

_JSON = "application/json"
_CONTENT_TYPE = (b"content-type", b"application/json")


class _Sent:
    """The ASGI app of one JSON answer: the start of the response, then its body."""

    __slots__ = ("body", "status")

    def __init__(self, status: int, body: bytes) -> None:
        self.status = status
        self.body = body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = [_CONTENT_TYPE, (b"content-length", str(len(self.body)).encode())]
        await send({"type": "http.response.start", "status": self.status, "headers": headers})
        await send({"type": "http.response.body", "body": self.body, "more_body": False})


class JsonAnswer(Response[Any]):
    """`Response` whose plain JSON answers skip Litestar's `ASGIResponse` (see above)."""

    def to_asgi_response(self, app: Any, request: Any, **options: Any) -> Any:
        status = self.status_code or options.get("status_code") or 200
        plain = (
            app is None
            and not self.headers
            and not self.cookies
            and self.background is None
            and (self.media_type or options.get("media_type") or _JSON) == _JSON
            and 200 <= status < 300
            and status != 204
            and not any(options.get(name) for name in _OPTIONS_OF_OTHER_ANSWERS)
        )
        if not plain:
            return super().to_asgi_response(app, request, **options)
        serializer = get_serializer(self.response_type_encoders)
        return _Sent(status, self.render(self.content, _JSON, serializer))


# Arguments of `to_asgi_response` that make an answer other than a plain JSON one.
_OPTIONS_OF_OTHER_ANSWERS = (
    "background",
    "cookies",
    "encoded_headers",
    "headers",
    "is_head_response",
    "type_encoders",
)
