"""Live values (issue 24): fleet latest, long polls and event streams.

Measures, on servers started as users start them:

- fleet latest 304 @64 connections: `GET /api/v1/latest` with `If-None-Match` over N
  devices (N = 200, or every device a partner key sees when fewer: 50 on scale S), by
  `deviceIds` (answered from the workers' /latest cache, no statement) and by a filter
  (`subAccountId`: one statement reads the page's members), req/s against the HTTP floor
  (target >= 0.3x); and the servers' CPU time per refreshed device (from /proc) against N
  single `/devices/{id}/latest` 304s (target: >= 20x fewer CPU-seconds per device).
- long polls: `POLLS` (1,000; quick: 100) held `Prefer: wait=60` requests on one worker
  (`telemetry serve --workers 1`), each on raw sockets: the worker's extra RSS (target
  < 50 MB), then commit -> 200 while background uplinks are ingested at `RATE` per second
  (500; quick: 100) to devices nobody polls and probe uplinks (5/s) to the polled ones:
  from the probe's send to each held request's 200 (an upper bound of commit -> 200;
  target p99 <= 1 s); each answered poll is sent again with its new ETag.
- streams: `STREAMS` (1,000; quick: 100) open streams of 10 devices each on one worker:
  extra RSS (target < 100 MB), commit -> event p50/p99 for probe uplinks of the streamed
  devices while background uplinks go to the others (target p99 <= 1 s), and the rate of
  ingest (wrk, 16 connections, every device) with the streams open against the same with
  none (target >= 0.9x).

On scale S (50 devices) the polls and streams share a few devices, so one probe wakes
many of them at once: a harder case per uplink than a large fleet, where 500 uplinks/s
mostly touch devices nobody watches. Measure only; assert nothing.

Run alone (after `telemetry bench generate --scale S`):
`python -m benchmarks.bench_live [--quick]`.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from benchmarks.common import (
    Context,
    Latency,
    Measure,
    Request,
    measure,
    module_main,
    percentiles,
    process_cpu_seconds,
    run_wrk,
    start_floor_server,
    write_requests,
)
from benchmarks.uplinks import chirpstack_uplink, partner_gateways
from testkit.processes import start_server

FLEET_SIZE = 200
POLLS = 1_000
STREAMS = 1_000
STREAM_DEVICES = 10
RATE = 500
PROBES_PER_S = 5
WATCHED = 10  # devices polled / streamed


def _quick(ctx: Context, full: int, quick: int) -> int:
    return quick if ctx.quick else full


def _rss_kb(pid: int) -> int:
    """Resident memory of a process and its children (the granian workers), in kB."""
    total = 0
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
        process, parent = int(status.parent.name), int(fields.get("PPid", "0").strip() or 0)
        if process == pid or parent == pid:
            total += int(fields.get("VmRSS", "0 kB").split()[0])
    return total


def _floor(ctx: Context) -> float:
    known = ctx.http_floor(64)
    if known:
        return known
    path = write_requests(ctx.work_dir / "live-floor.txt", [Request("GET", "/floor")])
    with start_floor_server() as server:
        return run_wrk(server.base_url, path, connections=64, duration=ctx.duration).rps


# ---------------------------------------------------------------- fleet latest


def _fleet(ctx: Context) -> list[Measure]:
    by_partner: dict[str, list[Any]] = defaultdict(list)
    for device in ctx.manifest.devices:
        by_partner[device.partner_id].append(device)
    partner, devices = max(by_partner.items(), key=lambda item: len(item[1]))
    key = next(
        k.secret for k in ctx.manifest.keys if k.partner_id == partner and k.sub_account_id is None
    )
    chosen = sorted(devices, key=lambda d: d.id)[:FLEET_SIZE]
    sub_accounts = sorted({d.sub_account_id for d in devices if d.sub_account_id})
    auth = {"Authorization": f"Bearer {key}"}
    out: list[Measure] = []
    floor = _floor(ctx)
    with start_server(ctx.database_url, workers=2) as server:
        with httpx.Client(base_url=server.base_url, timeout=10) as client:
            by_ids = "/api/v1/latest?limit=200&deviceIds=" + ",".join(d.id for d in chosen)
            by_filter = f"/api/v1/latest?limit=200&subAccountId={sub_accounts[0]}"
            singles: list[Request] = []
            for device in chosen:
                path = f"/api/v1/devices/{device.id}/latest"
                etag = client.get(path, headers=auth).headers["etag"]
                singles.append(Request("GET", path, {**auth, "If-None-Match": etag}))
            files: dict[str, tuple[Path, int, int]] = {}
            for label, path in (("deviceIds", by_ids), ("subAccountId filter", by_filter)):
                for _ in range(3):  # cached from the second miss on
                    answer = client.get(path, headers=auth)
                total = answer.json()["pagination"]["total"]
                count = len(answer.json()["data"])
                files[label] = (
                    write_requests(
                        ctx.work_dir / f"fleet-{len(files)}.txt",
                        [Request("GET", path, {**auth, "If-None-Match": answer.headers["etag"]})],
                    ),
                    count,
                    total,
                )
            single_file = write_requests(ctx.work_dir / "fleet-singles.txt", singles)
        before = process_cpu_seconds(server.process.pid)
        single = run_wrk(server.base_url, single_file, connections=64, duration=ctx.duration)
        single_cpu = (process_cpu_seconds(server.process.pid) - before) / max(single.requests, 1)
        for label, (requests_file, count, total) in files.items():
            before = process_cpu_seconds(server.process.pid)
            result = run_wrk(server.base_url, requests_file, connections=64, duration=ctx.duration)
            cpu = (process_cpu_seconds(server.process.pid) - before) / max(result.requests, 1)
            out.append(
                measure(
                    f"GET /latest fleet of {count} devices ({label}) 304 @64 conns",
                    result.rps,
                    "req/s",
                    group="live",
                    floor=floor,
                    floor_name="HTTP floor",
                    min_ratio=0.3,
                    details=result.details(
                        f"/latest fleet {label} 304", devices=count, total=total
                    ),
                )
            )
            per_device = cpu / max(count, 1)
            saving = single_cpu / per_device if per_device else 0.0
            row = measure(
                f"fleet 304 ({label}): server CPU per refreshed device vs single /latest 304",
                per_device * 1e6,
                "us/device",
                group="live",
                floor=single_cpu * 1e6,
                floor_name="single /latest 304, us/request",
                higher_is_better=False,
                details={
                    "fleet_cpu_us_per_request": cpu * 1e6,
                    "single_cpu_us_per_request": single_cpu * 1e6,
                    "single_rps": single.rps,
                    "devices": count,
                },
            )
            row.ratio = saving
            row.target = ">= 20x fewer CPU-seconds per device"
            row.met = saving >= 20
            out.append(row)
    return out


# ---------------------------------------------------------------- raw HTTP


async def _response(reader: asyncio.StreamReader) -> tuple[int, dict[str, str], bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    body = await reader.readexactly(length) if length else b""
    return status, headers, body


def _request(host: str, path: str, headers: dict[str, str]) -> bytes:
    lines = [f"GET {path} HTTP/1.1", f"Host: {host}"] + [f"{k}: {v}" for k, v in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


class Ingest:
    """Uplinks at a steady rate through the ChirpStack route, round-robin over `devices`;
    `sent[dev_eui]` is the send time of each device's latest one."""

    def __init__(self, ctx: Context, base_url: str, gateways: dict[str, str]) -> None:
        self.ctx = ctx
        self.base_url = base_url
        self.gateways = gateways
        self.run_id = secrets.token_hex(4)
        self.index = 0
        self.sent: dict[str, float] = {}
        self.failed = 0
        self.done = 0

    async def run(self, devices: list[Any], rate: float, seconds: float, track: bool) -> None:
        if not devices or rate <= 0:
            return
        async with httpx.AsyncClient(base_url=self.base_url, timeout=10) as client:
            started = time.monotonic()
            tasks: set[asyncio.Task[None]] = set()
            n = 0
            while time.monotonic() - started < seconds:
                device = devices[n % len(devices)]
                n += 1
                task = asyncio.create_task(self._one(client, device, track))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
                await asyncio.sleep(max(started + n / rate - time.monotonic(), 0))
            await asyncio.gather(*tasks)

    async def _one(self, client: httpx.AsyncClient, device: Any, track: bool) -> None:
        self.index += 1
        body = chirpstack_uplink(
            device,
            self.index,
            self.run_id,
            datetime.now(UTC),
            self.gateways.get(device.partner_id, "0" * 16),
        )
        token = self.ctx.manifest.tokens[device.partner_id]
        sent = time.monotonic()
        if track:
            self.sent[device.id] = sent
        response = await client.post(
            "/ingest/chirpstack?event=up",
            content=body,
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        )
        if response.status_code == 204:
            self.done += 1
        else:
            self.failed += 1


