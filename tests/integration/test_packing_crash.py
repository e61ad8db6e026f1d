"""Packing under kill -9 (issue 17): a kill -9 during compaction or refresh loses and
duplicates nothing.

The packing job (`telemetry retention run --pack`, schema/definitions/035-packing.sql) moves
each closed weekly chunk of raw readings into packed rows and rewrites the daily rollups of
the days it touches (the refresh of our continuous aggregate) in one transaction per chunk.
Here it runs as users run it, a subprocess over several closed weeks of a few devices, and
is killed with SIGKILL while it packs a chunk, after at least one chunk was committed:

- the client process (the backend then finishes its statement, finds the client gone and
  rolls the transaction back);
- the PostgreSQL backend doing the packing (the postmaster then restarts every backend and
  recovers from the WAL).

After each kill, and again after the packing is run to completion, every reading is read
back through readings_<kind>_in (raw and packed alike) and compared, as a multiset, with a
plain copy written before the packing (`oracle_<kind>`, never packed); the daily rollups
must equal a daily aggregate of the packed readings, row for row. The second test first
packs everything, then adds late readings to every packed week, so that the killed pass is
the one that merges late readings into packed rows.

A backend kill restarts the whole cluster, so the module runs on a private one (the
fault-injection module's, tests/support/private_cluster.py), never on the suite's.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import time
from collections.abc import AsyncIterator
from datetime import datetime, timedelta

import asyncpg
import pytest

from app.core.config import PROJECT_ROOT
from tests.support import private_cluster
from tests.support.cli import TELEMETRY
from tests.support.packing import (
    CLOSED_RAW_CHUNKS,
    HOURS_MISMATCHES_NUM,
    HOURS_MISMATCHES_OTHER,
    ROLLUP_MISMATCHES_NUM,
    ROLLUP_MISMATCHES_OTHER,
)

# The private cluster of the fault-injection module (a module-scoped fixture: one per module).
cluster = private_cluster.cluster

# Enough readings (a minute apart, 3 devices x 3 fields) that packing a weekly chunk takes
# a good fraction of a second, so that the kill lands while a chunk is being packed; two
# closed weeks make four chunks, one committed before the kill and more after it.
DEVICES = 3
NUM_FIELDS = (1, 2)
OTHER_FIELD = 3
CLOSED_WEEKS = 2

# Readings of [$1, $2) a minute apart per series, some a few milliseconds off the minute
# (irregular runs of times), some doubled at the same time with another value (ties), each
# device changing site on the way (several packed rows per series and week). Values are
# multiples of 1/8: their sums are exact in any order. Batch $3; the readings tables are
# filled from this plain copy.
ORACLE = """
INSERT INTO oracle_{kind} (batch, device_num, field_num, time, value, site_num)
SELECT $3, d, f, x.t + (CASE WHEN x.g % 7 = 0 THEN x.g % 997 ELSE 0 END) * interval '1 ms',
       {value}, CASE WHEN x.g % 5000 < 2500 THEN d % 3 ELSE 1 + d % 2 END
  FROM generate_series(1, $4::integer) d, unnest($5::integer[]) f,
       generate_series($1::timestamptz, $2::timestamptz - interval '1 us', $6::interval)
           WITH ORDINALITY AS x (t, g),
       generate_series(1, CASE WHEN x.g % 101 = 0 THEN 2 ELSE 1 END) dup
"""
NUM_VALUE = "(floor(random() * 80000) - 40000) / 8.0"
OTHER_VALUE = """CASE WHEN x.g % 5 = 0 THEN to_jsonb(x.g)
            ELSE to_jsonb((ARRAY['ok', 'low_battery', 'alarm'])[1 + (x.g + dup) % 3]) END"""

# Every reading the service can read, against the plain copy: (missing, extra, read, held).
# `held` counts raw rows plus packed readings, so nothing outside the copy's series escapes.
MULTISET = """
WITH series AS (SELECT DISTINCT device_num, field_num FROM oracle_{kind}),
stored AS MATERIALIZED (
    SELECT s.device_num, s.field_num, r.time, r.value, r.site_num
      FROM series s CROSS JOIN LATERAL readings_{kind}_in(s.device_num, s.field_num, $1, $2) r),
