"""The contract shared by every benchmark module, and the helpers they use.

A benchmark module (`benchmarks/bench_<class>.py`) answers one question and exposes

    def run(ctx: Context) -> list[Measure]          # or: async def run(ctx) -> list[Measure]

The suite (`telemetry bench run`, benchmarks/cli.py) builds one `Context` (dataset, server,
floors measured in the same run) and calls every module that exists. A module may also be
run alone: `python -m benchmarks.bench_x [--quick] [--json]` (see `module_main`).

Everything here loads only 127.0.0.1 and is bounded in duration.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from testkit.databases import migrate_database
from testkit.processes import Server, free_port, start_server, wait_until_up

ROOT = Path(__file__).resolve().parents[1]
BENCH_DIR = ROOT / "benchmarks"
DATA_DIR = BENCH_DIR / "data"
RESULTS_DIR = BENCH_DIR / "results"
LUA_DIR = BENCH_DIR / "lua"


# --------------------------------------------------------------------------- measures


class Measure(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One figure of the report: one row of its table.

    `floor` is what the value is compared with: the HTTP or database floor measured in the
    same run, or the naive baseline (raw `time_bucket`). `ratio` is value/floor for
    "higher is better" figures (throughput) and floor/value for latencies (a speed-up).
    `met` is None when the measure has no target.
    """

    name: str
    value: float
    unit: str
    group: str = ""
    floor: float | None = None
    floor_name: str | None = None
    ratio: float | None = None
    target: str | None = None
    met: bool | None = None
    details: dict[str, Any] = {}


def measure(
    name: str,
    value: float,
    unit: str,
    *,
    group: str,
    floor: float | None = None,
    floor_name: str | None = None,
    higher_is_better: bool = True,
    min_ratio: float | None = None,
    max_value: float | None = None,
    min_value: float | None = None,
    target: str | None = None,
    details: dict[str, Any] | None = None,
) -> Measure:
    """Builds a Measure, computing ratio and met from the conditions given.

    Example: `measure("GET /latest 304 @64", rps, "req/s", group="latest", floor=floor_rps,
    floor_name="HTTP floor", min_ratio=0.6)` or, for a query against its baseline,
    `measure("daily avg 1y p50", p50_ms, "ms", group="history", floor=raw_p50_ms,
    floor_name="raw time_bucket", higher_is_better=False, min_ratio=50, max_value=3)`.
    """
    ratio: float | None = None
    if floor is not None and floor > 0 and value > 0:
        ratio = value / floor if higher_is_better else floor / value
    checks: list[bool] = []
    words: list[str] = []
    if min_ratio is not None:
        checks.append(ratio is not None and ratio >= min_ratio)
        words.append(f">= {min_ratio:g}x {floor_name or 'floor'}")
    if max_value is not None:
        checks.append(value <= max_value)
        words.append(f"<= {max_value:g} {unit}")
    if min_value is not None:
        checks.append(value >= min_value)
        words.append(f">= {min_value:g} {unit}")
    return Measure(
        name=name,
        value=float(value),
        unit=unit,
        group=group,
        floor=None if floor is None else float(floor),
        floor_name=floor_name,
        ratio=ratio,
        target=target or (", ".join(words) or None),
        met=all(checks) if checks else None,
        details=details or {},
    )


# --------------------------------------------------------------------------- latency


class Latency(msgspec.Struct, kw_only=True):
    """Latency figures of many timed repetitions, in milliseconds."""

    n: int
    mean_ms: float
    p50_ms: float
    p95_ms: float
    p99_ms: float
    max_ms: float

    def details(self, **more: Any) -> dict[str, Any]:
        """A measure's details for these latencies: the median and the tail, and `more`."""
        return {"p50_ms": self.p50_ms, "p99_ms": self.p99_ms, **more}


def quantile(sorted_values: Sequence[float], q: float) -> float:
    """Linear-interpolated quantile of already sorted values (q in 0..1)."""
    if not sorted_values:
        return math.nan
    position = (len(sorted_values) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(sorted_values) - 1)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (position - low)


def percentiles(seconds: Iterable[float]) -> Latency:
    """p50/p95/p99 of durations given in seconds, reported in milliseconds."""
    values = sorted(s * 1000.0 for s in seconds)
    if not values:
        return Latency(
            n=0,
            mean_ms=math.nan,
            p50_ms=math.nan,
            p95_ms=math.nan,
            p99_ms=math.nan,
            max_ms=math.nan,
        )
    return Latency(
        n=len(values),
        mean_ms=statistics.fmean(values),
        p50_ms=quantile(values, 0.50),
        p95_ms=quantile(values, 0.95),
        p99_ms=quantile(values, 0.99),
        max_ms=values[-1],
    )


