"""Export: rows/s, MB/s and time to first byte per format, and the worker's memory.

Against `telemetry serve --workers 2` on a generated dataset, streamed over HTTP and
counted as it arrives (rows are lines for CSV and NDJSON, the row count of the file read
back for Parquet):
- one device over a year (or the dataset's whole window when shorter), wide layout, each
  format;
- the fleet of the dataset's first partner (partner key, `GET /export`) over a day and a
  week (bounded by the window), wide layout, each format, and the long layout in CSV;
- time to first byte: from sending the request to the first byte of the body;
- memory: the resident set of every server worker (VmRSS in /proc, sampled every 20 ms)
  before and at its peak during the largest export (the fleet over the whole window in
  the long layout, plus `--rss-readings` synthetic readings of one extra device when
  asked); the growth must stay under 50 MB whatever the size.

Targets: >= 500,000 rows/s in CSV for the fleet export (wide, a week); RSS growth < 50 MB.

    python -m benchmarks.bench_export --scale S
    python -m benchmarks.bench_export --scale S --rss-readings 10000000   # adds 10M readings
"""

from __future__ import annotations

import argparse
import io
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import httpx
import pyarrow.parquet as pq

from benchmarks.common import Context, Measure, default_context, format_row, measure
from testkit.databases import connect

GROUP = "export"
FORMATS = ["csv", "ndjson", "parquet"]
MB = 1_000_000


@dataclass
class Transfer:
    rows: int
    bytes: int
    seconds: float
    first_byte_s: float

    @property
    def rows_per_s(self) -> float:
        return self.rows / self.seconds if self.seconds else 0.0

    @property
    def mb_per_s(self) -> float:
        return self.bytes / MB / self.seconds if self.seconds else 0.0


async def transfer(
    http: httpx.AsyncClient, path: str, key: str, params: dict[str, str]
) -> Transfer:
    """Streams one export to the end; rows counted without keeping the body (Parquet kept,
    to read its row count back)."""
    started = time.perf_counter()
    first: float | None = None
    size = lines = 0
    parquet = io.BytesIO() if params.get("format") == "parquet" else None
    headers = {"Authorization": f"Bearer {key}"}
    async with http.stream("GET", path, params=params, headers=headers) as response:
        if response.status_code != 200:
            await response.aread()
            raise RuntimeError(f"{path} {params}: {response.status_code} {response.text[:200]}")
        async for chunk in response.aiter_raw():
            if first is None:
                first = time.perf_counter() - started
            size += len(chunk)
            if parquet is not None:
                parquet.write(chunk)
            else:
                lines += chunk.count(b"\n")
    seconds = time.perf_counter() - started
    if parquet is not None:
        rows = pq.ParquetFile(io.BytesIO(parquet.getvalue())).metadata.num_rows
    else:
        rows = lines - (1 if params.get("format", "csv") == "csv" else 0)
    return Transfer(rows, size, seconds, first or seconds)


def transfer_measures(label: str, t: Transfer, target: float | None = None) -> list[Measure]:
    details = {
        "rows": t.rows,
        "bytes": t.bytes,
        "seconds": round(t.seconds, 3),
        "mb_per_s": round(t.mb_per_s, 1),
        "first_byte_ms": round(t.first_byte_s * 1000, 1),
    }
    return [
        measure(
            f"{label} rows/s",
            t.rows_per_s,
            "rows/s",
            group=GROUP,
            min_value=target,
            details=details,
        ),
        measure(f"{label} MB/s", t.mb_per_s, "MB/s", group=GROUP, details=details),
        measure(
            f"{label} time to first byte", t.first_byte_s * 1000, "ms", group=GROUP, details=details
        ),
    ]


def worker_pids(server_pid: int) -> list[int]:
    """The server process and its descendants (granian's workers)."""
    pids, frontier = [server_pid], [server_pid]
    while frontier:
        parent = frontier.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            children = (
                (task / "children").read_text().split() if (task / "children").exists() else []
            )
            for child in map(int, children):
                pids.append(child)
                frontier.append(child)
    return pids


def rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


class RssSampler:
    """Peak VmRSS per process, sampled every 20 ms in a thread while the export runs."""

    def __init__(self, pids: list[int]) -> None:
        self.pids = pids
        self.baseline = {pid: rss_kb(pid) for pid in pids}
        self.peak = dict(self.baseline)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(0.02):
            for pid in self.pids:
                self.peak[pid] = max(self.peak[pid], rss_kb(pid))

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def growth_mb(self) -> float:
        return max(self.peak[p] - self.baseline[p] for p in self.pids) / 1024