expected AS (SELECT device_num, field_num, time, value, site_num FROM oracle_{kind})
SELECT (SELECT count(*) FROM (SELECT * FROM expected EXCEPT ALL SELECT * FROM stored) m),
       (SELECT count(*) FROM (SELECT * FROM stored EXCEPT ALL SELECT * FROM expected) e),
       (SELECT count(*) FROM stored),
       (SELECT count(*) FROM readings_{kind}) + (SELECT COALESCE(sum(n), 0) FROM packed_{kind})
"""


# The backend running the packing job's statement (not this session's own query).
PACKING_BACKEND = """
SELECT pid FROM pg_stat_activity
 WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active'
   AND query LIKE '%pack_closed_chunks(%'
"""


@pytest.fixture()
async def db(cluster: private_cluster.Cluster) -> AsyncIterator[asyncpg.Connection]:
    """A connection to the private cluster, its readings emptied and the plain copies made."""
    connection = await asyncpg.connect(cluster.url)
    await connection.execute(
        "TRUNCATE readings_num, readings_other, packed_num, packed_other, rollup_day_num,"
        " rollup_day_other, packed_hours_num, packed_hours_other"
    )
    for kind in ("num", "other"):
        await connection.execute(
            f"DROP TABLE IF EXISTS oracle_{kind};"
            f" CREATE TABLE oracle_{kind} (batch integer, LIKE readings_{kind})"
        )
    try:
        yield connection
    finally:
        await connection.close()


async def add_readings(
    connection: asyncpg.Connection, batch: int, start: datetime, end: datetime, every: timedelta
) -> None:
    """Writes a batch of readings to the plain copies, then the same rows to the readings
    tables (bulk, as COPY or a late arrival would)."""
    for kind, value, fields in (
        ("num", NUM_VALUE, list(NUM_FIELDS)),
        ("other", OTHER_VALUE, [OTHER_FIELD]),
    ):
        await connection.execute(
            ORACLE.format(kind=kind, value=value), start, end, batch, DEVICES, fields, every
        )
        await connection.execute(
            f"INSERT INTO readings_{kind} (device_num, field_num, time, value, site_num)"
            f" SELECT device_num, field_num, time, value, site_num FROM oracle_{kind}"
            " WHERE batch = $1",
            batch,
        )


async def load_weeks(connection: asyncpg.Connection) -> datetime:
    """CLOSED_WEEKS closed weeks and the open week up to now, a minute apart; the start of
    the first week."""
    open_week = await connection.fetchval("SELECT packed_period(now())")
    start = open_week - timedelta(weeks=CLOSED_WEEKS)
    now = await connection.fetchval("SELECT now()")
    await add_readings(connection, 1, start, now, timedelta(minutes=1))
    return start


async def check_readings(connection: asyncpg.Connection, start: datetime) -> dict[str, int]:
    """Asserts that every reading of the plain copies is read exactly once and that the daily
    rollups and hourly partials equal the packed readings' days and hours; returns what
    lies where."""
    window = (start - timedelta(weeks=1), start + timedelta(weeks=CLOSED_WEEKS + 2))
    for kind in ("num", "other"):
        missing, extra, read, held = await connection.fetchrow(MULTISET.format(kind=kind), *window)
        copied = await connection.fetchval(f"SELECT count(*) FROM oracle_{kind}")
        assert (missing, extra) == (0, 0), f"{kind}: {missing} lost, {extra} extra or duplicated"
        assert read == held == copied, (kind, read, held, copied)
    assert await connection.fetchval(ROLLUP_MISMATCHES_NUM) == 0
    assert await connection.fetchval(ROLLUP_MISMATCHES_OTHER) == 0
    assert await connection.fetchval(HOURS_MISMATCHES_NUM) == 0
    assert await connection.fetchval(HOURS_MISMATCHES_OTHER) == 0
    return {
        "packed": await connection.fetchval(
            "SELECT (SELECT COALESCE(sum(n), 0) FROM packed_num)"
            " + (SELECT COALESCE(sum(n), 0) FROM packed_other)"
        ),
        "raw": await connection.fetchval(
            "SELECT (SELECT count(*) FROM readings_num) + (SELECT count(*) FROM readings_other)"
        ),
        "raw in the open week": await connection.fetchval(
            "SELECT (SELECT count(*) FROM readings_num WHERE time >= packed_period(now()))"
            " + (SELECT count(*) FROM readings_other WHERE time >= packed_period(now()))"
        ),
        "closed raw chunks": await connection.fetchval(CLOSED_RAW_CHUNKS),
    }


def packing_env(cluster: private_cluster.Cluster) -> dict[str, str]:
    return {**cluster.env, "DATABASE_URL": cluster.url, "TELEMETRY_PACK_AFTER_S": "0"}


def start_packing(cluster: private_cluster.Cluster) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [TELEMETRY, "retention", "run", "--pack"],
        cwd=PROJECT_ROOT,
        env=packing_env(cluster),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )


async def pack_to_completion(cluster: private_cluster.Cluster) -> str:
    done = await asyncio.to_thread(
        subprocess.run,
        [TELEMETRY, "retention", "run", "--pack"],
        cwd=PROJECT_ROOT,
        env=packing_env(cluster),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


async def mid_packing(
    connection: asyncpg.Connection, process: subprocess.Popen[bytes], closed_chunks: int
) -> int:
    """Waits until the job has committed at least one chunk and has two or more to go (so
    it cannot finish between this look and the kill); the pid of its backend."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert process.poll() is None, "the packing job ended before it could be killed"
        pid = await connection.fetchval(PACKING_BACKEND)
        if pid is not None:
            left = await connection.fetchval(CLOSED_RAW_CHUNKS)
            if 1 < left < closed_chunks:
                return int(pid)
        await asyncio.sleep(0.005)
    raise AssertionError("the packing job was never seen packing a second chunk")


