"""Reads on hot standbys, replication lag and fallback: the figures of issue 18.

Questions, on the scale dataset (`telemetry bench generate --scale S` first) and the
project's cluster as the primary:
1. Read throughput of the history and device-list routes with no standby, one and two
   standbys (`telemetry db start --standby`), two API instances (`telemetry serve
   --workers 1` each, wrk on both at once), in the same run; where the reads went
   (transactions counted by pg_stat_database on each server).
2. Replication lag under full ingest: wrk posting uplinks at both instances while the
   primary's `pg_stat_replication` is sampled every 100 ms (replay lag, bytes behind).
3. Time to fall back when a standby is killed: a worker's prober (app/core/routing.py)
   marking the standby down after `pg_ctl -m immediate stop`, and what clients saw
   meanwhile (errors, slowest answer).

Not part of `telemetry bench run` (it starts and kills standbys of the project's cluster);
run alone: `.venv/bin/python -m benchmarks.scaleout --scale S [--duration 5]`. Prints a
markdown table and writes it with the raw figures to benchmarks/results/scaleout-<ts>/.
All figures are for one 2-core box running everything: a standby here adds no CPU, so the
throughput rows show the cost of routing, not a capacity gain; the share rows show where
reads went.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import httpx

from app.core.config import Settings
from app.core.routing import ReadRouter
from app.ops import cluster, standby
from benchmarks.common import ROOT, Request, load_manifest, run_wrk, write_requests
from benchmarks.uplinks import uplink_requests
from testkit.processes import Server, start_server

PORTS = (cluster.PORT + 10, cluster.PORT + 20)


def database_of(url: str, port: int) -> str:
    return f"postgresql://{cluster.SUPERUSER}@127.0.0.1:{port}/{url.rsplit('/', 1)[1]}"


async def transactions(url: str) -> int:
    connection = await asyncpg.connect(url)
    try:
        value = await connection.fetchval(
            "SELECT xact_commit + xact_rollback FROM pg_stat_database"
            " WHERE datname = current_database()"
        )
    finally:
        await connection.close()
    return int(value)


def read_requests(manifest: Any) -> dict[str, list[Request]]:
    end = datetime.fromisoformat(manifest.end.replace("Z", "+00:00"))
    field = manifest.numeric_fields()[0].identifier
    history, listing = [], []
    for device in manifest.devices:
        headers = {"Authorization": f"Bearer {manifest.key_for(device)}"}
        frm = (end - timedelta(days=7)).strftime("%Y-%m-%dT%H:%M:%SZ")
        to = end.strftime("%Y-%m-%dT%H:%M:%SZ")
        history.append(
            Request(
                "GET",
                f"/api/v1/devices/{device.id}/history?field={field}&from={frm}&to={to}"
                "&resolution=hourly",
                headers,
            )
        )
        listing.append(Request("GET", "/api/v1/devices?limit=50", headers))
    return {"history (7 d hourly)": history, "device list": listing}


def wrk_both(servers: list[Server], path: Path, duration: float) -> tuple[float, float]:
    """wrk against each instance at once (32 connections each); summed req/s, worst p99."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(len(servers)) as pool:
        results = list(
            pool.map(
                lambda s: run_wrk(s.base_url, path, connections=32, threads=1, duration=duration),
                servers,
            )
        )
    for result in results:
        if result.bad_status or result.socket_errors:
            raise RuntimeError(f"wrk saw errors: {result}")
    return sum(r.rps for r in results), max(r.p99_ms for r in results)


def serve_two(primary: str, reads: list[str]) -> list[Server]:
    env = {"DATABASE_READ_URL": ",".join(reads), "TELEMETRY_MAX_STALENESS": "1"}
    return [start_server(primary, workers=1, env=env) for _ in range(2)]


async def throughput(manifest: Any, work: Path, duration: float) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    files = {
        name: write_requests(work / f"reads-{i}.txt", requests)
        for i, (name, requests) in enumerate(read_requests(manifest).items())
    }
    primary = manifest.database_url
    standbys = [database_of(primary, port) for port in PORTS]
    for count in (0, 1, 2):
        servers = serve_two(primary, standbys[:count])
        try:
            await asyncio.sleep(1.0)  # the probers see the standbys caught up
            for route, path in files.items():
                before = [await transactions(u) for u in [primary, *standbys[:count]]]
                rps, p99 = wrk_both(servers, path, duration)
                after = [await transactions(u) for u in [primary, *standbys[:count]]]
                done = [b - a for a, b in zip(before, after, strict=True)]
                rows.append(
                    {
                        "measure": f"{route}, 2 instances, {count} standby(s)",
                        "value": f"{rps:,.0f} req/s",
                        "p99": f"{p99:.1f} ms",
                        "transactions primary/standbys": " / ".join(f"{d:,}" for d in done),
                    }
                )
        finally:
            for server in servers:
                server.stop()
    return rows