async def time_calls(
    call: Callable[[int], Awaitable[Any]], repetitions: int, warmup: int = 5
) -> Latency:
    """Times `await call(i)` sequentially `repetitions` times after `warmup` untimed calls."""
    for i in range(warmup):
        await call(i)
    samples: list[float] = []
    clock = time.perf_counter
    for i in range(repetitions):
        started = clock()
        await call(i)
        samples.append(clock() - started)
    return percentiles(samples)


async def time_query(
    connection: Any, sql: str, args: Sequence[Sequence[Any]], repetitions: int, warmup: int = 5
) -> Latency:
    """Times one prepared statement, cycling over the argument tuples (a database floor)."""
    statement = await connection.prepare(sql)
    cycle = [tuple(a) for a in args] or [()]

    async def call(i: int) -> Any:
        return await statement.fetch(*cycle[i % len(cycle)])

    return await time_calls(call, repetitions, warmup)


async def concurrent_calls(
    database_url: str,
    sql: str,
    args: Sequence[Sequence[Any]],
    connections: int,
    duration: float,
) -> tuple[float, Latency]:
    """Calls/s and latency of one statement from N connections for `duration` seconds."""
    import asyncpg

    from app.core.db import init_connection

    cycle = [tuple(a) for a in args] or [()]
    conns = [await asyncpg.connect(database_url) for _ in range(connections)]
    try:
        for conn in conns:
            await init_connection(conn)
        samples: list[float] = []
        deadline = time.perf_counter() + duration
        counter = itertools.count()

        async def worker(conn: Any) -> None:
            statement = await conn.prepare(sql)
            while time.perf_counter() < deadline:
                i = next(counter)
                started = time.perf_counter()
                await statement.fetch(*cycle[i % len(cycle)])
                samples.append(time.perf_counter() - started)

        started = time.perf_counter()
        await asyncio.gather(*(worker(c) for c in conns))
        elapsed = time.perf_counter() - started
        return len(samples) / elapsed, percentiles(samples)
    finally:
        for conn in conns:
            await conn.close()


# --------------------------------------------------------------------------- processes


def start_floor_server(workers: int = 2) -> Server:
    """The HTTP floor: benchmarks/floor_app.py on the same granian configuration."""
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "benchmarks.floor_app",
            "--port",
            str(port),
            "--workers",
            str(workers),
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base_url = f"http://127.0.0.1:{port}"
    wait_until_up(f"{base_url}/floor", process)
    return Server(base_url, process)


# --------------------------------------------------------------------------- wrk


class Request(msgspec.Struct, array_like=True):
    """One request for benchmarks/lua/requests.lua: method, path, headers, body."""

    method: str
    path: str
    headers: dict[str, str] = {}
    body: str = ""


def write_requests(path: Path, requests: Iterable[Request]) -> Path:
    """Writes a requests file: one request per line, fields separated by tabs.

    Line format (read by benchmarks/lua/requests.lua):
    `METHOD<TAB>PATH<TAB>BODY<TAB>Header-Name: value<TAB>...` (BODY may be empty; it must
    not contain a tab or a newline, which compact JSON never does).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as handle:
        for r in requests:
            if "\t" in r.body or "\n" in r.body:
                raise ValueError("request bodies must not contain tabs or newlines")
            parts = [r.method, r.path, r.body, *(f"{k}: {v}" for k, v in r.headers.items())]
            handle.write("\t".join(parts) + "\n")
    return path


class WrkResult(msgspec.Struct, kw_only=True):
    connections: int
    threads: int
    duration_s: float
    requests: int
    rps: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float
    mean_ms: float
    socket_errors: int
    bad_status: int  # responses that were neither 2xx nor 3xx

    def details(self, route: str, **more: Any) -> dict[str, Any]:
        """A measure's details for this run of `route`: latencies, load and errors, and `more`."""
        return {
            "p50_ms": self.p50_ms,
            "p90_ms": self.p90_ms,
            "p99_ms": self.p99_ms,
            "connections": self.connections,
            "route": route,
            "requests": self.requests,
            "bad_status": self.bad_status,
            "socket_errors": self.socket_errors,
            **more,
        }


def wrk_path() -> str:
    found = shutil.which("wrk")
    if found is None:
        raise RuntimeError("wrk is not installed: apt-get install -y wrk")
    return found