# ---------------------------------------------------------------- long polls


async def _long_polls(ctx: Context, base_url: str, pid: int) -> list[Measure]:
    polls = _quick(ctx, POLLS, 100)
    rate = _quick(ctx, RATE, 100)
    seconds = max(ctx.duration, 5.0)
    devices = sorted(ctx.manifest.devices, key=lambda d: d.id)
    watched, others = devices[:WATCHED], devices[WATCHED:]
    host, port = base_url.removeprefix("http://").split(":")
    etags: dict[str, str] = {}
    async with httpx.AsyncClient(base_url=base_url, timeout=10) as client:
        for device in watched:
            key = ctx.manifest.key_for(device)
            answer = await client.get(
                f"/api/v1/devices/{device.id}/latest", headers={"Authorization": f"Bearer {key}"}
            )
            etags[device.id] = answer.headers["etag"]
    gateways = await partner_gateways(ctx.database_url)
    ingest = Ingest(ctx, base_url, gateways)
    latencies: list[float] = []
    answered = {"200": 0, "304": 0}
    stop = asyncio.Event()
    all_held = asyncio.Event()
    held = 0

    async def poll(device: Any) -> None:
        nonlocal held
        reader, writer = await asyncio.open_connection(host, int(port))
        key = ctx.manifest.key_for(device)
        etag = etags[device.id]
        path = f"/api/v1/devices/{device.id}/latest"
        try:
            while not stop.is_set():
                headers = {
                    "Authorization": f"Bearer {key}",
                    "If-None-Match": etag,
                    "Prefer": "wait=60",
                }
                writer.write(_request(host, path, headers))
                await writer.drain()
                held += 1
                if held >= polls:
                    all_held.set()
                status, response_headers, _ = await _response(reader)
                held -= 1
                answered[str(status)] = answered.get(str(status), 0) + 1
                if status == 200:
                    sent = ingest.sent.get(device.id)
                    if sent is not None and not stop.is_set():
                        latencies.append(time.monotonic() - sent)
                    etag = response_headers["etag"]
        finally:
            writer.close()

    before = _rss_kb(pid)
    tasks = [asyncio.create_task(poll(watched[i % len(watched)])) for i in range(polls)]
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(all_held.wait(), 30)
    await asyncio.sleep(1.0)
    rss = _rss_kb(pid) - before
    await asyncio.gather(
        ingest.run(others, rate, seconds, track=False),
        ingest.run(watched, PROBES_PER_S, seconds, track=True),
    )
    await asyncio.sleep(1.5)
    stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    lat = percentiles(latencies)
    return [
        _extra_rss(
            f"{polls} long polls held on one worker", rss, before, 50, held=held, polls=polls
        ),
        _probe_p99(
            f"long poll probe -> 200 p99, {polls} held, {rate} uplinks/s ingested",
            lat,
            ingest,
            answers_200=len(latencies),
            answers=answered,
        ),
    ]


