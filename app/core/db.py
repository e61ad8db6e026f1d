"""The asyncpg pool: one per worker process, with codecs and bounded waits.

Every wait on the database is bounded (issue 11, defect 4): a new connection by
`db_connect_timeout_s`, a pooled one by `db_acquire_timeout_s` (also the bound on giving it
back, which may wait for a cancelled query), a statement by `db_command_timeout_s` on the
client's side besides the server's `statement_timeout`. A hung server (SIGSTOP, a network
partition) thus gives a TimeoutError, which app/core/errors.py answers 503.

`PerPool` keeps one object per pool (a worker's ingest batcher, its webhook nudger).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar

import asyncpg
import msgspec

from app.core.config import Settings
from app.core.errors import is_unavailable

log = logging.getLogger(__name__)


class _OutageWithoutTraceback(logging.Filter):
    """asyncpg's pool logs a traceback each time it fails to reopen its minimum of
    connections (backing off 1, 2, 4, ... s). When the database cannot be reached that is
    an outage, not a fault of ours: its line says the error, without the traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if error is not None and is_unavailable(error):
            record.msg = f"{record.getMessage()} ({error!r})"
            record.args = None
            record.exc_info = None
        return True


logging.getLogger("asyncpg.pool").addFilter(_OutageWithoutTraceback())


class _OfPool(Protocol):
    pool: asyncpg.Pool


P = TypeVar("P", bound=_OfPool)
_json_encode = msgspec.json.Encoder().encode
_json_decode = msgspec.json.Decoder().decode


def _encode_jsonb(value: Any) -> bytes:
    return b"\x01" + _json_encode(value)  # jsonb's binary format: version 1, then the text


def _decode_jsonb(data: bytes) -> Any:
    return _json_decode(data[1:])


async def init_connection(connection: asyncpg.Connection) -> None:
    """JSON in and out through msgspec, in the binary format: a composite type with a
    jsonb attribute (`uplink_record`, app/ingest/pipeline.py) can only be sent in binary,
    and the text never goes through a str."""
    await connection.set_type_codec(
        "json",
        encoder=_json_encode,
        decoder=_json_decode,
        schema="pg_catalog",
        format="binary",
    )
    await connection.set_type_codec(
        "jsonb",
        encoder=_encode_jsonb,
        decoder=_decode_jsonb,
        schema="pg_catalog",
        format="binary",
    )


def server_settings(settings: Settings) -> dict[str, str]:
    return {
        "statement_timeout": str(settings.statement_timeout_ms),
        "timezone": "UTC",
        "application_name": "telemetry",
    }


async def _keep_session(connection: asyncpg.Connection) -> None:
    """No reset on release: handlers keep no session state (only SET LOCAL), and
    asyncpg's default reset costs a second round trip per query."""


class BoundedPool(asyncpg.Pool):
    """A pool whose `acquire` (and so `fetch`, `execute`, ... and the release after them)
    waits at most `acquire_timeout` seconds unless the caller gives its own timeout.

    A connection given back while its statement is being cancelled (it ran out of its
    `command_timeout`, or its task was cancelled) is closed at once instead of waiting for
    the cancellation: a server that did not answer the statement in time will not answer
    the cancel request sooner, and asyncpg's own release would hold the caller (and so the
    request) for up to `acquire_timeout` more (issue 23, item 8). The pool opens a new one
    when needed."""

    __slots__ = ("acquire_timeout",)

    def acquire(self, *, timeout: float | None = None) -> Any:
        if timeout is None and not self._queue.empty():
            # An idle connection is taken at once: no timer. asyncpg bounds an acquire by
            # running it as a task of its own under wait_for, a turn of the event loop
            # and ~10 us of CPU per statement (2,000 x acquire, SELECT 1, release: 75-83
            # us with it, 64-78 without). Reconnecting a connection that was closed while
            # idle stays bounded by the connect timeout.
            return super().acquire(timeout=None)
        return super().acquire(timeout=self.acquire_timeout if timeout is None else timeout)

    async def release(self, connection: Any, *, timeout: float | None = None) -> None:  # noqa: ASYNC109 (asyncpg's signature)
        raw: Any = getattr(connection, "_con", None)
        if raw is not None and raw._protocol._is_cancelling():
            raw.terminate()  # asyncpg then returns the holder to the pool by itself
            return
        holder: Any = getattr(connection, "_holder", None)
        if timeout is None and holder is not None and holder._timeout is None:
            # Taken at once (acquire), given back within the usual bound.
            timeout = self.acquire_timeout
        if (
            raw is not None
            and holder is not None
            and holder._pool is self
            and self._gives_back_at_once(raw, holder)
        ):
            # What asyncpg's release does, without its asyncio.shield: a task of its own
            # and a turn of the event loop per statement, to protect a give-back that must
            # wait from being cancelled halfway; this one never waits. With the timer-free
            # acquire, pool.fetchval("SELECT 1") took 51-73 us of CPU against 75-107.
            raw._on_release()
            await holder.release(timeout)
            return
        await super().release(connection, timeout=timeout)

    def _gives_back_at_once(self, raw: Any, holder: Any) -> bool:
        """Whether asyncpg's give-back of this connection completes without waiting: it is
        open, not in a transaction (a ROLLBACK would be sent), not at its last query or of
        an expired generation (it would be closed), and the pool's reset is
        `_keep_session` (nothing sent)."""
        protocol = raw._protocol
        return (
            self._reset is _keep_session
            and not raw.is_closed()
            and not protocol.is_in_transaction()
            and raw._top_xact is None
            and protocol.queries_count < holder._max_queries
            and holder._generation == self._generation
        )