async def gone(connection: asyncpg.Connection, pid: int) -> None:
    deadline = time.monotonic() + 60
    while await connection.fetchval("SELECT count(*) FROM pg_stat_activity WHERE pid = $1", pid):
        assert time.monotonic() < deadline, "the killed client's backend never ended"
        await asyncio.sleep(0.05)


async def test_kill_9_of_the_packing_job_loses_and_duplicates_nothing(
    cluster: private_cluster.Cluster, db: asyncpg.Connection
) -> None:
    start = await load_weeks(db)
    closed = await db.fetchval(CLOSED_RAW_CHUNKS)
    assert closed == 2 * CLOSED_WEEKS

    process = start_packing(cluster)
    try:
        backend = await mid_packing(db, process, closed)
        os.kill(process.pid, signal.SIGKILL)
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL
    # The backend finishes the statement it was running, then finds its client gone and
    # rolls the chunk's transaction back; nothing of it may show before or after.
    await gone(db, backend)
    killed = await check_readings(db, start)
    print(f"\nclient killed mid-packing: {killed}")
    assert killed["packed"] > 0 and killed["closed raw chunks"] > 0

    await pack_to_completion(cluster)
    after = await check_readings(db, start)
    print(f"packed to completion: {after}")
    # Every closed week packed, the open week still raw.
    assert after["closed raw chunks"] == 0
    assert after["raw"] == after["raw in the open week"] > 0


