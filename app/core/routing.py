"""Read routing: reads that tolerate bounded staleness go to a hot standby.

`DATABASE_READ_URL` names one or more streaming standbys of the primary (comma-separated).
Each worker keeps a pool per standby and a prober task that, every PROBE_EVERY_S, reads
the primary's flushed WAL position (`pg_current_wal_flush_lsn()`) and each standby's
replayed position (`pg_last_wal_replay_lsn()`). A standby that has replayed past the
primary's position sampled at monotonic time t holds every commit acknowledged before t,
so its staleness is `now - t` for the latest such sample. Controllers ask `reader(principal)`
for the pool of a read that may be up to `TELEMETRY_MAX_STALENESS` seconds old:

- a standby whose staleness is under the bound (round robin among them), else the primary;
- the primary for a key that wrote within the bound (read-your-writes): the worker that
  served the write pins the key at once, and tells the other workers and instances by
  NOTIFY `reads_pinned` on the primary before the write's answer leaves;
- the primary again, within the same call, when the standby fails under a read (it
  died): the standby is marked down at once and the prober brings it back when it answers.

Writes, authentication, rate limits and everything not routed by `reader` use the primary
pool as before. Only the prober touches the standbys in the background: one short query per
standby and one on the primary per tick, per worker, never per request.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
import uuid
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextvars import ContextVar
from typing import Any

import asyncpg
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from app.core.config import Settings, mask_password
from app.core.db import connect_listener, init_connection, server_settings

PROBE_EVERY_S = 0.2
PROBE_TIMEOUT_S = 1.0
CONNECT_TIMEOUT_S = 1.0
HISTORY_S = 60.0
PIN_CHANNEL = "reads_pinned"
PRIMARY_LSN = "SELECT (pg_current_wal_flush_lsn() - '0/0'::pg_lsn)::bigint"
REPLICA_LSN = "SELECT (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# A standby that fails like this is gone (or restarting); its reads go to the primary.
REPLICA_DOWN = (
    OSError,
    asyncio.TimeoutError,
    asyncpg.PostgresConnectionError,
    asyncpg.InterfaceError,
    asyncpg.exceptions.OperatorInterventionError,
)
log = logging.getLogger(__name__)


class Replica:
    """One standby: its pool and how fresh it was at the last probe."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.pool: asyncpg.Pool | None = None
        self.fresh_as_of = -float("inf")  # monotonic time of the newest sample it holds
        self.up = False

    def staleness(self, now: float) -> float:
        return now - self.fresh_as_of if self.up else float("inf")

    def down(self) -> None:
        self.up = False
        self.fresh_as_of = -float("inf")


class ReadPool:
    """A standby's pool for one read, falling back to the primary if the standby fails.

    It offers the read methods of asyncpg.Pool that the read services call, and
    `acquire` for the exports' streamed reads.
    """

    __slots__ = ("primary", "replica")

    def __init__(self, replica: Replica, primary: asyncpg.Pool) -> None:
        self.replica = replica
        self.primary = primary

    def _standby_failed(self, error: BaseException, doing: str) -> None:
        """The standby failed under a read: it is marked down at once (the prober brings
        it back) and the read goes to the primary."""
        log.warning(
            "routing: standby %s failed (%s); %s from the primary",
            mask_password(self.replica.url),
            type(error).__name__,
            doing,
        )
        self.replica.down()

    async def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        pool = self.replica.pool
        if pool is not None and self.replica.up:
            try:
                return await getattr(pool, method)(*args, **kwargs)
            except REPLICA_DOWN as error:
                self._standby_failed(error, "reading")
        return await getattr(self.primary, method)(*args, **kwargs)

    async def fetch(self, *args: Any, **kwargs: Any) -> Any:
        return await self._call("fetch", *args, **kwargs)

    async def fetchrow(self, *args: Any, **kwargs: Any) -> Any:
        return await self._call("fetchrow", *args, **kwargs)

    async def fetchval(self, *args: Any, **kwargs: Any) -> Any:
        return await self._call("fetchval", *args, **kwargs)

    @contextlib.asynccontextmanager
    async def acquire(self, **kwargs: Any) -> AsyncIterator[Any]:
        """A connection for a streamed read (an export): the standby's, or the primary's
        when the standby cannot be reached. Only the connect can fall back; once rows
        have left, a failure aborts the stream as it would on the primary."""
        pool = self.replica.pool
        connection = None
        if pool is not None and self.replica.up:
            try:
                connection = await pool.acquire(**kwargs)
            except REPLICA_DOWN as error:
                self._standby_failed(error, "streaming")
        if pool is None or connection is None:
            async with self.primary.acquire(**kwargs) as primary_connection:
                yield primary_connection
            return
        try:
            yield connection
        finally:
            await pool.release(connection)


