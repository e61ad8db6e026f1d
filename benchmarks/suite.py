"""`telemetry bench run`: every benchmark class against floors measured in the same run.

Order: floors (HTTP floor per connection count, database round trip), bulk load (from
the dataset's generation), storage, then the modules: auth cost, /latest, history,
export, directory, member validation timing, then ingest (it adds readings), network
(MQTT ingest beside it, downlink dispatch) and webhooks last (it adds readings and outbox
events). Each module runs in its own process (benchmarks/runner.py) with a time limit; a
module that fails or is missing is reported as such and the run goes on.
"""

from __future__ import annotations

import asyncio
import importlib.util
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from benchmarks.common import (
    ROOT,
    Context,
    Measure,
    Request,
    concurrent_calls,
    default_context,
    load_manifest,
    measure,
    run_wrk,
    start_floor_server,
    time_query,
    write_requests,
)
from benchmarks.runner import ContextSpec
from testkit.databases import connect, migrate_database


@dataclass
class Outcome:
    group: str
    seconds: float
    measures: list[Measure]
    error: str | None = None
    skipped: str | None = None


# Module classes, in run order: (class, module).
MODULES = [
    ("auth", "benchmarks.auth_cost"),
    ("latest", "benchmarks.bench_latest"),
    ("history", "benchmarks.bench_history"),
    ("export", "benchmarks.bench_export"),
    ("query", "benchmarks.bench_query"),
    ("packing", "benchmarks.bench_packing"),
    ("directory", "benchmarks.bench_directory"),
    ("validate", "benchmarks.bench_validate_timing"),
    ("ingest", "benchmarks.bench_ingest"),
    ("network", "benchmarks.bench_network"),
    ("webhooks", "benchmarks.bench_webhooks"),
    ("live", "benchmarks.bench_live"),
    ("peer", "benchmarks.bench_peer"),
]
BUILTIN = ["floors", "load", "storage"]
CLASSES = BUILTIN + [name for name, _ in MODULES]
ALIASES = {"validate_timing": "validate", "writes": "validate", "auth_cost": "auth"}


def resolve_classes(names: list[str]) -> tuple[list[str], list[str]]:
    """Class names (or their aliases: a module's file name) -> (known classes, unknown)."""
    known: list[str] = []
    unknown: list[str] = []
    for name in names:
        name = ALIASES.get(name, name)
        (known if name in CLASSES else unknown).append(name)
    return known, unknown


# --------------------------------------------------------------------------- built-ins


def floors(ctx: Context) -> list[Measure]:
    """The HTTP floor at every connection count, and the database round trip."""
    out: list[Measure] = []
    path = write_requests(ctx.work_dir / "floor.txt", [Request("GET", "/floor")])
    with start_floor_server() as server:
        for connections in sorted(set(ctx.connections) | {64}):
            result = run_wrk(server.base_url, path, connections=connections, duration=ctx.duration)
            ctx.floors[f"http@{connections}"] = result.rps
            out.append(
                measure(
                    f"HTTP floor (constant body) @{connections} conns",
                    result.rps,
                    "req/s",
                    group="floors",
                    details=result.details("HTTP floor"),
                )
            )
    ctx.floors["http"] = ctx.floors["http@64"]

    async def database() -> Any:
        connection = await connect(ctx.database_url)
        try:
            return await time_query(connection, "SELECT 1", [()], max(ctx.repetitions, 200))
        finally:
            await connection.close()

    import uvloop

    lat = uvloop.run(database())
    calls, concurrent = uvloop.run(
        concurrent_calls(ctx.database_url, "SELECT 1", [()], 16, min(ctx.duration, 5.0))
    )
    ctx.floors["db_calls@16"] = calls
    out.append(
        measure(
            "database floor: SELECT 1 calls/s @16 conns (asyncpg)",
            calls,
            "calls/s",
            group="floors",
            details=concurrent.details(connections=16, route="SELECT 1 (db)"),
        )
    )
    ctx.floors["db_roundtrip_ms"] = lat.p50_ms
    out.append(
        measure(
            "database floor: SELECT 1 round trip p50 (asyncpg)",
            lat.p50_ms,
            "ms",
            group="floors",
            details={
                "p50_ms": lat.p50_ms,
                "p95_ms": lat.p95_ms,
                "p99_ms": lat.p99_ms,
                "route": "SELECT 1 (db)",
            },
        )
    )
    return out


