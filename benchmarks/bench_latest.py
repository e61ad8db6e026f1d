"""GET /devices/{id}/latest: req/s of 200 and of 304 answers next to the HTTP floor.

Measures, with `telemetry serve --workers 2` on the dataset and wrk at each connection
count of the run (64 first):
- `/latest` 200: the stored body, no `If-None-Match`;
- `/latest` 304: `If-None-Match` with the current ETag (what a polling dashboard sends);
- the HTTP floor: benchmarks/floor_app.py (the same granian/Litestar configuration
  returning a constant 150-byte body, no database), taken from the suite's floors when
  run inside it, measured here otherwise;
- the database part alone: the route's one SQL statement (authentication, rate limit and
  device lookup, `telemetry.latest_with_auth`) through asyncpg from 16 connections;
- the cost of observing requests: `/latest` 304 @64 on a second server with the access log
  and the metrics off (ACCESS_LOG=off, METRICS_PORT=0), next to the figure with both on
  (the default) from the same run; target: on >= 0.95x off.
Requests cycle over every device of the dataset, each with a key that sees it. Target:
the 304 path at >= 0.6x the HTTP floor.

Run alone (after `telemetry bench generate --scale S`):
`python -m benchmarks.bench_latest [--quick]`.
"""

from __future__ import annotations

import hashlib
import statistics
from typing import Any

import httpx

from benchmarks.common import (
    Context,
    Measure,
    Request,
    concurrent_calls,
    measure,
    module_main,
    run_wrk,
    start_floor_server,
    start_server,
    write_requests,
)

LATEST_SQL_NAME = "telemetry.latest_with_auth"


def _migrate(database_url: str) -> None:
    """The dataset may predate the newest SQL definitions; applying them is idempotent."""
    import asyncio

    from benchmarks.common import _migrate as migrate

    asyncio.run(migrate(database_url))


def _floor(ctx: Context, connections: int) -> float:
    known = ctx.http_floor(connections)
    if known:
        return known
    path = write_requests(ctx.work_dir / "floor.txt", [Request("GET", "/floor")])
    with start_floor_server() as server:
        result = run_wrk(server.base_url, path, connections=connections, duration=ctx.duration)
    ctx.floors[f"http@{connections}"] = result.rps
    return result.rps


def _requests(ctx: Context, base_url: str) -> tuple[list[Request], list[Request]]:
    plain: list[Request] = []
    conditional: list[Request] = []
    with httpx.Client(base_url=base_url, timeout=10) as client:
        for device in ctx.manifest.devices:
            path = f"/api/v1/devices/{device.id}/latest"
            headers = {"Authorization": f"Bearer {ctx.manifest.key_for(device)}"}
            response = client.get(path, headers=headers)
            if response.status_code != 200:
                raise RuntimeError(f"/latest of {device.id}: {response.status_code}")
            plain.append(Request("GET", path, headers))
            conditional.append(
                Request("GET", path, {**headers, "If-None-Match": response.headers["etag"]})
            )
    return plain, conditional


def _details(result: Any, connections: int, route: str) -> dict[str, Any]:
    return {
        "p50_ms": result.p50_ms,
        "p90_ms": result.p90_ms,
        "p99_ms": result.p99_ms,
        "connections": connections,
        "route": route,
        "requests": result.requests,
        "bad_status": result.bad_status,
        "socket_errors": result.socket_errors,
    }


def _database(ctx: Context) -> Measure:
    import uuid

    import uvloop

    from app.core.sql import QUERIES

    args = [
        (
            hashlib.sha256(ctx.manifest.key_for(d).encode()).digest(),
            uuid.UUID(d.id),
            None,
        )
        for d in ctx.manifest.devices
    ]
    calls, lat = uvloop.run(
        concurrent_calls(
            ctx.database_url, QUERIES[LATEST_SQL_NAME], args, 16, min(ctx.duration, 5.0)
        )
    )
    return measure(
        "/latest SQL alone (auth + rate limit + lookup) @16 conns",
        calls,
        "calls/s",
        group="latest",
        floor=ctx.floors.get("db_calls@16"),
        floor_name="SELECT 1 calls/s",
        details={"p50_ms": lat.p50_ms, "p99_ms": lat.p99_ms, "connections": 16},
    )


def _observing_cost(ctx: Context, base_url: str, conditional_file: Any) -> Measure:
    """/latest 304 @64 as served (access log and metrics on) against a second server with
    both off, alternated three times so that drift of a shared machine hits both alike;
    the medians are compared."""
    quiet = {"ACCESS_LOG": "off", "METRICS_PORT": "0"}
    duration = max(ctx.duration / 2, 2.0)
    observed: list[Any] = []
    unobserved: list[Any] = []
    with start_server(ctx.database_url, workers=2, env=quiet) as server:
        for _ in range(3):
            observed.append(run_wrk(base_url, conditional_file, connections=64, duration=duration))
            unobserved.append(
                run_wrk(server.base_url, conditional_file, connections=64, duration=duration)
            )
    on = statistics.median(r.rps for r in observed)
    off = statistics.median(r.rps for r in unobserved)
    return measure(
        "GET /latest 304 @64 conns, access log + metrics on vs off (median of 3 alternated)",
        on,
        "req/s",
        group="latest",
        floor=off,
        floor_name="same, ACCESS_LOG=off METRICS_PORT=0",
        min_ratio=0.95,
        details={
            "on_rps": [r.rps for r in observed],
            "off_rps": [r.rps for r in unobserved],
            "on_p50_ms": statistics.median(r.p50_ms for r in observed),
            "off_p50_ms": statistics.median(r.p50_ms for r in unobserved),
        },
    )


def run(ctx: Context) -> list[Measure]:
    _migrate(ctx.database_url)
    base_url = ctx.server()
    plain, conditional = _requests(ctx, base_url)
    plain_file = write_requests(ctx.work_dir / "latest-200.txt", plain)
    conditional_file = write_requests(ctx.work_dir / "latest-304.txt", conditional)
    out: list[Measure] = []
    for connections in ctx.connections:
        floor = _floor(ctx, connections)
        for label, path, target in (
            ("200", plain_file, None),
            ("304", conditional_file, 0.6),
        ):
            result = run_wrk(base_url, path, connections=connections, duration=ctx.duration)
            out.append(
                measure(
                    f"GET /latest {label} @{connections} conns",
                    result.rps,
                    "req/s",
                    group="latest",
                    floor=floor,
                    floor_name="HTTP floor",
                    min_ratio=target,
                    details=_details(result, connections, f"/latest {label}"),
                )
            )
    out.append(_observing_cost(ctx, base_url, conditional_file))
    out.append(_database(ctx))
    return out


if __name__ == "__main__":
    raise SystemExit(module_main(run))