async def lag_under_ingest(manifest: Any, work: Path, duration: float) -> list[dict[str, Any]]:
    primary = manifest.database_url
    servers = serve_two(primary, [database_of(primary, PORTS[0])])
    run_id = f"scaleout-{int(time.time())}"
    requests = uplink_requests(manifest_context(manifest), run_id, 20000, {}, datetime.now(UTC))
    path = write_requests(work / "ingest.txt", requests)
    samples: list[tuple[float, int]] = []
    stop = asyncio.Event()

    async def sample() -> None:
        connection = await asyncpg.connect(primary)
        try:
            while not stop.is_set():
                row = await connection.fetchrow(
                    "SELECT extract(epoch FROM replay_lag)::float8 AS lag,"
                    " pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)::bigint AS behind"
                    " FROM pg_stat_replication WHERE application_name LIKE '%' LIMIT 1"
                )
                if row is not None:
                    samples.append((row["lag"] or 0.0, row["behind"] or 0))
                await asyncio.sleep(0.1)
        finally:
            await connection.close()

    try:
        sampler = asyncio.create_task(sample())
        rps, _ = await asyncio.to_thread(wrk_both, servers, path, duration)
        stop.set()
        await sampler
    finally:
        for server in servers:
            server.stop()
    lags = sorted(s[0] for s in samples)
    behind = sorted(s[1] for s in samples)
    return [
        {
            "measure": "replication lag under full ingest (1 standby)",
            "value": f"p50 {statistics.median(lags) * 1000:.0f} ms, max {lags[-1] * 1000:.0f} ms",
            "p99": "",
            "transactions primary/standbys": (
                f"ingest {rps:,.0f} uplinks/s; WAL behind p50 "
                f"{statistics.median(behind) / 1024:.0f} kB, max {behind[-1] / 1024:.0f} kB "
                f"({len(samples)} samples)"
            ),
        }
    ]


def manifest_context(manifest: Any) -> Any:
    """The slice of benchmarks.common.Context that bench_ingest's request builder reads."""

    class _Context:
        pass

    context = _Context()
    context.manifest = manifest  # type: ignore[attr-defined]
    return context


async def fallback(manifest: Any) -> list[dict[str, Any]]:
    primary = manifest.database_url
    replica = database_of(primary, PORTS[1])
    pool = await asyncpg.create_pool(primary, min_size=1, max_size=2)
    router = ReadRouter(pool, Settings(database_url=primary, database_read_urls=(replica,)))
    prober = asyncio.create_task(router.run())
    servers = serve_two(primary, [replica])
    device = manifest.devices[0]
    headers = {"Authorization": f"Bearer {manifest.key_for(device)}"}
    latencies: list[float] = []
    failures = 0
    try:
        deadline = time.monotonic() + 10
        while not router.replicas[0].up:
            assert time.monotonic() < deadline, "standby never served"
            await asyncio.sleep(0.05)
        async with httpx.AsyncClient(timeout=10) as http:

            async def client(server: Server, until: float) -> None:
                nonlocal failures
                while time.monotonic() < until:
                    started = time.monotonic()
                    response = await http.get(
                        f"{server.base_url}/api/v1/devices?limit=10", headers=headers
                    )
                    latencies.append(time.monotonic() - started)
                    failures += response.status_code != 200

            until = time.monotonic() + 3
            clients = [asyncio.create_task(client(s, until)) for s in servers]
            await asyncio.sleep(1)
            owner = ["runuser", "-u", "postgres", "--"]
            killed = time.monotonic()
            pg_ctl = str(cluster.pg_bindir() / "pg_ctl")
            directory = str(standby.data_dir(PORTS[1]))
            await asyncio.to_thread(
                subprocess.run,
                [*owner, pg_ctl, "-D", directory, "-m", "immediate", "stop"],
                check=True,
                capture_output=True,
            )
            # The prober task flips `up`; polling it is the measurement.
            while router.replicas[0].up:  # noqa: ASYNC110
                await asyncio.sleep(0.005)
            detected = time.monotonic() - killed
            await asyncio.gather(*clients)
    finally:
        prober.cancel()
        await router.close()
        await pool.close()
        for server in servers:
            server.stop()
        standby.start(PORTS[1])
    return [
        {
            "measure": "standby killed: prober marks it down",
            "value": f"{detected * 1000:.0f} ms",
            "p99": "",
            "transactions primary/standbys": (
                f"clients during the kill: {len(latencies)} requests, {failures} not 200, "
                f"slowest {max(latencies) * 1000:.0f} ms"
            ),
        }
    ]


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| measure | value | p99 | details |",
        "|---|---|---|---|",
        *(
            f"| {r['measure']} | {r['value']} | {r['p99']} | {r['transactions primary/standbys']} |"
            for r in rows
        ),
    ]
    return "\n".join(lines)


async def main(scale: str, duration: float) -> None:
    manifest = load_manifest(scale)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    work = ROOT / "benchmarks" / "results" / f"scaleout-{stamp}"
    work.mkdir(parents=True, exist_ok=True)
    for port in PORTS:
        standby.start(port)
    try:
        rows = await throughput(manifest, work, duration)
        rows += await lag_under_ingest(manifest, work, duration)
        rows += await fallback(manifest)
    finally:
        for port in PORTS:
            standby.stop(port, drop=True)
    text = table(rows)
    (work / "report.md").write_text(text + "\n")
    (work / "results.json").write_text(json.dumps(rows, indent=2))
    print(text)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scale", default="S")
    parser.add_argument("--duration", type=float, default=5.0)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.scale, arguments.duration))
