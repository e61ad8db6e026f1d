"""readings_<kind>_newest (schema/definitions/035-packing.sql), the raw history read, against
its definition: every reading of the range (raw rows and packed weeks, readings_<kind>_in)
sorted newest first (ties: greatest value, then site) and cut at the limit. It unpacks
only the newest readings a packed week can add, so it is checked where that bound is
tight: limits from 1 to more than the series holds, ranges ending inside a packed week or
on a week's edge, site filters, two sites in one week, equal times, irregular runs, and
late raw rows inside packed weeks.

Everything happens in one transaction that is rolled back (the packing function packs
every series of the range, so nothing it writes may outlive the test)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg

# Weeks of packed_period are aligned on the Unix epoch (a Thursday); 2001-01-04 is one.
WEEK0 = datetime(2001, 1, 4, tzinfo=UTC)
WEEKS = 5  # four packed weeks, then the "open" one, raw
DEVICE = 987_001
FIELD = 3
LIMITS = (1, 2, 7, 60, 500, 700, 5000)

INSERT = {
    "num": "INSERT INTO readings_num (device_num, field_num, time, value, site_num)"
    " VALUES ($1, $2, $3, $4, $5)",
    "other": "INSERT INTO readings_other (device_num, field_num, time, value, site_num)"
    " VALUES ($1, $2, $3, $4::jsonb, $5)",
}
EXPECTED = """
SELECT r.time, r.value, r.site_num
  FROM readings_{kind}_in($1, $2, $3, $4, $5) r
 ORDER BY r.time DESC, r.value DESC, r.site_num DESC
 LIMIT $6"""
NEWEST = "SELECT times, values, sites FROM readings_{kind}_newest($1, $2, $3, $4, $5, $6)"


def readings(rng: random.Random, kind: str) -> list[tuple[datetime, Any, int]]:
    """Five weeks of one series: every 15 minutes at site 1 then 2 (both in week 2),
    an irregular week, equal times with different values and sites."""
    rows: list[tuple[datetime, Any, int]] = []

    def value() -> Any:
        v = round(rng.uniform(-5, 30), 1)
        return v if kind == "num" else f'"{v}"'

    for step in range(WEEKS * 7 * 96):
        t = WEEK0 + timedelta(minutes=15 * step)
        week = step // (7 * 96)
        if week == 1 and rng.random() < 0.3:
            continue  # gaps: runs of other lengths
        if week == 3:
            t += timedelta(seconds=rng.randint(0, 599), microseconds=rng.choice([0, 250_000]))
        site = 1 if week < 2 else 2
        rows.append((t, value(), site))
        if week == 2 and step % 5 == 0:
            rows.append((t + timedelta(minutes=7), value(), 1))  # the other site, same week
        if step % 97 == 0:
            rows.append((t, value(), site))  # an equal time
            rows.append((t, value(), 3 - site))
    return rows


async def load(connection: asyncpg.Connection, kind: str, rng: random.Random) -> None:
    await connection.executemany(
        INSERT[kind], [(DEVICE, FIELD, t, v, s) for t, v, s in readings(rng, kind)]
    )
    packed_until = WEEK0 + timedelta(days=7 * (WEEKS - 1))
    await connection.execute(f"SELECT pack_range_{kind}($1, $2)", WEEK0, packed_until)
    await connection.execute(
        f"DELETE FROM readings_{kind} WHERE device_num = $1 AND time < $2", DEVICE, packed_until
    )
    # Late readings: raw rows inside packed weeks, one on a packed reading's time.
    late = [
        (WEEK0 + timedelta(days=rng.uniform(0, 7 * (WEEKS - 1))), 1 if rng.random() < 0.5 else 2)
        for _ in range(25)
    ]
    late.append((WEEK0 + timedelta(days=7 * 3 - 1), 2))
    for t, site in late:
        v = round(rng.uniform(-5, 30), 1)
        await connection.execute(
            INSERT[kind], DEVICE, FIELD, t, v if kind == "num" else f'"{v}"', site
        )


def ranges(rng: random.Random) -> list[tuple[datetime, datetime]]:
    end = WEEK0 + timedelta(days=7 * WEEKS)
    edges = [WEEK0 + timedelta(days=7 * w) for w in range(1, WEEKS)]
    inside = [WEEK0 + timedelta(days=rng.uniform(0.2, 7 * WEEKS - 0.2)) for _ in range(6)]
    tos = [end, *edges, *inside]
    return [
        (start, to)
        for to in tos
        for start in (WEEK0 - timedelta(days=1), to - timedelta(days=rng.uniform(0.1, 12)))
        if start < to
    ]


async def check(connection: asyncpg.Connection, kind: str, rng: random.Random) -> int:
    expected = await connection.prepare(EXPECTED.format(kind=kind))
    newest = await connection.prepare(NEWEST.format(kind=kind))
    compared = 0
    for start, to in ranges(rng):
        for site in (None, 1, 2):
            for limit in LIMITS:
                args = (DEVICE, FIELD, start, to, site)
                want = [tuple(r) for r in await expected.fetch(*args, limit)]
                got = await newest.fetchrow(*args, limit)
                rows = list(zip(*(got[c] or [] for c in ("times", "values", "sites")), strict=True))
                assert rows == want, (kind, start, to, site, limit)
                compared += len(want)
    return compared


async def test_newest_readings_equal_the_sorted_readings_cut_at_the_limit(
    pool: asyncpg.Pool,
) -> None:
    rng = random.Random(17)
    async with pool.acquire() as connection:
        transaction = connection.transaction()
        await transaction.start()
        try:
            await connection.execute("SET LOCAL statement_timeout = 0")
            for kind in ("num", "other"):
                await load(connection, kind, rng)
                # Four packed weeks, each holding both sites, and late raw rows among them.
                packed = await connection.fetchval(
                    f"SELECT count(*) FROM packed_{kind} WHERE device_num = $1", DEVICE
                )
                late = await connection.fetchval(
                    f"SELECT count(*) FROM readings_{kind} WHERE device_num = $1 AND time < $2",
                    DEVICE,
                    WEEK0 + timedelta(days=7 * (WEEKS - 1)),
                )
                assert (packed, late) == (2 * (WEEKS - 1), 26)
                assert await check(connection, kind, rng) > 50_000
        finally:
            await transaction.rollback()
