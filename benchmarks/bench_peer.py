"""peer: the service against the store a user would pick instead, InfluxDB, on the same box
and the same readings (issue 27).

InfluxDB 1.x from Debian (`influxdb`, installed with apt-get when `influxd` is missing, as
`scripts/install-system.sh` installs wrk), TSM engine, WAL fsync per write (its default),
started on a private port and data folder of the run's work directory and stopped after.
It is loaded with the dataset's decoded numeric readings, read back from the dataset's
database (raw rows and packed weeks alike, through `readings_num_in`), one point per
reading: measurement = the field, tag `device` = the DevEUI, field `value`, nanosecond
times (a series' readings never share one).

Measured side by side, from one client, interleaved request by request so that whatever
else the box does weighs on both alike:
- the history classes of bench_history over HTTP: raw newest 500 of 30 days, hourly avg
  over 30 days, daily avg over the whole dataset (a year at scale M), each against the
  InfluxQL query that answers the same (`ORDER BY time DESC LIMIT 500`, `mean(value) ...
  GROUP BY time(1h|1d)`);
- the last value of a series: `GET /devices/{id}/latest` against `SELECT last(value)`;
- single-uplink writes @64 connections: one ChirpStack uplink of 4 fields per request
  (bench_ingest's requests) against one `/write` of the same 4 points per request;
- bulk load: the dataset's load rate (readings/s, from its manifest) against the rate of
  loading the same readings into InfluxDB in batches of 5,000 points, 4 at a time;
- bytes on disk per reading: the service's tables (the `storage` class's sum) against
  InfluxDB's data and WAL directories once its cache is written to TSM files and compacted.

Each figure's row carries the service's value, the peer's as the floor, and the ratio
(service over peer for rates, peer over service for latencies and sizes: above 1, the
service leads). A spot check compares the numbers both answer for one series (hourly
averages and the last value) and is a row of its own (1: the same; 0: a mismatch, with
the values in its details).

    python -m benchmarks.bench_peer --quick        # scale S
"""

from __future__ import annotations

import asyncio
import math
import os
import random
import secrets
import shutil
import subprocess
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from benchmarks.bench_history import Series, dataset_series
from benchmarks.common import (
    Context,
    Latency,
    Measure,
    Request,
    measure,
    module_main,
    percentiles,
    run_wrk,
    write_requests,
)
from benchmarks.suite import storage_measures
from benchmarks.uplinks import partner_gateways, uplink_requests
from testkit.databases import connect
from testkit.processes import free_port, stop_process

GROUP = "peer"
DATABASE = "peer"
BATCH_POINTS = 5000
LOADERS = 4
QUICK_DEVICES = 10
# The history classes compared, as (label, resolution or None for raw, days or None for
# the whole dataset, InfluxQL grouping).
HISTORY = [
    ("raw newest 500 of 30 days", None, 30, None),
    ("hourly avg over 30 days", "hourly", 30, "1h"),
    ("daily avg over the dataset", "daily", None, "1d"),
]
CONFIG = """\
reporting-disabled = true
bind-address = "127.0.0.1:{rpc_port}"

[meta]
  dir = "{root}/meta"
  logging-enabled = false

[data]
  dir = "{root}/data"
  wal-dir = "{root}/wal"
  wal-fsync-delay = "0s"
  query-log-enabled = false
  trace-logging-enabled = false
  cache-snapshot-write-cold-duration = "2s"
  compact-full-write-cold-duration = "5s"
  max-series-per-database = 0
  max-values-per-tag = 0

[coordinator]
  query-timeout = "60s"

[retention]
  enabled = false

[monitor]
  store-enabled = false

[http]
  enabled = true
  bind-address = "127.0.0.1:{http_port}"
  log-enabled = false
  write-tracing = false
  max-body-size = 0

[continuous_queries]
  enabled = false

[subscriber]
  enabled = false
"""


