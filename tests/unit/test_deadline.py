"""The request deadline (app/core/deadline.py) around a plain ASGI app: a request whose
answer has not started by the bound is answered 503 `unavailable` with Retry-After and
its task cancelled; an answer that has started (a stream) is never cut."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace
from typing import Any, cast

from litestar.datastructures import State
from litestar.types import Receive, Scope, Send

from app.core.config import Settings
from app.core.deadline import DeadlineMiddleware, deadlines_lifespan

# A request's bound: 0.1 s for a connection plus 0.3 s for its statement.
SETTINGS = Settings(
    database_url="postgresql://unused", db_acquire_timeout_s=0.1, db_command_timeout_s=0.3
)
BOUND_S = 0.4


def _scope(app: Any) -> Scope:
    """The part of an HTTP scope the middleware reads."""
    return cast(Scope, {"type": "http", "app": app, "route_handler": SimpleNamespace(opt={})})


async def _serve(inner: Any) -> tuple[list[dict[str, Any]], float]:
    state = State()
    state.settings = SETTINGS
    app = SimpleNamespace(state=state)
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    loop = asyncio.get_running_loop()
    async with deadlines_lifespan(app):
        began = loop.time()
        await DeadlineMiddleware(inner)(_scope(app), cast(Receive, receive), cast(Send, send))
        took = loop.time() - began
    return sent, took


async def test_a_request_past_its_bound_is_a_503_and_is_cancelled() -> None:
    cancelled = asyncio.Event()

    async def hanging(scope: Any, receive: Any, send: Any) -> None:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    sent, took = await _serve(hanging)
    assert took < BOUND_S
    assert cancelled.is_set()
    assert sent[0]["status"] == 503
    assert dict(sent[0]["headers"])[b"retry-after"] == b"2"
    assert json.loads(sent[1]["body"])["error"]["code"] == "unavailable"
    assert len(sent) == 2


async def test_an_answer_that_has_started_is_not_cut() -> None:
    async def streaming(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        for _ in range(6):
            await asyncio.sleep(0.1)
            await send({"type": "http.response.body", "body": b"x", "more_body": True})
        await send({"type": "http.response.body", "body": b""})

    sent, _ = await _serve(streaming)  # 0.6 s, past the bound
    assert sent[0]["status"] == 200
    assert [m.get("body") for m in sent[1:]] == [b"x"] * 6 + [b""]
