"""GET /devices/{id}/latest: req/s of 200 and of 304 answers next to the HTTP floor.

Measures, with `telemetry serve --workers 2` on the dataset and wrk at each connection
count of the run (64 first):
- `/latest` 200: the stored body, no `If-None-Match`;
- `/latest` 304: `If-None-Match` with the current ETag (what a polling dashboard sends);
- the HTTP floor: benchmarks/floor_app.py (the same granian/Litestar configuration
  returning a constant 150-byte body, no database), taken from the suite's floors when
  run inside it, measured here otherwise;
- the database part alone: the route's one SQL statement (authentication, rate limit and
  device lookup, `latest.latest_with_auth`) through asyncpg from 16 connections;
- the cost of observing requests: `/latest` 304 @64 on fresh servers as served (access
  log and metrics on) and with both off (ACCESS_LOG=off, METRICS_PORT=0), two of each,
  alternated, with req/s and the servers' own CPU time per request; target: CPU per
  request off / on >= 0.95 (req/s swings with the machine's other load).
Requests cycle over every device of the dataset, each with a key that sees it. Target:
the 304 path at >= 0.6x the HTTP floor.

Run alone (after `telemetry bench generate --scale S`):
`python -m benchmarks.bench_latest [--quick]`.
"""

from __future__ import annotations

import contextlib
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
    migrate_dataset,
    module_main,
    process_cpu_seconds,
    run_wrk,
    start_floor_server,
    write_requests,
)
from testkit.processes import start_server

LATEST_SQL_NAME = "latest.latest_with_auth"


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
        details=lat.details(connections=16),
    )


def _timed_run(server: Any, conditional_file: Any, duration: float) -> tuple[Any, float]:
    """One wrk run and the server's CPU microseconds per answered request during it."""
    before = process_cpu_seconds(server.process.pid)
    result = run_wrk(server.base_url, conditional_file, connections=64, duration=duration)
    spent = process_cpu_seconds(server.process.pid) - before
    return result, spent * 1e6 / max(result.requests, 1)


def _observing_cost(ctx: Context, conditional_file: Any) -> Measure:
    """/latest 304 @64 on fresh servers alike but for the access log and metrics (on, as
    served by default; off: ACCESS_LOG=off METRICS_PORT=0): two instances of each, every
    instance run twice, alternating on and off.

    On a shared machine req/s swings with the neighbours' load, and one server instance
    can differ from another of the same configuration by several percent (where its
    workers land), so the servers' own CPU time per request is measured too (from /proc)
    over several instances: the throughput a server can reach is the inverse of it. The
    value is the median req/s; the ratio compared with the 0.95 target is the median CPU
    per request off / on.
    """
    quiet = {"ACCESS_LOG": "off", "METRICS_PORT": "0"}
    duration = max(ctx.duration / 2, 2.0)
    on: list[tuple[Any, float]] = []
    off: list[tuple[Any, float]] = []
    with contextlib.ExitStack() as stack:
        pairs = [
            (
                stack.enter_context(start_server(ctx.database_url, workers=2)),
                stack.enter_context(start_server(ctx.database_url, workers=2, env=quiet)),
            )
            for _ in range(2)
        ]
        for _ in range(2):
            for observed, unobserved in pairs:
                off.append(_timed_run(unobserved, conditional_file, duration))
                on.append(_timed_run(observed, conditional_file, duration))
    on_rps = statistics.median(r.rps for r, _ in on)
    off_rps = statistics.median(r.rps for r, _ in off)
    on_cpu = statistics.median(c for _, c in on)
    off_cpu = statistics.median(c for _, c in off)
    result = measure(
        "GET /latest 304 @64 conns, access log + metrics on vs off (2 servers each, x2)",
        on_rps,
        "req/s",
        group="latest",
        floor=off_rps,
        floor_name="same, ACCESS_LOG=off METRICS_PORT=0",
        details={
            "on_rps": [r.rps for r, _ in on],
            "off_rps": [r.rps for r, _ in off],
            "on_cpu_us_per_request": [c for _, c in on],
            "off_cpu_us_per_request": [c for _, c in off],
            "rps_ratio": on_rps / off_rps if off_rps else None,
            "cpu_ratio": off_cpu / on_cpu if on_cpu else None,
            "p50_ms": statistics.median(r.p50_ms for r, _ in on),
            "p99_ms": statistics.median(r.p99_ms for r, _ in on),
        },
    )
    cpu_ratio = off_cpu / on_cpu if on_cpu else 0.0
    result.ratio = cpu_ratio
    result.target = ">= 0.95x (server CPU per request, off / on)"
    result.met = cpu_ratio >= 0.95
    return result


def run(ctx: Context) -> list[Measure]:
    migrate_dataset(ctx.database_url)
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
                    details=result.details(f"/latest {label}"),
                )
            )
    out.append(_observing_cost(ctx, conditional_file))
    out.append(_database(ctx))
    return out


if __name__ == "__main__":
    raise SystemExit(module_main(run))