def load(ctx: Context) -> list[Measure]:
    m = ctx.manifest
    return [
        measure(
            "bulk load, packing included (binary COPY)",
            m.load_rate,
            "readings/s",
            group="load",
            min_value=600_000,
            details={
                "readings": m.readings_num + m.readings_other,
                "seconds": m.load_seconds,
                "scale": m.scale,
                "devices": len(m.devices),
            },
        )
    ]


# The tables holding readings, by part of the storage (issue 17): raw rows (the open week
# and late arrivals), packed weeks, their hourly partials and the daily rollups; their
# indexes are a part of their own.
STORAGE_PARTS = {
    "raw readings": ("readings_num", "readings_other"),
    "packed weeks": ("packed_num", "packed_other"),
    "hourly partials": ("packed_hours_num", "packed_hours_other"),
    "daily rollups": ("rollup_day_num", "rollup_day_other"),
}
STORAGE_SQL = """
SELECT h, COALESCE(s.table_bytes, 0) AS table_bytes, COALESCE(s.toast_bytes, 0) AS toast_bytes,
       COALESCE(s.index_bytes, 0) AS index_bytes, COALESCE(s.total_bytes, 0) AS total_bytes
  FROM unnest($1::text[]) AS h
  LEFT JOIN LATERAL hypertable_detailed_size(h::regclass) s ON true
"""
# Every reading once: raw rows plus the readings inside packed rows.
READINGS_SQL = """
SELECT (SELECT count(*) FROM readings_num) AS raw_num,
       (SELECT count(*) FROM readings_other) AS raw_other,
       (SELECT COALESCE(sum(n), 0) FROM packed_num) AS packed_num,
       (SELECT COALESCE(sum(n), 0) FROM packed_other) AS packed_other
"""
STORAGE_TARGET = 15  # bytes per reading, everything included (issue 17)


async def storage_measures(connection: Any) -> list[Measure]:
    """Bytes on disk per reading, everything included (tables, TOAST, indexes of raw
    readings, packed weeks and daily rollups), and one row per part."""
    tables = [t for part in STORAGE_PARTS.values() for t in part]
    # Fresh visibility maps and statistics; sizes are what is on disk either way.
    await connection.execute("VACUUM ANALYZE " + ", ".join(tables))
    by = {r["h"]: r for r in await connection.fetch(STORAGE_SQL, tables)}
    counts = dict(await connection.fetchrow(READINGS_SQL))
    readings = sum(int(c) for c in counts.values())

    def per(total: float) -> float:
        return total / readings if readings else 0.0

    details: dict[str, Any] = {
        "readings": readings,
        **{k: int(v) for k, v in counts.items()},
        "tables": {
            t: {k: int(by[t][k]) for k in ("table_bytes", "toast_bytes", "index_bytes")}
            for t in tables
        },
    }
    total = sum(int(by[t]["total_bytes"]) for t in tables)
    out = [
        measure(
            "storage: bytes per reading, everything included",
            per(total),
            "bytes/reading",
            group="storage",
            max_value=STORAGE_TARGET,
            details={**details, "total_bytes": total},
        )
    ]
    parts = {
        name: sum(int(by[t]["table_bytes"]) + int(by[t]["toast_bytes"]) for t in part)
        for name, part in STORAGE_PARTS.items()
    }
    parts["indexes"] = sum(int(by[t]["index_bytes"]) for t in tables)
    for name, size in parts.items():
        what = "of all the tables" if name == "indexes" else "(heap + TOAST)"
        out.append(
            measure(
                f"storage: {name} {what} per reading",
                per(size),
                "bytes/reading",
                group="storage",
                details={"part": name, "bytes": size},
            )
        )
    return out


def storage(ctx: Context) -> list[Measure]:
    async def sizes() -> list[Measure]:
        connection = await connect(ctx.database_url)
        try:
            await connection.execute("SET statement_timeout = 0")
            return await storage_measures(connection)
        finally:
            await connection.close()

    import uvloop

    return uvloop.run(sizes())