def influxd_path() -> str:
    """`influxd`, installed from Debian's `influxdb` package when missing. The package's
    own service is not started (policy-rc.d refuses it for the install), so nothing but
    this benchmark's private server listens."""
    found = shutil.which("influxd")
    if found is not None:
        return found
    policy = Path("/usr/sbin/policy-rc.d")
    wrote_policy = not policy.exists()
    if wrote_policy:
        policy.write_text("#!/bin/sh\nexit 101\n")
        policy.chmod(0o755)
    try:
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        for command in (
            ["apt-get", "update", "-q"],
            ["apt-get", "install", "-y", "-q", "influxdb"],
        ):
            subprocess.run(command, env=env, check=True, capture_output=True, timeout=600)
    finally:
        if wrote_policy:
            policy.unlink(missing_ok=True)
    found = shutil.which("influxd")
    if found is None:
        raise RuntimeError("influxd not found after apt-get install influxdb")
    return found


class Influx:
    """A private InfluxDB server: its HTTP API at `url`, its files under `root`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        root.mkdir(parents=True, exist_ok=True)
        config = root / "influxdb.conf"
        config.write_text(CONFIG.format(root=root, http_port=self.port, rpc_port=free_port()))
        self.log = (root / "influxd.log").open("wb")
        self.process = subprocess.Popen(
            [influxd_path(), "-config", str(config)],
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 60
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"influxd exited: {(root / 'influxd.log').read_text()[-2000:]}")
            try:
                if httpx.get(f"{self.url}/ping", timeout=1).status_code == 204:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("influxd did not come up within 60 s")
            time.sleep(0.2)
        self.query(f"CREATE DATABASE {DATABASE}", method="POST")

    def query(self, text: str, method: str = "GET") -> Any:
        response = httpx.request(
            method, f"{self.url}/query", params={"db": DATABASE, "q": text}, timeout=60
        )
        response.raise_for_status()
        return response.json()

    def disk_bytes(self) -> int:
        """Bytes allocated on disk (blocks, not sizes: the series file's segments are
        preallocated sparse files of several MB, mostly holes at a small scale)."""
        return sum(
            path.stat().st_blocks * 512
            for part in ("data", "wal")
            for path in (self.root / part).rglob("*")
            if path.is_file()
        )

    def stop(self) -> None:
        stop_process(self.process)
        self.log.close()


@contextmanager
def influx_server(root: Path) -> Iterator[Influx]:
    server = Influx(root)
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


def line(field: str, dev_eui: str, at: datetime, value: float) -> str:
    nanoseconds = (at - EPOCH) // timedelta(microseconds=1) * 1000
    return f"{field},device={dev_eui} value={value!r} {nanoseconds}"


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


async def load_influx(ctx: Context, influx: Influx) -> tuple[int, float]:
    """Every decoded numeric reading of the dataset into InfluxDB; (readings, seconds of
    loading, reading them out of PostgreSQL not included)."""
    connection = await connect(ctx.database_url)
    try:
        rows = await connection.fetch(
            """SELECT f.identifier, d.num, f.num AS field_num
                 FROM devices d
                 JOIN profile_fields f ON f.profile_id = d.profile_id
                WHERE d.num = ANY($1::int[]) AND f.kind = 'decoded'
                  AND f.data_type = 'number'""",
            [d.num for d in loaded_devices(ctx)],
        )
        start, end = manifest_range(ctx)
        dev_euis = {d.num: d.dev_eui for d in ctx.manifest.devices}
        batches: list[str] = []
        pending: list[str] = []
        for row in rows:
            readings = await connection.fetch(
                "SELECT time, value FROM readings_num_in($1, $2, $3, $4)",
                row["num"],
                row["field_num"],
                start,
                end,
            )
            dev_eui = dev_euis[row["num"]]
            for reading in readings:
                pending.append(line(row["identifier"], dev_eui, reading[0], reading[1]))
                if len(pending) == BATCH_POINTS:
                    batches.append("\n".join(pending))
                    pending = []
        if pending:
            batches.append("\n".join(pending))
    finally:
        await connection.close()
    total = sum(batch.count("\n") + 1 for batch in batches)
    queue = iter(batches)
    async with httpx.AsyncClient(timeout=120) as http:

        async def loader() -> None:
            for batch in queue:
                response = await http.post(
                    f"{influx.url}/write",
                    params={"db": DATABASE, "precision": "ns"},
                    content=batch.encode(),
                )
                if response.status_code != 204:
                    raise RuntimeError(f"influx write: {response.status_code} {response.text}")

        began = time.perf_counter()
        await asyncio.gather(*(loader() for _ in range(LOADERS)))
        seconds = time.perf_counter() - began
    return total, seconds


def loaded_devices(ctx: Context) -> list[Any]:
    """The devices whose readings InfluxDB gets: all of them, or 10 in a quick run (which
    must end within the suite's 150 s per class)."""
    return ctx.manifest.devices[:QUICK_DEVICES] if ctx.quick else ctx.manifest.devices


def manifest_range(ctx: Context) -> tuple[datetime, datetime]:
    def parse(text: str) -> datetime:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))

    return parse(ctx.manifest.start), parse(ctx.manifest.end)


