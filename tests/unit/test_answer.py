"""JsonAnswer (app/server/answer.py) sends what Litestar's own Response sends: the same
status, header fields and body bytes, for the answers it sends itself and for those it
leaves to Litestar."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import msgspec
import pytest
from litestar import Response
from litestar.background_tasks import BackgroundTask
from litestar.datastructures import Cookie

from app.core.api import Single
from app.server.answer import JsonAnswer, _Sent


class Thing(msgspec.Struct, rename="camel"):
    thing_id: uuid.UUID
    name: str
    at: datetime
    values: list[float | None]
    nested: dict[str, Any]


# The handlers never read the request when they answer (Litestar passes it along).
NO_REQUEST: Any = None
CONTENT = Single(
    Thing(
        thing_id=uuid.UUID("6f1c2b9e-4d7a-4c1e-9a55-2f0d8c3b7e10"),
        name='Kühlraum \u2603 "north"',
        at=datetime(2026, 11, 27, 16, 0, 0, 123000, tzinfo=UTC),
        values=[1.5, None, 1e-300, 21.0],
        nested={"a": [1, 2], "b": None},
    )
)


async def sent(response: Any, **options: Any) -> list[dict[str, Any]]:
    """What the ASGI app made of `response` sends, as a data handler of Litestar asks it."""
    messages: list[dict[str, Any]] = []

    async def send(message: Any) -> None:
        messages.append(message)

    async def receive() -> Any:
        return {"type": "http.request", "body": b"", "more_body": False}

    arguments = {"headers": {}, "cookies": frozenset(), **options}
    app = response.to_asgi_response(app=None, request=None, **arguments)
    await app({"type": "http"}, receive, send)
    return messages


def made(cls: type[Response[Any]], **fields: Any) -> Response[Any]:
    return cls(**{"content": CONTENT, "media_type": "application/json", **fields})


@pytest.mark.parametrize("status", [200, 201, 202])
async def test_a_plain_json_answer_is_sent_as_litestar_sends_it(status: int) -> None:
    ours = made(JsonAnswer, status_code=status)
    assert isinstance(ours.to_asgi_response(app=None, request=NO_REQUEST, headers={}), _Sent)
    assert await sent(ours) == await sent(made(Response, status_code=status))


@pytest.mark.parametrize(
    ("fields", "options"),
    [
        ({"status_code": 204, "content": None}, {}),
        ({"headers": {"ETag": '"x"'}}, {}),
        ({}, {"headers": {"Cache-Control": "no-store"}}),
        ({"cookies": [Cookie(key="k", value="v")]}, {}),
        ({"background": BackgroundTask(lambda: None)}, {}),
        ({"media_type": "text/plain", "content": "hello"}, {}),
        ({"status_code": 400}, {}),
    ],
)
async def test_any_other_answer_is_left_to_litestar(
    fields: dict[str, Any], options: dict[str, Any]
) -> None:
    ours = made(JsonAnswer, **fields)
    assert not isinstance(ours.to_asgi_response(app=None, request=NO_REQUEST, **options), _Sent)
    assert await sent(ours, **options) == await sent(made(Response, **fields), **options)