def _extra_rss(name: str, rss_kb: int, before_kb: int, max_mb: float, **details: Any) -> Measure:
    """What holding the connections added to the worker's RSS."""
    return measure(
        f"{name}: extra RSS",
        rss_kb / 1024,
        "MB",
        group="live",
        higher_is_better=False,
        max_value=max_mb,
        details={**details, "rss_before_mb": before_kb / 1024},
    )


def _probe_p99(name: str, lat: Latency, ingest: Ingest, **counts: Any) -> Measure:
    """Commit -> answer (or event) of the probe uplinks, while the others are ingested."""
    return measure(
        name,
        lat.p99_ms,
        "ms",
        group="live",
        higher_is_better=False,
        max_value=1000,
        details=lat.details(**counts, uplinks_ok=ingest.done, uplinks_failed=ingest.failed),
    )


# ---------------------------------------------------------------- streams


async def _read_stream(
    host: str,
    port: int,
    path: str,
    key: str,
    ingest: Ingest,
    latencies: list[float],
    opened: list[int],
    stop: asyncio.Event,
    all_open: asyncio.Event,
    streams: int,
) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(_request(host, path, {"Authorization": f"Bearer {key}"}))
        await writer.drain()
        await reader.readuntil(b"\r\n\r\n")
        opened[0] += 1
        if opened[0] >= streams:
            all_open.set()
        while not stop.is_set():
            size = int((await reader.readline()).strip() or b"0", 16)
            chunk = await reader.readexactly(size + 2)
            arrived = time.monotonic()
            for line in chunk.split(b"\n"):
                if line.startswith(b'data: {"deviceId":"'):
                    device_id = line[19:55].decode()
                    sent = ingest.sent.get(device_id)
                    if sent is not None:
                        latencies.append(arrived - sent)
                        # One latency per probe and stream.
    finally:
        writer.close()