def rfc3339(at: datetime) -> str:
    return at.astimezone(UTC).isoformat().replace("+00:00", "Z")


def dev_eui_of(ctx: Context, device_id: str | None) -> str:
    return next(d.dev_eui for d in ctx.manifest.devices if d.id == device_id)


async def interleaved(
    ours: Callable[[int], Awaitable[Any]],
    theirs: Callable[[int], Awaitable[Any]],
    repetitions: int,
) -> tuple[Latency, Latency]:
    """Times both, call by call in turn (which goes first alternates), after a warm-up."""
    for index in range(min(10, repetitions)):
        await ours(index)
        await theirs(index)
    our_times: list[float] = []
    their_times: list[float] = []
    for index in range(repetitions):
        pair = [(ours, our_times), (theirs, their_times)]
        for call, times in pair if index % 2 else reversed(pair):
            began = time.perf_counter()
            await call(index)
            times.append(time.perf_counter() - began)
    return percentiles(our_times), percentiles(their_times)


# Issue 27's goals: every history class 1.2x faster than the peer, the last value and bulk
# load ahead of it, single-uplink ingest at least half its rate, storage <= 5.5 bytes.
READ_LEAD = 1.2


def latency_row(
    label: str, ours: Latency, theirs: Latency, lead: float = READ_LEAD, **details: Any
) -> Measure:
    return measure(
        f"peer: {label}, HTTP p50, service vs InfluxDB",
        ours.p50_ms,
        "ms",
        group=GROUP,
        floor=theirs.p50_ms,
        floor_name="InfluxDB 1.x p50",
        higher_is_better=False,
        min_ratio=lead,
        details={
            "p50_ms": round(ours.p50_ms, 3),
            "p99_ms": round(ours.p99_ms, 3),
            "influx_p50_ms": round(theirs.p50_ms, 3),
            "influx_p99_ms": round(theirs.p99_ms, 3),
            **details,
        },
    )


def history_calls(
    ctx: Context,
    clients: tuple[httpx.AsyncClient, httpx.AsyncClient],
    series: list[Series],
    ranges: list[tuple[datetime, datetime]],
    resolution: str | None,
    group_by: str | None,
) -> tuple[Callable[[int], Awaitable[Any]], Callable[[int], Awaitable[Any]]]:
    """The i-th history request of a class to the service and the same to InfluxDB."""
    ours_http, their_http = clients

    async def ours(i: int) -> Any:
        s = series[i % len(series)]
        begin, end = ranges[i % len(series)]
        params = {"field": s.field, "from": rfc3339(begin), "to": rfc3339(end)}
        if resolution is not None:
            params["resolution"] = resolution
        response = await ours_http.get(
            f"/api/v1/devices/{s.device_id}/history",
            params=params,
            headers={"Authorization": f"Bearer {s.key}"},
        )
        response.raise_for_status()
        return response

    async def theirs(i: int) -> Any:
        s = series[i % len(series)]
        begin, end = ranges[i % len(series)]
        where = (
            f"device = '{dev_eui_of(ctx, s.device_id)}' "
            f"AND time >= '{rfc3339(begin)}' AND time < '{rfc3339(end)}'"
        )
        text = (
            f"SELECT value FROM {s.field} WHERE {where} ORDER BY time DESC LIMIT 500"
            if group_by is None
            else f"SELECT mean(value) FROM {s.field} WHERE {where} "
            f"GROUP BY time({group_by}) fill(none)"
        )
        response = await their_http.get("/query", params={"db": DATABASE, "q": text})
        response.raise_for_status()
        return response

    return ours, theirs


