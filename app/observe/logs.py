"""Structured logs: one JSON object per line (LOG_FORMAT=json) or a readable console line.

structlog renders both our own events (the access line of every request) and those of the
standard library's loggers (ingest, retention, errors), so every line has the same shape:
`timestamp`, `level`, `logger`, `event`, the request's `request_id` when there is one, and
for an error its whole traceback in one `exception` field of the same record.
"""

from __future__ import annotations

import logging
import sys
import time
from contextvars import ContextVar
from typing import Any

import msgspec
import structlog
from structlog.typing import EventDict, WrappedLogger

from app.core.config import Settings

# The id of the request being served, set by the request observer for its task.
REQUEST_ID: ContextVar[str | None] = ContextVar("request_id", default=None)

_encode = msgspec.json.Encoder().encode


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
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


class _Clock:
    """RFC 3339 UTC timestamps with milliseconds, the date part formatted once a second."""

    def __init__(self) -> None:
        self.second = -1
        self.prefix = ""

    def now(self) -> str:
        moment = time.time()
        second = int(moment)
        if second != self.second:
            self.second = second
            self.prefix = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        return f"{self.prefix}.{int((moment - second) * 1000):03d}Z"


_clock = _Clock()


def _access_json(_: WrappedLogger, level: str, event: EventDict) -> bytes:
    """The access line's whole chain in one step: it runs for every request, so it does
    what the shared chain does (timestamp, level, logger name) without its general cost."""
    event["level"] = level
    event["timestamp"] = _clock.now()
    return _encode(event)


def access_logger(settings: Settings) -> Any:
    """The logger of the one line per request (app/observe/requests.py)."""
    level = logging.getLevelNamesMapping().get(settings.log_level, logging.INFO)
    if settings.log_format == "console":
        return structlog.get_logger("telemetry.access")
    return structlog.wrap_logger(
        structlog.BytesLogger(sys.stdout.buffer),
        processors=[_access_json],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        cache_logger_on_first_use=True,
    )
