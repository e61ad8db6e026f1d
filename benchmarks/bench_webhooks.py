"""Webhooks: what the outbox costs ingest, and whether delivery keeps up with it.

`telemetry serve --workers 2` on the dataset with its dispatcher, and one webhook
endpoint per partner of the dataset (events `device.uplink`) pointing at a local receiver
that answers 204 at once (an asyncio HTTP/1.1 server in this process, keep-alive, that
only notes each request's `webhook-id` and arrival time).

1. Uplinks/s with and without an enabled endpoint, same run: wrk replays distinct
   ChirpStack `up` events (benchmarks/bench_ingest.py's requests) first with the
   endpoints disabled (ingest pays the cheap check only), then enabled.
2. Delivery under full ingest, from the enabled run: events/s delivered while wrk ran,
   their ratio to uplinks/s stored (1.0 = keeps up), the backlog when wrk stopped and how
   long it took to drain; latency from the ingest transaction to the first attempt, p50
   and p99 (the event row's `created_at`, the transaction's start, to its arrival at the
   receiver: an upper bound on commit -> attempt).
3. The same latency at rest: one uplink at a time, 20 ms apart.

Targets: delivery keeps up (ratio >= 0.95, backlog drains), p50 commit -> first attempt
under 1 s under full ingest and at rest. Run alone: `python -m benchmarks.bench_webhooks`.
The endpoints are deleted at the end (with their messages); events stay in the outbox
until the 30-day purge, like any other.
"""

from __future__ import annotations

import asyncio
import re
import secrets
import threading
import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from benchmarks.common import (
    Context,
    Latency,
    Measure,
    measure,
    migrate_dataset,
    module_main,
    percentiles,
    run_wrk,
    write_requests,
)
from benchmarks.uplinks import partner_gateways, uplink_requests
from testkit.databases import connect
from testkit.processes import start_server

_LENGTH = re.compile(rb"(?im)^content-length:\s*(\d+)")
_ID = re.compile(rb"(?im)^webhook-id:\s*(\S+)")
NO_CONTENT = b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n\r\n"


class Receiver:
    """A 204-at-once receiver on a loopback port, in a thread with its own loop."""

    def __init__(self) -> None:
        self.arrivals: dict[str, float] = {}
        self.count = 0
        self.port = 0
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        threading.Thread(target=self._run, daemon=True).start()
        self._ready.wait(10)

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        receiver = self

        class Protocol(asyncio.Protocol):
            def connection_made(self, transport: Any) -> None:
                self.transport = transport
                self.buffer = b""

            def data_received(self, data: bytes) -> None:
                self.buffer += data
                while True:
                    end = self.buffer.find(b"\r\n\r\n")
                    if end < 0:
                        return
                    head = self.buffer[:end]
                    length_match = _LENGTH.search(head)
                    length = int(length_match.group(1)) if length_match else 0
                    if len(self.buffer) < end + 4 + length:
                        return
                    found = _ID.search(head)
                    if found:
                        receiver.arrivals.setdefault(found.group(1).decode(), time.time())
                    receiver.count += 1
                    self.buffer = self.buffer[end + 4 + length :]
                    self.transport.write(NO_CONTENT)

        server = loop.run_until_complete(loop.create_server(Protocol, "127.0.0.1", 0))
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        loop.run_forever()

    def close(self) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)


async def _endpoints(database_url: str, url: str, state: str) -> list[uuid.UUID]:
    """One endpoint per partner of the dataset (device.uplink only)."""
    connection = await connect(database_url)
    try:
        partners = [r["id"] for r in await connection.fetch("SELECT id FROM partners")]
        ids = [uuid.uuid4() for _ in partners]
        secret = "whsec_" + "QkVOQ0hCRU5DSEJFTkNIQkVOQ0hCRU5DSEJFTkNI"
        await connection.executemany(
            "INSERT INTO webhook_endpoints (id, partner_id, url, event_types, secret, state)"
            " VALUES ($1, $2, $3, '{device.uplink}', $4, $5)",
            [(i, p, url, secret, state) for i, p in zip(ids, partners, strict=True)],
        )
    finally:
        await connection.close()
    return ids


async def _execute(database_url: str, sql: str, *args: Any) -> Any:
    connection = await connect(database_url)
    try:
        return await connection.fetch(sql, *args)
    finally:
        await connection.close()


async def _latencies(database_url: str, since: datetime, arrivals: dict[str, float]) -> list[float]:
    rows = await _execute(
        database_url,
        "SELECT id, created_at FROM webhook_events"
        " WHERE created_at >= $1 AND type = 'device.uplink'",
        since,
    )
    return [arrivals[r["id"]] - r["created_at"].timestamp() for r in rows if r["id"] in arrivals]


async def _pending(database_url: str, endpoints: list[uuid.UUID]) -> int:
    rows = await _execute(
        database_url,
        "SELECT count(*) AS n FROM webhook_messages WHERE endpoint_id = ANY ($1)"
        " AND state = 'pending'",
        endpoints,
    )
    return int(rows[0]["n"])