def run_wrk(
    base_url: str,
    requests_file: Path,
    *,
    connections: int = 64,
    threads: int = 2,
    duration: float = 10,
    timeout_s: int = 5,
) -> WrkResult:
    """Runs wrk with benchmarks/lua/requests.lua over a requests file; parses its summary.

    The script's `done()` prints one `WRK_JSON {...}` line with exact percentiles.
    """
    threads = max(1, min(threads, connections))
    command = [
        wrk_path(),
        "-t",
        str(threads),
        "-c",
        str(connections),
        "-d",
        f"{max(1, round(duration))}s",
        "--timeout",
        f"{timeout_s}s",
        "-s",
        str(LUA_DIR / "requests.lua"),
        base_url,
        "--",
        str(requests_file),
    ]
    completed = subprocess.run(
        command, capture_output=True, text=True, timeout=duration + 60, check=False
    )
    if completed.returncode != 0:
        raise RuntimeError(f"wrk failed: {completed.stderr.strip() or completed.stdout.strip()}")
    return parse_wrk(completed.stdout, connections, threads)


_JSON_LINE = re.compile(r"^WRK_JSON (\{.*\})$", re.MULTILINE)


def parse_wrk(output: str, connections: int, threads: int) -> WrkResult:
    found = _JSON_LINE.search(output)
    if not found:
        raise RuntimeError(f"no WRK_JSON line in wrk output:\n{output}")
    raw = msgspec.json.decode(found.group(1))
    duration_s = raw["duration_us"] / 1e6
    return WrkResult(
        connections=connections,
        threads=threads,
        duration_s=duration_s,
        requests=raw["requests"],
        rps=raw["requests"] / duration_s if duration_s else 0.0,
        p50_ms=raw["p50_us"] / 1000,
        p90_ms=raw["p90_us"] / 1000,
        p99_ms=raw["p99_us"] / 1000,
        max_ms=raw["max_us"] / 1000,
        mean_ms=raw["mean_us"] / 1000,
        socket_errors=raw["connect"] + raw["read"] + raw["write"] + raw["timeout"],
        bad_status=raw["status"],
    )


# --------------------------------------------------------------------------- databases


# --------------------------------------------------------------------------- the dataset


class DeviceRef(msgspec.Struct, kw_only=True):
    id: str
    dev_eui: str
    num: int
    partner_id: str
    sub_account_id: str | None
    site_id: str | None
    network_id: str | None
    profile_id: str


class FieldRef(msgspec.Struct, kw_only=True):
    identifier: str
    data_type: str  # number | string
    role: str | None = None


class KeyRef(msgspec.Struct, kw_only=True):
    secret: str
    partner_id: str
    sub_account_id: str | None  # None: a partner key


class Fleet(msgspec.Struct, kw_only=True):
    """A large directory (e.g. 100,000 devices) under one partner, for list benchmarks."""

    partner_id: str
    sub_account_ids: list[str]
    device_count: int
    partner_key: str
    sub_account_keys: dict[str, str]  # sub-account id -> key secret
    sample_device_ids: list[str]


class Manifest(msgspec.Struct, kw_only=True):
    """What `telemetry bench generate` loaded, in benchmarks/data/<scale>/manifest.json.

    Keys have tiers high enough never to be rate limited; every key has all read scopes
    (and the write scopes). `tokens` are ChirpStack integration tokens per partner id.
    Readings are every `interval_s` seconds in [start, end) with gaps; the newest reading
    of every device is at `end - interval_s` (or earlier, for a device in a gap).
    """

    scale: str
    database: str
    database_url: str
    start: str  # RFC 3339
    end: str
    interval_s: int
    fields: list[FieldRef]
    devices: list[DeviceRef]
    keys: list[KeyRef]
    tokens: dict[str, str]
    readings_num: int
    readings_other: int
    load_seconds: float
    load_rate: float = 0.0  # readings/s, packing included
    latest_primed: bool = False  # the newest uplink of every device went through ingest
    fleet: Fleet | None = None

    def key_for(self, device: DeviceRef) -> str:
        """A key that sees the device: its sub-account's key, else its partner's."""
        for key in self.keys:
            if key.sub_account_id is not None and key.sub_account_id == device.sub_account_id:
                return key.secret
        for key in self.keys:
            if key.sub_account_id is None and key.partner_id == device.partner_id:
                return key.secret
        raise KeyError(device.id)

    def numeric_fields(self) -> list[FieldRef]:
        return [f for f in self.fields if f.data_type == "number"]


def manifest_path(scale: str) -> Path:
    return DATA_DIR / scale.lower() / "manifest.json"


def load_manifest(scale: str) -> Manifest:
    path = manifest_path(scale)
    if not path.exists():
        raise FileNotFoundError(
            f"no dataset for scale {scale}: run `telemetry bench generate --scale {scale}` first"
        )
    return msgspec.json.decode(path.read_bytes(), type=Manifest)


