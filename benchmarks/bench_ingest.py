"""POST /ingest/chirpstack: uplinks/s through the HTTP ingest endpoint, none lost.

`telemetry serve --workers 2` on the dataset; wrk (one thread, so no request line is sent
twice) replays a file of distinct ChirpStack v4 `up` events, JSON as ChirpStack's HTTP
integration posts it: 4 decoded fields (the dataset profile's temperature, humidity,
battery and status), one receiving gateway, a unique `deduplicationId`, spread
round-robin over every device of the dataset. Each run is bounded by wrk's duration and
per-request timeout (5 s, ChirpStack's own), and by the number of lines in the file.

The uplinks are current, as a live fleet's are: each run's times start just before it
starts, 100 us apart, after those of any earlier run, so every uplink is the newest of its
device (its lastSeenAt, presence and /latest body move, its gateway's lastSeenAt too).
A late uplink is cheaper (it moves none of these), so times hours old, which uplinks were
once given, measured something lighter than live ingest whenever they fell before the
dataset's last readings.

Afterwards it verifies that nothing was lost: every request answered 204 was committed
(its deduplicationId is in `ingest_dedup`, and its readings exist), and none failed.
Target: >= 5,000 uplinks/s of 4 fields (issue 17). Each 204 means one committed transaction
(synchronous commit on), so the figure is bounded by commit flushes and by what each
uplink writes: 5 raw readings (4 fields + signal quality; no rollups, which the packing
job materialises later), device state with the recomputed /latest body, the dedup row, the
gateway, the device's presence. Concurrent uplinks are grouped into one transaction per
batch (app/ingest/batch.py). On the S dataset every device gets several uplinks a
second (50 devices), far more than real sensors, so uplinks of one device queue behind
each other's row locks; a real fleet spreads them.

Run alone (after `telemetry bench generate --scale S`):
`python -m benchmarks.bench_ingest [--quick]`.
"""

from __future__ import annotations

import asyncio
import secrets
from datetime import UTC, datetime, timedelta

from benchmarks.common import (
    Context,
    Measure,
    measure,
    migrate_dataset,
    module_main,
    run_wrk,
    write_requests,
)
from benchmarks.uplinks import UPLINK_SPACING, partner_gateways, uplink_requests
from testkit.databases import connect

TARGET = 5000.0


async def _stored(database_url: str, run_id: str, start: datetime, count: int) -> tuple[int, int]:
    """(distinct uplinks committed, their raw readings) of this run."""
    connection = await connect(database_url)
    try:
        uplinks = await connection.fetchval(
            "SELECT count(*) FROM ingest_dedup WHERE deduplication_id LIKE $1",
            f"up:bench-{run_id}-%",
        )
        readings = await connection.fetchval(
            "SELECT count(*) FROM readings_num WHERE time >= $1 AND time < $2",
            start,
            start + count * UPLINK_SPACING,
        )
    finally:
        await connection.close()
    return int(uplinks), int(readings)


def run(ctx: Context) -> list[Measure]:
    migrate_dataset(ctx.database_url)
    base_url = ctx.server()
    gateways = asyncio.run(partner_gateways(ctx.database_url))
    out: list[Measure] = []
    for connections in ctx.connections[:2]:
        run_id = secrets.token_hex(4)
        # Enough distinct lines that wrk never wraps around at twice the target rate.
        count = int(max(2 * TARGET * ctx.duration, 5000))
        # In a window of this run's own, all distinct, ending a second before now: the
        # window is shorter than a run, so it starts after the previous run's ended.
        start = datetime.now(UTC) - count * UPLINK_SPACING - timedelta(seconds=1)
        path = write_requests(
            ctx.work_dir / f"ingest-{connections}.txt",
            uplink_requests(ctx, run_id, count, gateways, start),
        )
        result = run_wrk(base_url, path, connections=connections, threads=1, duration=ctx.duration)
        stored, readings = asyncio.run(_stored(ctx.database_url, run_id, start, count))
        answered = result.requests - result.bad_status
        lost = max(answered - stored, 0)
        out.append(
            measure(
                f"POST /ingest/chirpstack up (4 fields) @{connections} conns",
                result.rps,
                "uplinks/s",
                group="ingest",
                min_value=TARGET,
                details=result.details(
                    "ingest up",
                    max_ms=result.max_ms,
                    lines=count,
                    wrapped=result.requests > count,
                    committed=stored,
                    lost=lost,
                    raw_readings_written=readings,
                ),
            )
        )
        if lost or result.bad_status or result.requests > count:
            raise RuntimeError(
                f"ingest lost uplinks: {answered} answered 2xx, {stored} committed, "
                f"{result.bad_status} failed, {result.requests} of {count} lines"
            )
    return out


if __name__ == "__main__":
    raise SystemExit(module_main(run))