async def compare_reads(
    ctx: Context, influx: Influx, series: list[Series], repetitions: int
) -> list[Measure]:
    start, end = manifest_range(ctx)
    out: list[Measure] = []
    async with (
        httpx.AsyncClient(base_url=ctx.server(), timeout=30) as ours_http,
        httpx.AsyncClient(base_url=influx.url, timeout=30) as their_http,
    ):
        for label, resolution, days, group_by in HISTORY:
            ends = [end - timedelta(minutes=random.randint(0, 60)) for _ in series]
            ranges = [(start if days is None else e - timedelta(days=days), e) for e in ends]
            ours, theirs = history_calls(
                ctx, (ours_http, their_http), series, ranges, resolution, group_by
            )
            our, their = await interleaved(ours, theirs, repetitions)
            out.append(latency_row(label, our, their))

        async def our_latest(i: int) -> Any:
            s = series[i % len(series)]
            response = await ours_http.get(
                f"/api/v1/devices/{s.device_id}/latest",
                headers={"Authorization": f"Bearer {s.key}"},
            )
            response.raise_for_status()
            return response

        async def their_latest(i: int) -> Any:
            s = series[i % len(series)]
            text = (
                f"SELECT last(value) FROM {s.field} WHERE device = '{dev_eui_of(ctx, s.device_id)}'"
            )
            response = await their_http.get("/query", params={"db": DATABASE, "q": text})
            response.raise_for_status()
            return response

        our, their = await interleaved(our_latest, their_latest, repetitions)
        out.append(latency_row("last value of a series", our, their, lead=1.0))
        out.append(await spot_check(ctx, series[0], ours_http, their_http))
    return out


async def spot_check(
    ctx: Context, s: Series, ours_http: httpx.AsyncClient, their_http: httpx.AsyncClient
) -> Measure:
    """Both answer the same hourly averages over the dataset's last day for one series."""
    _, end = manifest_range(ctx)
    end = end.replace(minute=0, second=0, microsecond=0)
    begin = end - timedelta(days=1)
    ours = await ours_http.get(
        f"/api/v1/devices/{s.device_id}/history",
        params={
            "field": s.field,
            "from": rfc3339(begin),
            "to": rfc3339(end),
            "resolution": "hourly",
        },
        headers={"Authorization": f"Bearer {s.key}"},
    )
    ours.raise_for_status()
    our_points = {p["time"]: p["value"] for p in ours.json()["data"]["points"]}
    text = (
        f"SELECT mean(value) FROM {s.field} WHERE device = '{dev_eui_of(ctx, s.device_id)}' "
        f"AND time >= '{rfc3339(begin)}' AND time < '{rfc3339(end)}' GROUP BY time(1h) fill(none)"
    )
    theirs = await their_http.get("/query", params={"db": DATABASE, "q": text})
    theirs.raise_for_status()
    result = theirs.json()["results"][0].get("series") or [{"values": []}]
    their_points = {when: value for when, value in result[0]["values"]}
    mismatches = [
        (when, value, their_points.get(when))
        for when, value in our_points.items()
        if their_points.get(when) is None
        or not math.isclose(value, their_points[when], rel_tol=1e-9, abs_tol=1e-9)
    ]
    same = bool(our_points) and not mismatches and len(our_points) == len(their_points)
    return measure(
        "peer: spot check, hourly averages of a day equal (1: yes)",
        1.0 if same else 0.0,
        "bool",
        group=GROUP,
        min_value=1.0,
        details={
            "series": f"{s.device_id}/{s.field}",
            "buckets": len(our_points),
            "influx_buckets": len(their_points),
            "mismatches": mismatches[:5],
        },
    )