# --------------------------------------------------------------------------- context


@dataclass
class Context:
    """What every benchmark module gets.

    - `manifest`: the dataset (devices, keys, tokens, time range, optional fleet).
    - `database_url`: the dataset's scratch database (migrated, loaded). Modules that write
      (ingest) write there too, to devices of the dataset; they must not delete anything.
    - `quick`: a smoke run (scale S, short durations); assert nothing about speed then.
    - `duration`: seconds per wrk run; `repetitions`: timed repetitions of one query;
      `connections`: the wrk connection counts to sweep (the first is the headline, 64).
    - `floors`: figures measured earlier in the same run, e.g. `floors["http"]` (req/s of
      the constant-body app at 64 connections), `floors["http@16"]`, ...
    - `server()`: base URL of `telemetry serve --workers 2` on the dataset (started once).
    - `work_dir`: a directory for generated files (wrk request files), inside the results.
    """

    manifest: Manifest
    quick: bool
    work_dir: Path
    duration: float = 10.0
    repetitions: int = 300
    connections: list[int] = field(default_factory=lambda: [64])
    floors: dict[str, float] = field(default_factory=dict)
    _server: Server | None = None

    @property
    def database_url(self) -> str:
        # The dataset's database in the project's cluster as it runs now (its port may
        # differ from the one recorded when the dataset was generated).
        from urllib.parse import urlparse

        from app.ops import cluster

        return cluster.database_url(urlparse(self.manifest.database_url).path.lstrip("/"))

    def server(self) -> str:
        if self._server is None or self._server.process.poll() is not None:
            self._server = start_server(self.database_url, workers=2)
        return self._server.base_url

    def http_floor(self, connections: int = 64) -> float | None:
        return self.floors.get(f"http@{connections}") or (
            self.floors.get("http") if connections == 64 else None
        )

    def close(self) -> None:
        if self._server is not None:
            self._server.stop()
            self._server = None


def call_run(run: Callable[[Context], Any], ctx: Context) -> list[Measure]:
    """Calls a module's `run`, sync or async."""
    if inspect.iscoroutinefunction(run):
        import uvloop

        return list(uvloop.run(run(ctx)))
    return list(run(ctx))


def default_context(
    scale: str = "S",
    quick: bool = False,
    work_dir: Path | None = None,
    also_at: tuple[int, ...] = (),
) -> Context:
    """The run's settings: short with `quick` (64 connections only), else 64, 16, 128 and
    `also_at` connections; scratch files in `work_dir` (the results' scratch folder)."""
    work = work_dir or RESULTS_DIR / "scratch"
    work.mkdir(parents=True, exist_ok=True)
    return Context(
        manifest=load_manifest(scale),
        quick=quick,
        work_dir=work,
        duration=3.0 if quick else 10.0,
        repetitions=30 if quick else 300,
        connections=[64] if quick else [64, 16, 128, *also_at],
    )


def module_main(run: Callable[[Context], Any], argv: list[str] | None = None) -> int:
    """`python -m benchmarks.bench_x [--scale S] [--quick] [--json]` for one module alone.

    With --json, prints a JSON array of measures on stdout (the suite can run a module as a
    subprocess this way); otherwise a small table.
    """
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", default="S")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    ctx = default_context(args.scale, args.quick)
    try:
        measures = call_run(run, ctx)
    finally:
        ctx.close()
    if args.json:
        sys.stdout.write(msgspec.json.encode(measures).decode() + "\n")
    else:
        for m in measures:
            print(format_row(m))
    return 0


def format_row(m: Measure) -> str:
    floor = "" if m.floor is None else f"{m.floor:,.2f} ({m.floor_name or 'floor'})"
    ratio = "" if m.ratio is None else f"{m.ratio:,.2f}x"
    met = {None: "", True: "yes", False: "NO"}[m.met]
    return f"{m.name:<48} {m.value:>12,.2f} {m.unit:<12} {floor:<28} {ratio:>8} {met}"


@contextmanager
def stopwatch() -> Iterator[Callable[[], float]]:
    """`with stopwatch() as elapsed: ...; elapsed()` -> seconds since entering."""
    started = time.perf_counter()
    yield lambda: time.perf_counter() - started


def migrate_dataset(database_url: str) -> None:
    """The dataset may predate the newest SQL definitions; applying them is idempotent."""
    asyncio.run(migrate_database(database_url))


def process_cpu_seconds(pid: int) -> float:
    """CPU time (user + system) of a process and its children (the granian workers)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        process, parent = int(stat.parent.name), int(fields[1])
        if process == pid or parent == pid:
            total += (int(fields[11]) + int(fields[12])) / ticks
    return total