async def synthetic_device(ctx: Context, readings: int) -> tuple[str, str, datetime, datetime]:
    """One extra device of the first partner with `readings` readings of three numeric
    fields (one every 3 seconds per field), loaded once; (device id, key, from, to)."""
    device = ctx.manifest.devices[0]
    key = ctx.manifest.key_for(device)
    connection = await connect(ctx.database_url)
    try:
        await connection.execute("SET statement_timeout = 0")
        fields = await connection.fetch(
            "SELECT num FROM profile_fields WHERE profile_id = $1 AND data_type = 'number'"
            " ORDER BY position LIMIT 3",
            device.profile_id,
        )
        per_field = readings // len(fields)
        end = datetime.fromisoformat(ctx.manifest.end.replace("Z", "+00:00"))
        start = end - timedelta(seconds=3 * per_field)
        # Raw rows and packed weeks alike: a loaded device is packed once its weeks close.
        have = await connection.fetchval(
            "SELECT readings_num_count(ARRAY[$1::integer], ARRAY[$2::integer], $3, $4)",
            device.num,
            fields[0]["num"],
            start,
            end,
        )
        if have < per_field:
            for field in fields:
                await connection.execute(
                    "INSERT INTO readings_num (device_num, field_num, time, value)"
                    " SELECT $1, $2, $3::timestamptz + i * interval '3 seconds', i % 1000 / 8.0"
                    "   FROM generate_series(0, $4 - 1) i",
                    device.num,
                    field["num"],
                    start,
                    per_field,
                )
            # Closed weeks packed (and their daily rollups written), as the packing job does.
            await connection.execute("SELECT pack_closed_chunks(interval '0')")
        return device.id, key, start, end
    finally:
        await connection.close()


async def run(ctx: Context, rss_readings: int = 0) -> list[Measure]:
    manifest = ctx.manifest
    end = datetime.fromisoformat(manifest.end.replace("Z", "+00:00"))
    start = datetime.fromisoformat(manifest.start.replace("Z", "+00:00"))
    window = end - start
    device = manifest.devices[0]
    partner_key = next(
        k.secret
        for k in manifest.keys
        if k.sub_account_id is None and k.partner_id == device.partner_id
    )
    out: list[Measure] = []
    base = ctx.server()
    server_pid = ctx._server.process.pid if ctx._server else 0
    async with httpx.AsyncClient(base_url=base, timeout=600) as http:

        def span(days: float) -> dict[str, str]:
            reach = min(timedelta(days=days), window)
            return {"from": (end - reach).isoformat(), "to": end.isoformat()}

        year = min(365, window.days)
        for fmt in FORMATS:
            t = await transfer(
                http,
                f"/api/v1/devices/{device.id}/export",
                manifest.key_for(device),
                {**span(365), "format": fmt},
            )
            out += transfer_measures(f"one device over {year} days, {fmt} wide", t)
        for days, name in [(1, "a day"), (7, "a week")]:
            for fmt in FORMATS:
                t = await transfer(
                    http, "/api/v1/export", partner_key, {**span(days), "format": fmt}
                )
                target = 500_000 if fmt == "csv" and days == 7 and not ctx.quick else None
                out += transfer_measures(f"fleet over {name}, {fmt} wide", t, target)
        t = await transfer(
            http, "/api/v1/export", partner_key, {**span(7), "format": "csv", "layout": "long"}
        )
        out += transfer_measures("fleet over a week, csv long", t)

        # The largest export, with the workers' memory watched.
        if rss_readings:
            device_id, key, frm, to = await synthetic_device(ctx, rss_readings)
            path, params = (
                f"/api/v1/devices/{device_id}/export",
                {"from": frm.isoformat(), "to": to.isoformat(), "layout": "long"},
            )
            label = f"largest export: one device, {rss_readings:,} readings, csv long"
        else:
            path, params, key = (
                "/api/v1/export",
                {**span(window.days + 1), "layout": "long"},
                partner_key,
            )
            label = f"largest export: fleet over {window.days} days, csv long"
        pids = worker_pids(server_pid)
        with RssSampler(pids) as sampler:
            t = await transfer(http, path, key, params)
        out += transfer_measures(label, t)
        out.append(
            measure(
                f"{label}: worker RSS growth",
                sampler.growth_mb(),
                "MB",
                group=GROUP,
                max_value=50,
                details={
                    "rows": t.rows,
                    "bytes": t.bytes,
                    "processes": len(pids),
                    "baseline_kb": sampler.baseline,
                    "peak_kb": sampler.peak,
                },
            )
        )
    return out


def main(argv: list[str] | None = None) -> int:
    import uvloop

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", default="S")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rss-readings", type=int, default=0)
    args = parser.parse_args(argv)
    ctx = default_context(args.scale, args.quick)
    try:
        measures = uvloop.run(run(ctx, args.rss_readings))
    finally:
        ctx.close()
    for m in measures:
        print(format_row(m))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