async def test_kill_9_of_the_packing_backend_loses_and_duplicates_nothing(
    cluster: private_cluster.Cluster, db: asyncpg.Connection
) -> None:
    start = await load_weeks(db)
    await pack_to_completion(cluster)
    # Late readings in every packed week of every series (and a few in the open week): the
    # next pass merges each into its packed rows and rewrites their days.
    now = await db.fetchval("SELECT now()")
    await add_readings(db, 2, start + timedelta(seconds=30), now, timedelta(hours=3))
    closed = await db.fetchval(CLOSED_RAW_CHUNKS)
    assert closed == 2 * CLOSED_WEEKS

    process = start_packing(cluster)
    try:
        backend = await mid_packing(db, process, closed)
        os.kill(backend, signal.SIGKILL)
        # The postmaster ends every backend (this session's too) and recovers.
        await db.close()
        await asyncio.to_thread(cluster.wait_ready, 60)
        await asyncio.to_thread(process.wait, 60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)
    output = process.stdout.read().decode() if process.stdout else ""
    assert process.returncode not in (0, -signal.SIGKILL), output

    connection = await asyncpg.connect(cluster.url)
    try:
        killed = await check_readings(connection, start)
        print(f"\nbackend killed mid-merge: {killed}")
        assert killed["closed raw chunks"] > 0
        assert killed["packed"] > 0 and killed["closed raw chunks"] < closed

        await pack_to_completion(cluster)
        after = await check_readings(connection, start)
        print(f"packed to completion: {after}")
        assert after["closed raw chunks"] == 0
        assert after["raw"] == after["raw in the open week"] > 0
    finally:
        await connection.close()


async def test_weeks_packed_without_hourly_partials_get_them_from_the_backfill(
    cluster: private_cluster.Cluster, db: asyncpg.Connection
) -> None:
    start = await load_weeks(db)
    await pack_to_completion(cluster)
    # A database packed before the hourly partials existed: the oldest week has none.
    removed = 0
    for kind in ("num", "other"):
        removed += len(
            await db.fetch(
                f"DELETE FROM packed_hours_{kind}"
                f" WHERE period = (SELECT min(period) FROM packed_hours_{kind}) RETURNING 1"
            )
        )
    assert removed > 0
    assert await db.fetchval(HOURS_MISMATCHES_NUM) > 0

    backfill = "SELECT fill_packed_hours_num('-infinity', 'infinity')"
    backfill += " + fill_packed_hours_other('-infinity', 'infinity')"
    assert await db.fetchval(backfill) == removed
    await check_readings(db, start)
    assert await db.fetchval(backfill) == 0


async def test_readings_count_equals_the_readings_read(
    cluster: private_cluster.Cluster, db: asyncpg.Connection
) -> None:
    """readings_<kind>_count (the export's size) counts from partials and unpacks only
    sub-hour edges: it must equal what readings_<kind>_in returns, over packed, raw and
    mixed weeks, for ranges on and off the hour and the week."""
    start = await load_weeks(db)
    await pack_to_completion(cluster)
    now = await db.fetchval("SELECT now()")
    await add_readings(db, 2, start + timedelta(seconds=30), now, timedelta(hours=3))
    rng = random.Random(17)
    checked = 0
    for _ in range(40):
        lo = start + timedelta(seconds=rng.choice([0, 1, 59, 3600, 86400, 7 * 86400 + 17]))
        lo += timedelta(seconds=rng.randint(0, 10 * 86400) // rng.choice([1, 3600]) * 3600)
        hi = lo + timedelta(seconds=rng.choice([30, 3600, 5000, 86400, 7 * 86400, 20 * 86400]))
        for kind in ("num", "other"):
            series = await db.fetch(f"SELECT DISTINCT device_num, field_num FROM oracle_{kind}")
            devices = [r["device_num"] for r in series]
            fields = [r["field_num"] for r in series]
            counted = await db.fetchval(
                f"SELECT readings_{kind}_count($1::integer[], $2::integer[], $3, $4)",
                devices,
                fields,
                lo,
                hi,
            )
            read = await db.fetchval(
                f"SELECT count(*) FROM unnest($1::integer[], $2::integer[]) AS s (d, f),"
                f" readings_{kind}_in(s.d, s.f, $3, $4) r",
                devices,
                fields,
                lo,
                hi,
            )
            assert counted == read, (kind, lo, hi)
            checked += counted > 0
    assert checked > 40
