"""The cost of one authenticated request: authentication plus the rate-limit decision.

With the worker's key cache (app/auth/cache.py) a request is authenticated and counted
without a round trip: the key comes from the cache and its permit from a lease taken by
`api_lease` one permit at a time (exact small limits) or in small batches. The per-request
path, `api_authenticate(sha256(key))` (schema/definitions/010-auth.sql: one round trip that
finds the key, its tenancy and plan, and moves the key's per-second counters), serves while
the cache's listening connection is down or with TELEMETRY_AUTH_CACHE=0. `GET /me` makes
one lookup of its own (the names of the key's tenancy), so the cost of auth + rate limit
alone is read from `GET /latest` 304 in bench_latest (answered from the cache) against the
HTTP floor. This module measures
- the function alone through asyncpg: p50/p99 of sequential calls, and calls/s from N
  concurrent connections, with the calls spread over every key of the dataset (one key
  per connection) and with all connections on one key (the counter row is then shared,
  so its row lock serialises the updates: the worst case of one busy integration);
- `GET /api/v1/me` over HTTP with wrk (auth + the smallest handler) against the HTTP
  floor of the same run (a constant body, no auth, no database).

Run alone: `python -m benchmarks.auth_cost [--quick]`.
"""

from __future__ import annotations

import asyncio
import hashlib
import time

from benchmarks.common import (
    Context,
    Measure,
    Request,
    measure,
    module_main,
    percentiles,
    run_wrk,
    time_query,
    write_requests,
)
from testkit.databases import connect

AUTH_SQL = "SELECT * FROM api_authenticate($1)"


def _hash(secret: str) -> bytes:
    return hashlib.sha256(secret.encode()).digest()


async def _concurrent(
    database_url: str, hashes: list[bytes], connections: int, duration: float
) -> tuple[float, dict[str, float]]:
    """Calls/s with `connections` connections, connection i always using hashes[i % n]."""
    conns = [await connect(database_url) for _ in range(connections)]
    samples: list[float] = []
    try:
        statements = [await c.prepare(AUTH_SQL) for c in conns]
        deadline = time.perf_counter() + duration

        async def worker(i: int) -> None:
            statement, key = statements[i], hashes[i % len(hashes)]
            while time.perf_counter() < deadline:
                started = time.perf_counter()
                row = await statement.fetchrow(key)
                samples.append(time.perf_counter() - started)
                if row is None or row["outcome"] != "ok":
                    raise RuntimeError(f"api_authenticate refused a bench key: {row}")

        started = time.perf_counter()
        await asyncio.gather(*(worker(i) for i in range(connections)))
        elapsed = time.perf_counter() - started
    finally:
        for c in conns:
            await c.close()
    lat = percentiles(samples)
    return len(samples) / elapsed, {"p50_ms": lat.p50_ms, "p99_ms": lat.p99_ms, "calls": lat.n}


async def database_measures(ctx: Context) -> list[Measure]:
    keys = [k.secret for k in ctx.manifest.keys]
    hashes = [_hash(k) for k in keys]
    out: list[Measure] = []
    connection = await connect(ctx.database_url)
    try:
        lat = await time_query(connection, AUTH_SQL, [(h,) for h in hashes], ctx.repetitions)
        select1 = await time_query(connection, "SELECT 1", [()], ctx.repetitions)
    finally:
        await connection.close()
    out.append(
        measure(
            "api_authenticate p50 (asyncpg, 1 conn)",
            lat.p50_ms,
            "ms",
            group="auth",
            floor=select1.p50_ms,
            floor_name="SELECT 1 round trip",
            higher_is_better=False,
            details={
                "p50_ms": lat.p50_ms,
                "p95_ms": lat.p95_ms,
                "p99_ms": lat.p99_ms,
                "route": "api_authenticate (db)",
                "floor_p99_ms": select1.p99_ms,
            },
        )
    )
    duration = 2.0 if ctx.quick else 5.0
    for n in [1, 4, 16] if ctx.quick else [1, 4, 16, 64]:
        rate, details = await _concurrent(ctx.database_url, hashes, n, duration)
        out.append(
            measure(
                f"api_authenticate calls/s, {n} conns, {min(n, len(hashes))} keys",
                rate,
                "calls/s",
                group="auth",
                details={**details, "connections": n, "route": "api_authenticate (db)"},
            )
        )
    rate, details = await _concurrent(ctx.database_url, hashes[:1], 16, duration)
    out.append(
        measure(
            "api_authenticate calls/s, 16 conns, 1 key",
            rate,
            "calls/s",
            group="auth",
            details={**details, "connections": 16, "route": "api_authenticate one key"},
        )
    )
    return out


def http_measures(ctx: Context) -> list[Measure]:
    keys = [k.secret for k in ctx.manifest.keys]
    requests = [
        Request("GET", "/api/v1/me", {"Authorization": f"Bearer {keys[i % len(keys)]}"})
        for i in range(max(64, len(keys)))
    ]
    path = write_requests(ctx.work_dir / "auth_me.txt", requests)
    base = ctx.server()
    out = []
    for connections in ctx.connections:
        result = run_wrk(base, path, connections=connections, duration=ctx.duration)
        floor = ctx.http_floor(connections)
        out.append(
            measure(
                f"GET /me (auth + rate limit) @{connections} conns",
                result.rps,
                "req/s",
                group="auth",
                floor=floor,
                floor_name="HTTP floor",
                details=result.details("GET /me"),
            )
        )
    return out


def run(ctx: Context) -> list[Measure]:
    import uvloop

    measures: list[Measure] = uvloop.run(database_measures(ctx))
    measures += http_measures(ctx)
    return measures


if __name__ == "__main__":
    raise SystemExit(module_main(run))
