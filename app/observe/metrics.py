"""Prometheus metrics, added up over every granian worker (prometheus-client multiprocess).

`telemetry serve` points PROMETHEUS_MULTIPROC_DIR at a fresh directory before the workers
start, so each worker's counters live in memory-mapped files there, and serves them summed
on a separate port (METRICS_PORT, default 9464, on METRICS_HOST, default 127.0.0.1) at
`GET /metrics`, without a key. Why a separate port rather than a route of the API: the
scrape endpoint must work without an API key, and operational figures (routes, error
rates, pool use) are not for the API's customers; a port of its own stays on loopback or
inside the operator's network while the API port faces the world, and it answers even
when every worker is busy, since the granian main process serves it.

Without that directory (the app run in-process by the tests) the same metrics count in
the process's default registry.
"""

from __future__ import annotations

import asyncio
import os
from bisect import bisect_left
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    multiprocess,
    start_http_server,
)

from app.observe.multiproc import MULTIPROC_ENV

SAMPLE_SECONDS = 1.0

REQUESTS = Counter(
    "telemetry_http_requests",
    "HTTP requests answered, by method, route template and status.",
    ["method", "route", "status"],
)
BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
LATENCY = Histogram(
    "telemetry_http_request_duration_seconds",
    "Time from a request's arrival to the end of its answer, by method and route template.",
    ["method", "route"],
    buckets=BUCKETS,
)
INGEST_EVENTS = Counter(
    "telemetry_ingest_events",
    "Network-server events received on the ingest routes, by event type and outcome "
    "(stored, duplicate, ignored, not_found, unauthorized).",
    ["event", "outcome"],
)
POOL_SIZE = Gauge(
    "telemetry_db_pool_connections",
    "Database connections open in the workers' pools.",
    multiprocess_mode="livesum",
)
POOL_IN_USE = Gauge(
    "telemetry_db_pool_connections_in_use",
    "Database connections checked out of the workers' pools.",
    multiprocess_mode="livesum",
)
POOL_WAITING = Gauge(
    "telemetry_db_pool_waiting",
    "Requests waiting for a database connection.",
    multiprocess_mode="livesum",
)
CACHE_LOOKUPS = Counter(
    "telemetry_cache_lookups",
    "Lookups in the workers' caches (auth: API keys; latest: /latest bodies), by result; "
    "the hit ratio is hit / (hit + miss).",
    ["cache", "result"],
)

# Requests are counted here first and added to the shared metrics once a second by the
# sampler (`flush_requests`): a multiprocess metric update takes a lock and writes to a
# memory-mapped file, several microseconds for each of the three a request needs, which
# was measurable on /latest 304; a dict update is not. Scrapes lag by at most a second.
_pending: dict[tuple[str, str, int], list[Any]] = {}


def observe_request(method: str, route: str, status: int, seconds: float) -> None:
    entry = _pending.get((method, route, status))
    if entry is None:
        entry = _pending[(method, route, status)] = [0, 0.0, [0] * (len(BUCKETS) + 1)]
    entry[0] += 1
    entry[1] += seconds
    entry[2][bisect_left(BUCKETS, seconds)] += 1


def flush_requests() -> None:
    """Adds the requests counted since the last flush to the shared metrics."""
    global _pending
    pending, _pending = _pending, {}
    for (method, route, status), (count, total, buckets) in pending.items():
        REQUESTS.labels(method, route, str(status)).inc(count)
        histogram = LATENCY.labels(method, route)
        # prometheus-client has no bulk observe; its histogram keeps a sum and one
        # (non-cumulative) count per bucket, the last for +Inf, which these fill in.
        histogram._sum.inc(total)
        for index, bucket_count in enumerate(buckets):
            if bucket_count:
                histogram._buckets[index].inc(bucket_count)


# Ingest events likewise (one per uplink: at thousands a second the multiprocess update,
# with its lock, file write and process id check, was 2% of a worker's time).
_pending_ingest: dict[tuple[str, str], int] = {}


def observe_ingest(event: str, outcome: str) -> None:
    key = (event, outcome)
    _pending_ingest[key] = _pending_ingest.get(key, 0) + 1


def flush_ingest() -> None:
    """Adds the ingest events counted since the last flush to the shared metrics."""
    global _pending_ingest
    pending, _pending_ingest = _pending_ingest, {}
    for (event, outcome), count in pending.items():
        INGEST_EVENTS.labels(event, outcome).inc(count)


def serve_metrics(host: str, port: int) -> None:
    """Serves the workers' summed metrics at http://host:port/metrics (a daemon thread)."""
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)
    start_http_server(port, addr=host, registry=registry)


def _pool_counts(pool: Any) -> tuple[int, int, int]:
    size = pool.get_size()
    idle = pool.get_idle_size()
    # asyncpg has no public count of waiters; its queue of idle connections knows them.
    queue = getattr(pool, "_queue", None)
    waiting = len(getattr(queue, "_getters", ()) or ())
    return size, size - idle, waiting


def _cache_counts(app: Any) -> dict[tuple[str, str], int]:
    counts: dict[tuple[str, str], int] = {}
    auth = getattr(app.state, "auth_cache", None)
    if auth is not None:
        counts[("auth", "hit")] = auth.key_hits
        counts[("auth", "miss")] = auth.key_misses
    latest = getattr(app.state, "latest_cache", None)
    if latest is not None:
        counts[("latest", "hit")] = latest.hits
        counts[("latest", "miss")] = latest.misses
    return counts


async def _sample(app: Any) -> None:
    """Copies the requests, ingest events, the pool's and the caches' counts into the
    metrics once a second."""
    seen: dict[tuple[str, str], int] = {}
    while True:
        flush_requests()
        flush_ingest()
        pool = getattr(app.state, "pool", None)
        if pool is not None:
            size, in_use, waiting = _pool_counts(pool)
            POOL_SIZE.set(size)
            POOL_IN_USE.set(in_use)
            POOL_WAITING.set(waiting)
        for labels, count in _cache_counts(app).items():
            delta = count - seen.get(labels, 0)
            if delta > 0:
                CACHE_LOOKUPS.labels(*labels).inc(delta)
            seen[labels] = count
        await asyncio.sleep(SAMPLE_SECONDS)


@asynccontextmanager
async def metrics_lifespan(app: Any) -> AsyncIterator[None]:
    task = asyncio.create_task(_sample(app))
    try:
        yield
    finally:
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task
        flush_requests()
        flush_ingest()
        if os.environ.get(MULTIPROC_ENV):
            # A worker's live gauges leave the sums when it stops (granian may restart it).
            multiprocess.mark_process_dead(os.getpid())
