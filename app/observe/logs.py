"""Structured logs: one JSON object per line (LOG_FORMAT=json) or a readable console line.

structlog renders our own events and those of the standard library's loggers (ingest,
retention, errors), so every line has the same shape: `timestamp`, `level`, `logger`,
`event`, the request's `request_id` when there is one, and for an error its whole
traceback in one `exception` field of the same record. The access line of every request
has that shape too but is written in batches by `AccessSink` (its docstring says why).
"""

from __future__ import annotations

import asyncio
import logging
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import Any

import msgspec
import structlog
from structlog.typing import EventDict, WrappedLogger

from app.core.config import Settings
from app.core.tasks import running

# The id of the request being served, set by the request observer for its task.
REQUEST_ID: ContextVar[str | None] = ContextVar("request_id", default=None)

_encode = msgspec.json.Encoder().encode
_handler: logging.Handler | None = None


def _add_request_id(_: WrappedLogger, __: str, event: EventDict) -> EventDict:
    request_id = REQUEST_ID.get()
    if request_id is not None and "request_id" not in event:
        event["request_id"] = request_id
    return event


def _json_bytes(event: EventDict, **_: Any) -> bytes:
    return _encode(event)


def _json_text(event: EventDict, **_: Any) -> str:
    return _encode(event).decode()


def configure_logging(settings: Settings) -> None:
    """Sets up structlog and routes the standard library's logging through it.

    Called once per process (the app factory runs once per granian worker).
    """
    level = logging.getLevelNamesMapping().get(settings.log_level, logging.INFO)
    console = settings.log_format == "console"
    shared: list[Any] = [
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        _add_request_id,
    ]
    if console:
        structlog.configure(
            processors=[*shared, structlog.dev.ConsoleRenderer(colors=sys.stdout.isatty())],
            wrapper_class=structlog.make_filtering_bound_logger(level),
            logger_factory=structlog.PrintLoggerFactory(sys.stdout),
            cache_logger_on_first_use=True,
        )
        renderer: Any = structlog.dev.ConsoleRenderer(colors=sys.stdout.isatty())
    else:
        structlog.configure(
            processors=[
                *shared,
                structlog.processors.format_exc_info,
                structlog.processors.JSONRenderer(serializer=_json_bytes),
            ],
            wrapper_class=structlog.make_filtering_bound_logger(level),
            logger_factory=structlog.BytesLoggerFactory(sys.stdout.buffer),
            cache_logger_on_first_use=True,
        )
        renderer = structlog.processors.JSONRenderer(serializer=_json_text)
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[structlog.stdlib.add_logger_name, *shared],
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            *([] if console else [structlog.processors.format_exc_info]),
            renderer,
        ],
    )
    global _handler
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    # Replaces only our own handler (a second configuration, e.g. another app in the same
    # process); handlers others attached, like pytest's log capture, stay.
    if _handler is not None:
        root.removeHandler(_handler)
    _handler = handler
    root.addHandler(handler)
    root.setLevel(level)


class _Clock:
    """RFC 3339 UTC timestamps with milliseconds, the date part formatted once a second."""

    def __init__(self) -> None:
        self.second = -1
        self.prefix = ""

    def at(self, moment: float) -> str:
        second = int(moment)
        if second != self.second:
            self.second = second
            self.prefix = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        return f"{self.prefix}.{int((moment - second) * 1000):03d}Z"


_clock = _Clock()


class AccessSink:
    """Where the JSON access lines go: it keeps them and writes them as NDJSON, many in
    one encoder call and one write, at most `FLUSH_SECONDS` later (at once past
    `MAX_PENDING` lines, and when the worker stops).

    The line runs for every request, so it skips structlog's per-call machinery (bound
    logger, processor chain) and builds the same record as the shared chain would:
    encoding, writing and that machinery per request cost more than the rest of a /latest
    304's bookkeeping. The console format goes through structlog as usual.
    """

    FLUSH_SECONDS = 0.1
    MAX_PENDING = 512

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.pending: list[dict[str, Any]] = []

    def request(
        self,
        request_id: str,
        method: str,
        route: str,
        status: int,
        duration_ms: float,
        key_id: str | None,
        at: float,
    ) -> None:
        """`at` is the `time.perf_counter()` of the answer's end, made a wall-clock
        timestamp when the batch is written (reading the wall clock per request costs
        microseconds on some virtual machines)."""
        self.pending.append(
            {
                "timestamp": at,
                "level": "info",
                "logger": "telemetry.access",
                "event": "request",
                "request_id": request_id,
                "method": method,
                "route": route,
                "status": status,
                "duration_ms": duration_ms,
                "key_id": key_id,
            }
        )
        if len(self.pending) >= self.MAX_PENDING:
            self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        batch, self.pending = self.pending, []
        offset = time.time() - time.perf_counter()
        for line in batch:
            line["timestamp"] = _clock.at(line["timestamp"] + offset)
        self.stream.write(_line_encoder.encode_lines(batch))
        self.stream.flush()


class ConsoleAccess(AccessSink):
    """The access line for humans (LOG_FORMAT=console): the same record, each line through
    structlog as soon as it is made (its renderer adds the time, level and logger)."""

    MAX_PENDING = 1
    FIELDS = ("request_id", "method", "route", "status", "duration_ms", "key_id")

    def __init__(self) -> None:
        super().__init__(stream=None)
        self.log = structlog.get_logger("telemetry.access")

    def flush(self) -> None:
        batch, self.pending = self.pending, []
        for line in batch:
            self.log.info("request", **{name: line[name] for name in self.FIELDS})


_line_encoder = msgspec.json.Encoder()
ACCESS_SINK: AccessSink | None = None


def access_logger(settings: Settings) -> AccessSink:
    """The writer of the one line per request (app/observe/requests.py)."""
    global ACCESS_SINK
    if settings.log_format == "console":
        return ConsoleAccess()
    ACCESS_SINK = AccessSink(sys.stdout.buffer)
    return ACCESS_SINK


@asynccontextmanager
async def access_log_lifespan(app: Any) -> AsyncIterator[None]:
    """Writes the pending access lines every `AccessSink.FLUSH_SECONDS`, and at the end."""

    async def flusher() -> None:
        while True:
            await asyncio.sleep(AccessSink.FLUSH_SECONDS)
            if ACCESS_SINK is not None:
                ACCESS_SINK.flush()

    try:
        async with running(flusher()):
            yield
    finally:
        if ACCESS_SINK is not None:
            ACCESS_SINK.flush()