def compare_writes(ctx: Context, influx: Influx, connections: int) -> list[Measure]:
    """One uplink of 4 fields per request, @connections, each side in turn."""
    run_id = secrets.token_hex(4)
    count = int(max(12_000 * ctx.duration, 5000))
    start = datetime.now(UTC) - timedelta(seconds=count / 10_000 + 1)
    gateways = asyncio.run(partner_gateways(ctx.database_url))
    uplinks = uplink_requests(ctx, run_id, count, gateways, start)
    ours = run_wrk(
        ctx.server(),
        write_requests(ctx.work_dir / "peer-uplinks.txt", uplinks),
        connections=connections,
        threads=1,
        duration=ctx.duration,
    )
    devices = ctx.manifest.devices
    writes = []
    for index in range(count):
        at = start + timedelta(microseconds=100 * index)
        # The uplink's 4 values as one point of 4 fields (a request body is one line).
        fields = ",".join(
            f"{name}={value!r}"
            for name, value in (
                ("temperature", 18.0 + (index % 70) / 10),
                ("humidity", 40.0 + index % 20),
                ("battery", 90.0 - index % 10),
                ("rssi", float(-70 - index % 40)),
            )
        )
        nanoseconds = (at - EPOCH) // timedelta(microseconds=1) * 1000
        writes.append(
            Request(
                "POST",
                f"/write?db={DATABASE}&precision=ns",
                {"Content-Type": "text/plain"},
                f"uplink,device={devices[index % len(devices)].dev_eui} {fields} {nanoseconds}",
            )
        )
    theirs = run_wrk(
        influx.url,
        write_requests(ctx.work_dir / "peer-writes.txt", writes),
        connections=connections,
        threads=1,
        duration=ctx.duration,
    )
    return [
        measure(
            f"peer: one uplink (4 fields) per HTTP request @{connections}, service vs InfluxDB",
            ours.rps,
            "req/s",
            group=GROUP,
            floor=theirs.rps,
            floor_name="InfluxDB 1.x /write of 4 points",
            min_ratio=0.5,
            details={
                "service": ours.details("ingest up"),
                "influx": theirs.details("influx write"),
            },
        )
    ]


async def compare_storage(ctx: Context, influx: Influx, readings: int) -> Measure:
    connection = await connect(ctx.database_url)
    try:
        await connection.execute("SET statement_timeout = 0")
        ours = (await storage_measures(connection))[0]
    finally:
        await connection.close()
    # Let InfluxDB write its cache to TSM files and compact them (cold after 2 s and 5 s
    # by the configuration above): wait until the size settles.
    previous, settled_since = -1, time.monotonic()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        size = influx.disk_bytes()
        if size != previous:
            previous, settled_since = size, time.monotonic()
        elif time.monotonic() - settled_since > 8:
            break
        await asyncio.sleep(1)
    theirs = influx.disk_bytes() / readings if readings else 0.0
    return measure(
        "peer: bytes on disk per reading, service vs InfluxDB",
        ours.value,
        "bytes/reading",
        group=GROUP,
        floor=theirs,
        floor_name="InfluxDB 1.x TSM (data + WAL)",
        higher_is_better=False,
        max_value=5.5,
        details={"influx_bytes": influx.disk_bytes(), "influx_readings": readings},
    )


def run(ctx: Context) -> list[Measure]:
    with influx_server(ctx.work_dir / "influxdb") as influx:
        readings, seconds = asyncio.run(load_influx(ctx, influx))
        out = [
            measure(
                "peer: bulk load, service vs InfluxDB",
                ctx.manifest.load_rate,
                "readings/s",
                group=GROUP,
                floor=readings / seconds if seconds else None,
                floor_name="InfluxDB 1.x /write, batches of 5,000, 4 at a time",
                min_ratio=1.0,
                details={"influx_readings": readings, "influx_seconds": round(seconds, 2)},
            ),
            asyncio.run(compare_storage(ctx, influx, readings)),
        ]

        async def reads() -> list[Measure]:
            connection = await connect(ctx.database_url)
            try:
                loaded = {d.id for d in loaded_devices(ctx)}
                series = [s for s in await dataset_series(connection, ctx) if s.device_id in loaded]
            finally:
                await connection.close()
            return await compare_reads(ctx, influx, series, 30 if ctx.quick else ctx.repetitions)

        out += asyncio.run(reads())
        out += compare_writes(ctx, influx, ctx.connections[0])
    return out


if __name__ == "__main__":
    raise SystemExit(module_main(run))