class ReadRouter:
    """The per-worker choice of pool for stale-tolerant reads (see the module docstring)."""

    def __init__(self, primary: asyncpg.Pool, settings: Settings) -> None:
        self.primary = primary
        self.settings = settings
        self.max_staleness = settings.max_staleness_s
        self.replicas = [Replica(url) for url in settings.database_read_urls]
        self.pinned: dict[uuid.UUID, float] = {}  # key id -> monotonic time of its last write
        self._samples: deque[tuple[float, int]] = deque()
        self._turn = itertools.count()
        self._listener: asyncpg.Connection | None = None

    # Choosing -----------------------------------------------------------------------

    def reader(self, principal: Any = None) -> asyncpg.Pool | ReadPool:
        if not self.replicas:
            return self.primary
        now = time.monotonic()
        key_id = getattr(principal, "key_id", None)
        if key_id is not None:
            wrote = self.pinned.get(key_id)
            if wrote is not None:
                if now - wrote < self.max_staleness:
                    return self.primary
                del self.pinned[key_id]
        fresh = [r for r in self.replicas if r.staleness(now) < self.max_staleness]
        if not fresh:
            return self.primary
        return ReadPool(fresh[next(self._turn) % len(fresh)], self.primary)

    def pin(self, key_id: uuid.UUID) -> None:
        self.pinned[key_id] = time.monotonic()

    async def wrote(self, key_id: uuid.UUID) -> None:
        """Pins the key here and, through the primary, in every other worker."""
        self.pin(key_id)
        if self.replicas:
            with contextlib.suppress(asyncpg.PostgresError, OSError):
                await self.primary.execute("SELECT pg_notify($1, $2)", PIN_CHANNEL, str(key_id))

    def _pinned(self, connection: Any, pid: int, channel: str, payload: str) -> None:
        with contextlib.suppress(ValueError):
            self.pin(uuid.UUID(payload))

    # Probing ------------------------------------------------------------------------

    async def _open(self, replica: Replica) -> None:
        replica.pool = await asyncpg.create_pool(
            replica.url,
            min_size=0,
            max_size=self.settings.pool_max_size,
            init=init_connection,
            server_settings=server_settings(self.settings),
            statement_cache_size=self.settings.statement_cache_size,
            timeout=CONNECT_TIMEOUT_S,
        )

    async def probe(self) -> None:
        """One tick: sample the primary's position, then where each standby stands."""
        started = time.monotonic()
        try:
            position = int(await self.primary.fetchval(PRIMARY_LSN, timeout=PROBE_TIMEOUT_S))
        except (TimeoutError, asyncpg.PostgresError, OSError) as error:
            log.debug("routing: cannot read the primary's position: %s", error)
        else:
            self._samples.append((started, position))
        while self._samples and self._samples[0][0] < started - HISTORY_S:
            self._samples.popleft()
        await asyncio.gather(*(self._probe_replica(replica) for replica in self.replicas))

    async def _probe_replica(self, replica: Replica) -> None:
        try:
            if replica.pool is None:
                await self._open(replica)
            assert replica.pool is not None
            replayed = await replica.pool.fetchval(REPLICA_LSN, timeout=PROBE_TIMEOUT_S)
        except (asyncpg.PostgresError, *REPLICA_DOWN) as error:
            if replica.up:
                log.warning("routing: standby %s is down (%s)", mask_password(replica.url), error)
            replica.down()
            return
        if replayed is None:
            # Not in recovery: a promoted or misnamed server, not a standby of this primary.
            replica.down()
            return
        held = [t for t, lsn in self._samples if lsn <= replayed]
        if not held:
            replica.down()
            return
        if not replica.up:
            log.info("routing: standby %s serves reads", mask_password(replica.url))
        replica.fresh_as_of = held[-1]
        replica.up = True

    async def listen(self) -> None:
        connection = await connect_listener(self.settings)
        await connection.add_listener(PIN_CHANNEL, self._pinned)
        self._listener = connection

    async def run(self) -> None:
        while True:
            try:
                if self._listener is None or self._listener.is_closed():
                    await self.listen()
            except (TimeoutError, asyncpg.PostgresError, OSError) as error:
                log.debug("routing: cannot listen for pins yet: %s", error)
            await self.probe()
            await asyncio.sleep(PROBE_EVERY_S)

    async def close(self) -> None:
        if self._listener is not None:
            with contextlib.suppress(Exception):
                await self._listener.close()
        for replica in self.replicas:
            if replica.pool is not None:
                with contextlib.suppress(Exception):
                    await replica.pool.close()


