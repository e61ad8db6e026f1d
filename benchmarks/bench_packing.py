"""The packing job: how fast does it pack a closed week, and merge late readings into it?

Our compression and continuous aggregates are one job (`pack_closed_chunks`,
schema/definitions/035-packing.sql, run by every worker's maintenance loop): it turns a
closed weekly raw chunk into packed rows with their daily rollups and hourly partials and
drops the chunk, in one transaction. Live ingest writes raw rows only, so this job is the
whole cost of materializing what ingest leaves behind; it must keep up with ingest by a
wide margin.

In a scratch database (`bench_packing`, recreated each run): one closed week of readings
of the dataset's number of devices, 4 numeric series and 1 string series each, every 15
minutes, a few seconds of jitter per device, inserted raw, then
- packed: `pack_closed_chunks(interval '0')` timed; readings/s;
- merged: one late reading per series inserted into the packed week, packed again
  (every packed row of the week is rewritten with its partials); late readings/s and
  packed rows rewritten/s.
Each step checks what it did: no raw row left in the week, every reading packed once.

Run alone: `python -m benchmarks.bench_packing [--quick]`.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from benchmarks.common import Context, Measure, measure, module_main
from testkit.databases import connect

GROUP = "packing"
DATABASE = "bench_packing"

RAW_WEEK = """
INSERT INTO readings_num (device_num, field_num, time, value, site_num)
SELECT d, f, t + (d % 60) * interval '1 second', round((random() * 100)::numeric, 2)::float8,
       1 + d % 3
  FROM generate_series($1::timestamptz, $1::timestamptz + interval '7 days' - interval '1 s',
                       interval '15 minutes') t,
       generate_series(1, $2::integer) d, generate_series(1, 4) f
"""
RAW_WEEK_OTHER = """
INSERT INTO readings_other (device_num, field_num, time, value, site_num)
SELECT d, 5, t + (d % 60) * interval '1 second',
       to_jsonb((ARRAY['ok', 'low_battery', 'alarm'])[1 + (extract(hour FROM t)::int % 3)]),
       1 + d % 3
  FROM generate_series($1::timestamptz, $1::timestamptz + interval '7 days' - interval '1 s',
                       interval '15 minutes') t,
       generate_series(1, $2::integer) d
"""
LATE_NUM = """
INSERT INTO readings_num (device_num, field_num, time, value, site_num)
SELECT d, f, $1::timestamptz + interval '3 days 7 minutes', 42.5, 1 + d % 3
  FROM generate_series(1, $2::integer) d, generate_series(1, 4) f
"""
LATE_OTHER = """
INSERT INTO readings_other (device_num, field_num, time, value, site_num)
SELECT d, 5, $1::timestamptz + interval '3 days 7 minutes', '"late"', 1 + d % 3
  FROM generate_series(1, $2::integer) d
"""
HELD = """
SELECT (SELECT count(*) FROM readings_num) + (SELECT count(*) FROM readings_other) AS raw,
       (SELECT COALESCE(sum(n), 0) FROM packed_num)
     + (SELECT COALESCE(sum(n), 0) FROM packed_other) AS packed,
       (SELECT count(*) FROM packed_num) + (SELECT count(*) FROM packed_other) AS rows
"""


async def _pack(connection: Any) -> float:
    began = time.perf_counter()
    async with connection.transaction():
        packed = await connection.fetchval("SELECT pack_closed_chunks(interval '0')")
    seconds = time.perf_counter() - began
    if not packed:
        raise RuntimeError("the packing job packed no chunk")
    return seconds


async def run(ctx: Context) -> list[Measure]:
    from testkit.databases import scratch_database

    devices = 20 if ctx.quick else len(ctx.manifest.devices)
    url = await asyncio.to_thread(scratch_database, DATABASE, fresh=True)
    connection = await connect(url)
    try:
        await connection.execute("SET statement_timeout = 0")
        week = await connection.fetchval("SELECT packed_period(now()) - interval '28 days'")
        await connection.execute(RAW_WEEK, week, devices)
        await connection.execute(RAW_WEEK_OTHER, week, devices)
        await connection.execute("ANALYZE")
        inserted = (await connection.fetchrow(HELD))["raw"]
        pack_seconds = await _pack(connection)
        held = await connection.fetchrow(HELD)
        if (held["raw"], held["packed"]) != (0, inserted):
            raise RuntimeError(f"packed {dict(held)} of {inserted} readings")

        await connection.execute(LATE_NUM, week, devices)
        await connection.execute(LATE_OTHER, week, devices)
        late = devices * 5
        merge_seconds = await _pack(connection)
        merged = await connection.fetchrow(HELD)
        if (merged["raw"], merged["packed"]) != (0, inserted + late):
            raise RuntimeError(f"merged {dict(merged)} of {inserted + late} readings")
    finally:
        await connection.close()
    details = {"devices": devices, "series": devices * 5, "week": str(week.date())}
    return [
        measure(
            "packing job: a closed week packed, partials included",
            inserted / pack_seconds,
            "readings/s",
            group=GROUP,
            details=details | {"readings": inserted, "seconds": round(pack_seconds, 3)},
        ),
        measure(
            "packing job: late readings merged into packed weeks",
            held["rows"] / merge_seconds,
            "packed rows rewritten/s",
            group=GROUP,
            details=details
            | {
                "late readings": late,
                "packed rows": held["rows"],
                "seconds": round(merge_seconds, 3),
            },
        ),
    ]


if __name__ == "__main__":
    raise SystemExit(module_main(run))