def _at_rest(ctx: Context, base_url: str, count: int) -> datetime:
    """Posts `count` uplinks one at a time, 20 ms apart; returns when it started."""
    started = datetime.now(UTC)
    run_id = secrets.token_hex(4)
    gateways = asyncio.run(partner_gateways(ctx.database_url))
    requests = uplink_requests(ctx, run_id, count, gateways, started - timedelta(minutes=5))
    with httpx.Client(base_url=base_url, timeout=10) as client:
        for request in requests:
            answer = client.post(request.path, content=request.body, headers=request.headers)
            if answer.status_code != 204:
                raise RuntimeError(f"ingest answered {answer.status_code}: {answer.text[:200]}")
            time.sleep(0.02)
    return started


def _latency_measures(when: str, latency: Latency) -> list[Measure]:
    """The p50 (bounded at 1 s) and p99 from an ingest transaction to its first attempt."""
    name = f"ingest transaction -> first attempt {when}"
    return [
        measure(
            f"{name}, p50",
            latency.p50_ms,
            "ms",
            group="webhooks",
            higher_is_better=False,
            max_value=1000,
            details={"p99_ms": latency.p99_ms, "max_ms": latency.max_ms},
        ),
        measure(f"{name}, p99", latency.p99_ms, "ms", group="webhooks", higher_is_better=False),
    ]


def run(ctx: Context) -> list[Measure]:
    migrate_dataset(ctx.database_url)
    receiver = Receiver()
    url = f"http://127.0.0.1:{receiver.port}/hook"
    endpoints = asyncio.run(_endpoints(ctx.database_url, url, "disabled"))
    server = start_server(
        ctx.database_url,
        workers=2,
        env={
            "TELEMETRY_WEBHOOK_DISPATCHER": "1",
            "TELEMETRY_WEBHOOKS_ALLOW_PRIVATE": "1",
            "TELEMETRY_WEBHOOK_CONCURRENCY": "32",
        },
    )
    gateways = asyncio.run(partner_gateways(ctx.database_url))
    out: list[Measure] = []
    try:
        connections = ctx.connections[0]
        count = int(max(2 * 3000 * ctx.duration, 5000))
        rates: dict[str, float] = {}
        for label, state in (("without", "disabled"), ("with", "enabled")):
            asyncio.run(
                _execute(
                    ctx.database_url,
                    "UPDATE webhook_endpoints SET state = $2 WHERE id = ANY ($1)",
                    endpoints,
                    state,
                )
            )
            run_id = secrets.token_hex(4)
            start = datetime.now(UTC) - timedelta(hours=3) + timedelta(minutes=len(rates) * 30)
            path = write_requests(
                ctx.work_dir / f"webhooks-{label}.txt",
                uplink_requests(ctx, run_id, count, gateways, start),
            )
            wrk_started = datetime.now(UTC)
            arrived_before = receiver.count
            result = run_wrk(
                server.base_url, path, connections=connections, threads=1, duration=ctx.duration
            )
            rates[label] = result.rps
            if result.bad_status or result.requests > count:
                raise RuntimeError(f"ingest failed: {result.bad_status} bad of {result.requests}")
            if state == "enabled":
                delivered_during = receiver.count - arrived_before
                backlog = asyncio.run(_pending(ctx.database_url, endpoints))
                drain_started = time.monotonic()
                while asyncio.run(_pending(ctx.database_url, endpoints)) and (
                    time.monotonic() - drain_started < 120
                ):
                    time.sleep(0.5)
                drain_s = time.monotonic() - drain_started
                left = asyncio.run(_pending(ctx.database_url, endpoints))
                events_rate = delivered_during / ctx.duration
                out.append(
                    measure(
                        f"webhook events delivered under full ingest @{connections} conns",
                        events_rate,
                        "events/s",
                        group="webhooks",
                        floor=result.rps,
                        floor_name="uplinks/s stored",
                        min_ratio=0.95,
                        details={
                            "backlog_at_end": backlog,
                            "drain_s": round(drain_s, 2),
                            "left_after_drain": left,
                            "uplinks": result.requests,
                        },
                    )
                )
                latency = percentiles(
                    asyncio.run(_latencies(ctx.database_url, wrk_started, receiver.arrivals))
                )
                out += _latency_measures("under full ingest", latency)
        out.append(
            measure(
                f"uplinks/s with an enabled endpoint @{connections} conns",
                rates["with"],
                "uplinks/s",
                group="webhooks",
                floor=rates["without"],
                floor_name="uplinks/s without (cheap check only)",
                details={"without": rates["without"]},
            )
        )
        rest_started = _at_rest(ctx, server.base_url, 50 if ctx.quick else 200)
        time.sleep(1.0)
        rest = percentiles(
            asyncio.run(_latencies(ctx.database_url, rest_started, receiver.arrivals))
        )
        out += _latency_measures("at rest", rest)
    finally:
        server.stop()
        receiver.close()
        asyncio.run(
            _execute(
                ctx.database_url, "DELETE FROM webhook_endpoints WHERE id = ANY ($1)", endpoints
            )
        )
    return out


if __name__ == "__main__":
    raise SystemExit(module_main(run))
