"""One bound for a whole request (issue 23, item 8): a route answers within
`DB_ACQUIRE_TIMEOUT_S` plus its statement's own bound (`DB_COMMAND_TIMEOUT_S`, or the
longer one a route declares in its `opt`, as the export's size count does), however many
statements it makes and however it waits (the key's permit, the group commit of ingest,
a connection given back). Past it, a request whose answer has not started gets 503
`unavailable` with Retry-After.

The bounds of each wait alone did not add up to that: against a hung server a request
could wait for a connection, then its statement, then for the statement's cancellation
when giving the connection back, once for the key's permit and again for its own query;
an uplink waited for the batch ahead of it, then its own, then for each uplink of its
batch retried alone (9.3 s measured with statements bounded to 6 s).

The answer is sent just before the bound (`Deadlines`: 0.1-0.15 s before it) by a task
of its own, and the request's task is then
cancelled and left to unwind by itself (giving back a connection to a hung server takes
as long as that server lets it), as `/health` does with its check. Whatever the request
would still send is dropped. An answer sent is never changed: once a response has started
(a stream) the deadline no longer applies. A 503 never acknowledges anything: an uplink
committed just before the deadline answers 503 too, and the client's resend is then
recognised by its deduplication id.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator, Callable
from typing import Any

import msgspec
from litestar.types import ASGIApp, Receive, Scope, Send

from app.core.config import Settings
from app.core.errors import UNAVAILABLE_RETRY_AFTER_S, ErrorBody, ErrorCode, ErrorEnvelope
from app.core.tasks import running

# A route whose statement has a bound of its own: `opt={STATEMENT_BOUND: f}`, where
# `f(settings)` is that bound in seconds.
STATEMENT_BOUND = "statement_bound"

_BODY = msgspec.json.encode(
    ErrorEnvelope(
        ErrorBody(code=ErrorCode.UNAVAILABLE, message="the database is unavailable; retry shortly")
    )
)
_HEADERS = [
    (b"content-type", b"application/json"),
    (b"content-length", str(len(_BODY)).encode()),
    (b"retry-after", str(UNAVAILABLE_RETRY_AFTER_S).encode()),
]


def request_bound_s(settings: Settings, opt: dict[str, Any]) -> float:
    """How long a request of a route with this `opt` may take before its answer starts."""
    statement: Callable[[Settings], float] | None = opt.get(STATEMENT_BOUND)
    own = statement(settings) if statement is not None else settings.db_command_timeout_s
    return settings.db_acquire_timeout_s + own


class _Exchange:
    """One request's answer: the application's, or the deadline's 503 (whichever starts
    first; the other is dropped)."""

    __slots__ = ("answer", "deadline", "finished", "send", "started", "task", "timed_out")

    def __init__(self, send: Any, task: asyncio.Task[Any], deadline: float) -> None:
        self.send = send
        self.task = task
        self.deadline = deadline
        self.started = False
        self.finished = False
        self.timed_out = False
        self.answer: asyncio.Task[None] | None = None

    async def from_app(self, message: dict[str, Any]) -> None:
        if self.timed_out:
            return
        if message["type"] == "http.response.start":
            self.started = True
        await self.send(message)

    def expire(self) -> None:
        if self.started or self.finished:
            return
        self.timed_out = True
        self.answer = asyncio.get_running_loop().create_task(self._unavailable())
        self.task.cancel()

    async def _unavailable(self) -> None:
        await self.send({"type": "http.response.start", "status": 503, "headers": _HEADERS})
        await self.send({"type": "http.response.body", "body": _BODY})


class Deadlines:
    """The requests of one app under way, in the order of their deadlines (one queue per
    bound, so each is in order), and the loop that cuts those past their deadline.

    A timer per request (`call_later`) cost 10-20 µs per request on the 2-core box; a
    queue costs an append, and a loop every `TICK_S` answers each request between
    `MARGIN_S + TICK_S` and `MARGIN_S` before its bound: the margin is for the answer's
    way to the client, so that the client has it within the bound."""

    TICK_S = 0.05
    MARGIN_S = 0.1

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.queues: dict[float, deque[_Exchange]] = {}
        self.bounds: dict[int, float] = {}  # by route handler: computed once

    def bound_for(self, route_handler: Any) -> float:
        bound = self.bounds.get(id(route_handler))
        if bound is None:
            bound = self.bounds[id(route_handler)] = request_bound_s(
                self.settings, route_handler.opt
            )
        return bound

    def add(self, exchange: _Exchange, bound: float) -> None:
        queue = self.queues.get(bound)
        if queue is None:
            queue = self.queues[bound] = deque()
        while queue and queue[0].finished:  # most requests end in their order
            queue.popleft()
        queue.append(exchange)

    def sweep(self, now: float) -> None:
        for queue in self.queues.values():
            while queue and (queue[0].finished or queue[0].deadline <= now + self.TICK_S):
                queue.popleft().expire()

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(self.TICK_S)
            self.sweep(loop.time())


class DeadlineMiddleware:
    """Bounds every HTTP request by `request_bound_s` of its route (the app's middleware,
    so that authentication is inside the bound). Without the app's `Deadlines` (its
    lifespan not run) requests are not bounded."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        deadlines: Deadlines | None = scope["app"].state.get("deadlines")
        if deadlines is None or scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await run_within(
            deadlines, deadlines.bound_for(scope["route_handler"]), self.app, scope, receive, send
        )


async def run_within(
    deadlines: Deadlines, bound: float, app: ASGIApp, scope: Scope, receive: Receive, send: Send
) -> None:
    """Runs the ASGI `app` for one request within `bound` seconds (the middleware's work,
    also used by the ingest routes answered below the framework, app/ingest/receive.py)."""
    task = asyncio.current_task()
    assert task is not None
    exchange = _Exchange(send, task, task.get_loop().time() + bound - Deadlines.MARGIN_S)
    deadlines.add(exchange, bound)
    try:
        await app(scope, receive, exchange.from_app)  # type: ignore[arg-type]
    except asyncio.CancelledError:
        if not exchange.timed_out:
            raise
        task.uncancel()
    except Exception:
        if not exchange.timed_out:
            raise
        # The request failed after its 503 was sent: the answer stands.
    finally:
        exchange.finished = True
        if exchange.answer is not None:
            with contextlib.suppress(Exception):
                await exchange.answer


@contextlib.asynccontextmanager
async def deadlines_lifespan(app: Any) -> AsyncIterator[None]:
    """The app's `Deadlines` and their loop, for as long as the app runs."""
    app.state.deadlines = Deadlines(app.state.settings)
    try:
        async with running(app.state.deadlines.run()):
            yield
    finally:
        app.state.deadlines = None