BUILTIN_FUNCTIONS: dict[str, Callable[[Context], list[Measure]]] = {
    "floors": floors,
    "load": load,
    "storage": storage,
}


# --------------------------------------------------------------------------- modules


def module_exists(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def run_module(ctx: Context, group: str, module: str, timeout: float) -> Outcome:
    if not module_exists(module):
        return Outcome(group, 0.0, [], skipped=f"{module} does not exist yet")
    spec = ContextSpec(
        scale=ctx.manifest.scale,
        quick=ctx.quick,
        work_dir=str(ctx.work_dir),
        duration=ctx.duration,
        repetitions=ctx.repetitions,
        connections=ctx.connections,
        floors=ctx.floors,
    )
    context_file = ctx.work_dir / f"context-{group}.json"
    out_file = ctx.work_dir / f"measures-{group}.json"
    context_file.write_bytes(msgspec.json.encode(spec))
    out_file.unlink(missing_ok=True)
    started = time.perf_counter()
    log = ctx.work_dir / f"{group}.log"
    try:
        with log.open("w") as handle:
            completed = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "benchmarks.runner",
                    str(context_file),
                    module,
                    str(out_file),
                ],
                cwd=ROOT,
                stdout=handle,
                stderr=subprocess.STDOUT,
                timeout=timeout,
                check=False,
            )
    except subprocess.TimeoutExpired:
        return Outcome(
            group,
            time.perf_counter() - started,
            [],
            error=f"timed out after {timeout:.0f} s (log: {log})",
        )
    elapsed = time.perf_counter() - started
    if completed.returncode != 0 or not out_file.exists():
        tail = log.read_text().strip().splitlines()[-1:] or ["no output"]
        return Outcome(group, elapsed, [], error=f"exit {completed.returncode}: {tail[0]}")
    measures = msgspec.json.decode(out_file.read_bytes(), type=list[Measure])
    for m in measures:
        m.group = m.group or group
    return Outcome(group, elapsed, measures)


# --------------------------------------------------------------------------- the run


def prime(scale: str) -> None:
    """/latest needs each device's stored body: one uplink per device through the pipeline."""
    import uvloop

    from benchmarks.datasets import prime_latest

    try:
        uvloop.run(prime_latest(load_manifest(scale)))
        print("bench: newest uplink of every device sent through the pipeline", file=sys.stderr)
    except Exception as exc:
        print(f"bench: could not prime /latest ({type(exc).__name__}: {exc})", file=sys.stderr)


def run_suite(scale: str, quick: bool, only: list[str] | None, out_dir: Path) -> list[Outcome]:
    manifest = load_manifest(scale)
    # The dataset may predate newer migrations; benchmark the schema of the checkout.
    print("bench: migrating the dataset's database", file=sys.stderr, flush=True)
    asyncio.run(migrate_database(manifest.database_url))
    if not manifest.latest_primed:
        prime(scale)
    ctx = default_context(scale, quick, out_dir / "work", also_at=(256,))
    wanted = set(only or CLASSES)
    if wanted & {"latest", "auth", "ingest"}:
        wanted.add("floors")  # ratios need the floors of the same run
    outcomes: list[Outcome] = []
    timeout = 150.0 if quick else 1800.0
    try:
        for group in CLASSES:
            if group not in wanted:
                continue
            print(f"bench: {group} ...", file=sys.stderr, flush=True)
            started = time.perf_counter()
            if group in BUILTIN_FUNCTIONS:
                try:
                    outcome = Outcome(group, 0.0, BUILTIN_FUNCTIONS[group](ctx))
                except Exception as exc:
                    traceback.print_exc()
                    outcome = Outcome(group, 0.0, [], error=f"{type(exc).__name__}: {exc}")
                outcome.seconds = time.perf_counter() - started
            else:
                module = dict(MODULES)[group]
                outcome = run_module(ctx, group, module, timeout)
            status = outcome.error or outcome.skipped or f"{len(outcome.measures)} measures"
            print(f"bench: {group}: {status} ({outcome.seconds:.1f} s)", file=sys.stderr)
            outcomes.append(outcome)
    finally:
        ctx.close()
    return outcomes


def timestamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