_current: ContextVar[ReadRouter] = ContextVar("telemetry_read_router")


def reader(principal: Any = None) -> asyncpg.Pool | ReadPool:
    """The pool for a read that may be up to TELEMETRY_MAX_STALENESS old (see above)."""
    return _current.get().reader(principal)


async def fetchrow_unless_changed(
    principal: Any, changed_at: Callable[[Any], float] | None, query: str, *args: Any
) -> Any:
    """One row from a standby, or from the primary when the standby may predate the last
    change this worker was notified of for it (`changed_at(row)`, monotonic): what a
    per-worker cache keyed on notifications may keep (the /latest cache). Without
    `changed_at` (the worker is not listening, so it hears of no change) the primary."""
    router = _current.get()
    if changed_at is None:
        return await router.primary.fetchrow(query, *args)
    choice = router.reader(principal)
    if not isinstance(choice, ReadPool):
        return await choice.fetchrow(query, *args)
    fresh_as_of = choice.replica.fresh_as_of
    row = await choice.fetchrow(query, *args)
    if row is None or changed_at(row) < fresh_as_of:
        return row
    return await router.primary.fetchrow(query, *args)


class RoutingMiddleware:
    """Makes the app's router current for the request, and pins a key that writes.

    A successful non-GET request by a key pins the key before its answer is sent, so the
    client's next read, on any worker, goes to the primary for the staleness bound.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        router: ReadRouter | None = getattr(scope["app"].state, "router", None)
        if router is None:
            await self.app(scope, receive, send)
            return
        token = _current.set(router)
        method = scope.get("method", "GET")
        if method in SAFE_METHODS or not router.replicas:
            try:
                await self.app(scope, receive, send)
            finally:
                _current.reset(token)
            return

        async def send_after_pin(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] < 400:
                principal = scope.get("state", {}).get("principal")
                if principal is not None:
                    await router.wrote(principal.key_id)
            await send(message)

        try:
            await self.app(scope, receive, send_after_pin)
        finally:
            _current.reset(token)


@contextlib.asynccontextmanager
async def routing_lifespan(app: Any) -> AsyncIterator[None]:
    """Starts the router once the primary pool exists (list it after the pool's lifespan)."""
    router = ReadRouter(app.state.pool, app.state.settings)
    app.state.router = router
    task: asyncio.Task[None] | None = None
    if router.replicas:
        await router.probe()
        task = asyncio.create_task(router.run())
    try:
        yield
    finally:
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await router.close()