async def create_pool(settings: Settings) -> asyncpg.Pool:
    """The worker's pool. A worker that starts while the database is down or hung still
    starts (and answers 503 until it is back) with a pool that connects on demand."""
    try:
        return await _create_pool(settings, settings.pool_min_size)
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
        log.warning("database unavailable at start-up (%r); connecting on demand", error)
        return await _create_pool(settings, 0)


async def _create_pool(settings: Settings, min_size: int) -> asyncpg.Pool:
    pool = BoundedPool(
        settings.database_url,
        min_size=min_size,
        max_size=settings.pool_max_size,
        max_queries=50000,
        max_inactive_connection_lifetime=300.0,
        init=init_connection,
        reset=_keep_session,
        loop=None,
        connection_class=asyncpg.Connection,
        record_class=asyncpg.Record,
        server_settings=server_settings(settings),
        timeout=settings.db_connect_timeout_s,
        command_timeout=settings.db_command_timeout_s,
        statement_cache_size=settings.statement_cache_size,
    )
    pool.acquire_timeout = settings.db_acquire_timeout_s
    await pool
    return pool


async def close_connection(connection: asyncpg.Connection, within_s: float) -> None:
    """Closes the connection, or terminates it when that takes over `within_s`."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(connection.close(), within_s)
    if not connection.is_closed():
        connection.terminate()


async def close_pool(pool: asyncpg.Pool, within_s: float) -> None:
    """Closes the pool, or terminates its connections when that takes over `within_s` (a
    hung server does not answer the goodbye)."""
    try:
        await asyncio.wait_for(pool.close(), within_s)
    except TimeoutError:
        pool.terminate()


async def connect(settings: Settings) -> asyncpg.Connection:
    connection = await asyncpg.connect(
        settings.database_url,
        server_settings=server_settings(settings),
        timeout=settings.db_connect_timeout_s,
        command_timeout=settings.db_command_timeout_s,
    )
    await init_connection(connection)
    return connection


async def connect_listener(
    settings: Settings, application_name: str | None = None
) -> asyncpg.Connection:
    """A connection whose session state matters (LISTEN, a session advisory lock):
    straight to the primary (DATABASE_LISTEN_URL) even when queries go through a
    transaction-pooling PgBouncer, which keeps no session's state. Bounded like the pool's."""
    session = server_settings(settings)
    if application_name is not None:
        session["application_name"] = application_name
    connection = await asyncpg.connect(
        settings.database_listen_url or settings.database_url,
        server_settings=session,
        timeout=settings.db_connect_timeout_s,
        command_timeout=settings.db_command_timeout_s,
    )
    await init_connection(connection)
    return connection


class PerPool(Generic[P]):
    """One `P` per pool (a worker's batcher, its nudger), made by `make` on first use.

    Keyed by the pool's id, and made anew when that id has been reused by a newer pool
    (an app started again in the same process, as the tests do).
    """

    def __init__(self, make: Callable[[asyncpg.Pool], P]) -> None:
        self._make = make
        self._made: dict[int, P] = {}

    def __call__(self, pool: asyncpg.Pool) -> P:
        made = self._made.get(id(pool))
        if made is None or made.pool is not pool:
            made = self._made[id(pool)] = self._make(pool)
        return made