async def _streams(
    ctx: Context, base_url: str, pid: int, files: tuple[Path, Path]
) -> list[Measure]:
    streams = _quick(ctx, STREAMS, 100)
    rate = _quick(ctx, RATE, 100)
    seconds = max(ctx.duration, 5.0)
    devices = sorted(ctx.manifest.devices, key=lambda d: d.id)
    by_key: dict[str, list[Any]] = defaultdict(list)
    for device in devices:
        by_key[ctx.manifest.key_for(device)].append(device)
    key, visible = max(by_key.items(), key=lambda item: len(item[1]))
    watched = visible[:STREAM_DEVICES]
    others = [d for d in devices if d not in watched]
    host, port = base_url.removeprefix("http://").split(":")
    path = "/api/v1/stream?deviceIds=" + ",".join(d.id for d in watched)
    gateways = await partner_gateways(ctx.database_url)

    alone = await asyncio.to_thread(
        run_wrk, base_url, files[0], connections=16, threads=1, duration=seconds
    )
    ingest = Ingest(ctx, base_url, gateways)
    latencies: list[float] = []
    opened = [0]
    stop = asyncio.Event()
    all_open = asyncio.Event()
    before = _rss_kb(pid)
    # Up to 10 streams per key: every stream needs a key; the dataset's keys are few, so
    # the places are lifted for the run by keys made for it.
    keys = await _stream_keys(ctx, key, streams)
    tasks = [
        asyncio.create_task(
            _read_stream(
                host, int(port), path, keys[i], ingest, latencies, opened, stop, all_open, streams
            )
        )
        for i in range(streams)
    ]
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(all_open.wait(), 60)
    await asyncio.sleep(1.0)
    rss = _rss_kb(pid) - before
    latencies.clear()
    await asyncio.gather(
        ingest.run(others, rate, seconds, track=False),
        ingest.run(watched, PROBES_PER_S, seconds, track=True),
    )
    await asyncio.sleep(1.0)
    lat = percentiles(latencies)
    with_streams = await asyncio.to_thread(
        run_wrk, base_url, files[1], connections=16, threads=1, duration=seconds
    )
    stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    ratio_row = measure(
        f"ingest uplinks/s with {opened[0]} streams open vs none (wrk, 16 conns)",
        with_streams.rps,
        "uplinks/s",
        group="live",
        floor=alone.rps,
        floor_name="ingest with no stream open",
        min_ratio=0.9,
        details=with_streams.details("ingest with streams"),
    )
    return [
        _extra_rss(
            f"{opened[0]} streams of {len(watched)} devices on one worker",
            rss,
            before,
            100,
            streams=streams,
            opened=opened[0],
        ),
        _probe_p99(
            f"stream probe -> event p99, {opened[0]} streams, {rate} uplinks/s ingested",
            lat,
            ingest,
            events=len(latencies),
        ),
        ratio_row,
    ]


async def _stream_keys(ctx: Context, like: str, count: int) -> list[str]:
    """`count / 10` keys of the same tenancy as `like` (created in the dataset's database
    by the admin command's SQL), each used by 10 streams."""
    import hashlib
    import uuid

    from testkit.databases import connect

    connection = await connect(ctx.database_url)
    try:
        row = await connection.fetchrow(
            "SELECT partner_id, sub_account_id, scopes FROM api_keys WHERE key_hash = $1",
            hashlib.sha256(like.encode()).digest(),
        )
        secrets_made = []
        for _ in range((count + 9) // 10):
            secret = "svc_live_bench" + secrets.token_hex(20)
            await connection.execute(
                "INSERT INTO api_keys (id, partner_id, sub_account_id, name, key_hash, scopes)"
                " VALUES ($1, $2, $3, 'bench live', $4, $5)",
                uuid.uuid4(),
                row["partner_id"],
                row["sub_account_id"],
                hashlib.sha256(secret.encode()).digest(),
                row["scopes"],
            )
            secrets_made.append(secret)
    finally:
        await connection.close()
    return [secrets_made[i // 10] for i in range(count)]


def _ingest_file(ctx: Context, gateways: dict[str, str], name: str) -> Path:
    """A wrk file of distinct uplinks over every device (a run never wraps around)."""
    count = int(max(4 * RATE * max(ctx.duration, 5.0), 5000))
    run_id = secrets.token_hex(4)
    lines = []
    for index in range(count):
        device = ctx.manifest.devices[index % len(ctx.manifest.devices)]
        body = chirpstack_uplink(
            device, index, run_id, datetime.now(UTC), gateways.get(device.partner_id, "0" * 16)
        )
        token = ctx.manifest.tokens[device.partner_id]
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        lines.append(Request("POST", "/ingest/chirpstack?event=up", headers, body.decode()))
    return write_requests(ctx.work_dir / f"live-ingest-{name}.txt", lines)


def run(ctx: Context) -> list[Measure]:
    out = _fleet(ctx)
    gateways = asyncio.run(partner_gateways(ctx.database_url))
    with start_server(ctx.database_url, workers=1) as server:
        out += asyncio.run(_long_polls(ctx, server.base_url, server.process.pid))
    files = (_ingest_file(ctx, gateways, "alone"), _ingest_file(ctx, gateways, "streams"))
    with start_server(ctx.database_url, workers=1) as server:
        out += asyncio.run(_streams(ctx, server.base_url, server.process.pid, files))
    return out


if __name__ == "__main__":
    raise SystemExit(module_main(run))
