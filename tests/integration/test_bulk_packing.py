"""The benchmark's client-side packer (benchmarks/packed.py) writes exactly what the
database's packing job writes: the same packed rows (runs of times, order of values) and
the same hourly partials and daily rollups, every column bit for bit (sums taken in
numeric, integral, increase, first and last readings, state durations), for the
benchmark's own readings loaded both ways (a counter field with resets, late readings off
the grid, a state field) and for irregular readings (equal times, uneven steps, single
readings, values of every magnitude) packed both ways."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import polars as pl
import pytest

from benchmarks.datasets import (
    INTERVAL_S,
    Layout,
    Scale,
    Series,
    _layout,
    _load_world,
    build_world,
    copy_binary,
    encode_num,
    load_readings,
    pack_closed,
    pack_other,
    plan_series,
)
from benchmarks.numeric_sums import numeric_sums
from benchmarks.packed import PERIOD_US, PackedSlice, pack_slice, time_runs
from testkit.databases import connect, drop_database, scratch_database

SCALE = Scale("PACK", devices=6, days=23, partners=1, sub_accounts_per_partner=2)
SEED = 6
# The battery drains, each step down a reset if it counted up: as a counter, nearly every
# hour of it holds resets, and its increase partials are written.
COUNTER = "battery"

# Packed rows and daily rollups keyed by the ids behind the numbers, so that two databases
# can be compared whatever numbers their sequences handed out.
PACKED = """
SELECT d.id::text AS device, COALESCE(f.id::text, '') AS field, COALESCE(s.id::text, '') AS site,
       k.period, k.n, k.offsets, k.steps, k.counts, k.values::text[] AS values
  FROM packed_{kind} k JOIN devices d ON d.num = k.device_num
  LEFT JOIN profile_fields f ON f.num = k.field_num LEFT JOIN sites s ON s.num = k.site_num
 ORDER BY 1, 2, 3, 4"""
# Every column of the partials, as the row's text less its numbers (device, field, site
# come first): float8 is written as its shortest exact decimal, -0 included (so equal
# text is equal bits; JSON would hold -0 as 0), and a column added later is compared
# without naming it.
PARTIALS = r"""
SELECT d.id::text AS device, COALESCE(f.id::text, '') AS field, COALESCE(s.id::text, '') AS site,
       p.{start} AS start,
       regexp_replace(p::text, '^\(([^,]*,){{3}}', '(') AS columns
  FROM {table} p JOIN devices d ON d.num = p.device_num
  LEFT JOIN profile_fields f ON f.num = p.field_num LEFT JOIN sites s ON s.num = p.site_num
 ORDER BY 1, 2, 3, 4"""
PARTIAL_TABLES = {
    "packed_hours_num": "period",
    "packed_hours_other": "period",
    "rollup_day_num": "bucket",
    "rollup_day_other": "bucket",
}
RAW = """
SELECT d.id::text AS device, COALESCE(f.id::text, '') AS field, r.time, r.value::text AS value
  FROM readings_{kind} r JOIN devices d ON d.num = r.device_num
  LEFT JOIN profile_fields f ON f.num = r.field_num
 ORDER BY 1, 2, 3, 4"""


def _series(now: datetime) -> Series:
    end = now.replace(minute=0, second=0, microsecond=0)
    start = end - timedelta(days=SCALE.days)
    return plan_series(SCALE.devices, start, SCALE.days * 86400 // INTERVAL_S, SEED)


async def _world(name: str) -> tuple[str, Layout]:
    """A fresh database with the scale's world, the COUNTER field a counter."""
    url = await asyncio.to_thread(scratch_database, name, fresh=True)
    plan = build_world(SCALE)
    await _load_world(url, plan.world)
    connection = await connect(url)
    try:
        await connection.execute(
            "UPDATE profile_fields SET measurement = 'counter' WHERE identifier = $1", COUNTER
        )
        layout = await _layout(connection, plan.devices)
    finally:
        await connection.close()
    assert len(layout.counters) >= 1
    return url, layout


@pytest.fixture(scope="module")
async def loaded() -> AsyncIterator[tuple[str, str, Series]]:
    """The same dataset loaded packed by the client and by the packing job."""
    names = [f"bench_bulkpack_{uuid.uuid4().hex[:8]}_{way}" for way in ("client", "job")]
    series = _series(datetime.now(UTC))
    try:
        urls = []
        for name, client_packing in zip(names, (True, False), strict=True):
            url, layout = await _world(name)
            report = await load_readings(
                url, series, layout, SEED, label=name, client_packing=client_packing
            )
            assert report.readings == int(series.present[:, :-1].sum()) * 5 + len(series.late) * 3
            urls.append(url)
        yield urls[0], urls[1], series
    finally:
        for name in names:
            await asyncio.to_thread(drop_database, name)


async def _fetch(url: str, query: str) -> list[dict[str, Any]]:
    connection = await connect(url)
    try:
        return [dict(r) for r in await connection.fetch(query)]
    finally:
        await connection.close()


def _late_in_closed_weeks(series: Series) -> int:
    now_us = datetime.now(UTC).timestamp() * 1_000_000
    closed = 0
    for _, step, offset in series.late:
        time_us = (series.start.timestamp() + step * INTERVAL_S + offset) * 1_000_000
        closed += time_us // PERIOD_US * PERIOD_US + PERIOD_US <= now_us
    return closed


async def test_bulk_packed_rows_equal_the_packing_jobs(
    loaded: tuple[str, str, Series],
) -> None:
    client, job, series = loaded
    # Late readings off the grid: the client packs those of closed weeks in their places,
    # the job merges them into the weeks it packed.
    assert _late_in_closed_weeks(series) > 0
    for kind in ("num", "other"):
        ours = await _fetch(client, PACKED.format(kind=kind))
        reference = await _fetch(job, PACKED.format(kind=kind))
        assert len(ours) >= SCALE.devices * 3  # three closed weeks of every series
        assert ours == reference
        assert any(len(r["counts"]) > 1 for r in ours)  # gaps and late readings: runs
        # The open week stays raw, equally in both.
        assert await _fetch(client, RAW.format(kind=kind)) == await _fetch(
            job, RAW.format(kind=kind)
        )
    packed = await _fetch(client, "SELECT sum(n) AS n FROM packed_num")
    raw = await _fetch(client, "SELECT count(*) AS n FROM readings_num")
    assert packed[0]["n"] + raw[0]["n"] == (
        int(series.present[:, :-1].sum()) * 4 + len(series.late) * 3
    )


@pytest.mark.parametrize("table", PARTIAL_TABLES)
async def test_bulk_partials_equal_the_packing_jobs(
    loaded: tuple[str, str, Series], table: str
) -> None:
    client, job, _ = loaded
    query = PARTIALS.format(table=table, start=PARTIAL_TABLES[table])
    ours, reference = await _fetch(client, query), await _fetch(job, query)
    assert len(ours) == len(reference) > SCALE.devices * 3
    assert ours == reference
    if table == "packed_hours_num":
        # The counter's resets are there to compare (the integrals of uneven hours are
        # compared on irregular readings below: a late reading is alone in its hour).
        counted = await _fetch(
            client,
            """SELECT count(*) FILTER (WHERE increase IS NULL) AS gauges,
                      count(*) FILTER (WHERE EXISTS (SELECT 1 FROM unnest(increase) x
                                                      WHERE x IS NOT NULL)) AS resets
                 FROM packed_hours_num""",
        )
        assert counted[0]["gauges"] > 0 and counted[0]["resets"] > 0
    if table == "packed_hours_other":
        mixed = await _fetch(
            client,
            """SELECT count(*) AS n FROM packed_hours_other, unnest(durations) x
                WHERE x IS NOT NULL AND x <> '{}'""",
        )
        assert mixed[0]["n"] > 0
    every_hour = "SELECT sum(x) AS n FROM packed_hours_num, unnest(n) x"
    assert await _fetch(client, every_hour) == await _fetch(
        client, "SELECT sum(n) AS n FROM packed_num"
    )


def _irregular(device: int, rng: np.random.Generator, fields: list[int]) -> pl.DataFrame:
    """Readings of a few series over two old weeks: uneven steps, runs of equal steps,
    equal times with different values, series of one or two readings, and values from
    small integers (with resets, for a counter) to every magnitude (sums past 2**53 and
    past float8's exact range, which the client sums otherwise)."""
    base = int(datetime(2024, 3, 4, tzinfo=UTC).timestamp()) * 1_000_000
    rows: list[tuple[int, int, int, float, int]] = []
    for i, field in enumerate(fields):
        count = [1, 2, 3, 40, 400, 900, 300][i]
        steps = rng.choice([0, 1_000_000, 60_000_000, 60_000_000, 60_000_000, 7_000], count)
        times = base + i * 3_600_000_000 + np.cumsum(steps) * ((i + 1) * 37)
        if i == 5:
            values = rng.normal(0, 1, count) * 10.0 ** rng.integers(-9, 19, count)
            values[::7] = np.round(values[::7], 3)
        elif i == 6:
            # Zeros of both signs: min and max keep the later of equal values. At distinct
            # times only: the order of 0 and -0 at one time is the sort's, not a rule.
            times = (
                base
                + i * 3_600_000_000
                + np.cumsum(rng.choice([7_000, 60_000_000, 900_000_000], count))
            )
            values = rng.choice([0.0, -0.0, 0.0, 1.5, -1.5], count)
        else:
            values = np.round(rng.normal(1000, 400, count), int(rng.integers(0, 4)))
            values[::3] = rng.integers(0, 5, len(values[::3]))
        for t, v in zip(times.tolist(), values.tolist(), strict=True):
            rows.append((device, field, int(t), float(v), i % 2))
    return pl.DataFrame(
        rows, schema=["device_num", "field_num", "time_us", "value", "site_num"], orient="row"
    )


def _states(device: int, rng: np.random.Generator, field: int) -> pl.DataFrame:
    """A state field's readings: runs of one value and changes inside hours and days."""
    base = int(datetime(2024, 3, 4, tzinfo=UTC).timestamp()) * 1_000_000
    steps = rng.choice([1_000_000, 60_000_000, 900_000_000, 7_200_000_000], 600)
    values = np.repeat(rng.integers(0, len(STATES), 60), 10)
    values[rng.random(600) < 0.1] = 1
    return pl.DataFrame(
        {
            "device_num": np.full(600, device, np.int32),
            "field_num": np.full(600, field, np.int32),
            "time_us": base + np.cumsum(steps),
            "value": values,
            "site_num": np.zeros(600, np.int32),
        }
    )


STATES = ["ok", "low_battery", "alarm", 'say "hi"']


async def _copy_packed(connection: Any, kind: str, packed: PackedSlice) -> None:
    for table, payload, columns in packed.tables(kind):
        await copy_binary(connection, table, payload, columns)


async def _differences(connection: Any, table: str, start: str) -> list[tuple[str, str]]:
    """Rows of `table` where device 1 (packed here) and device 2 (by the job) differ,
    every column compared as the row's text less its device (as PARTIALS), and how many
    rows each has."""
    rows = await connection.fetch(
        f"""SELECT device_num, regexp_replace(p::text, '^\\([^,]*,', '(') AS columns
              FROM {table} p WHERE device_num IN (1, 2)
             ORDER BY field_num, {start}, site_num, device_num"""
    )
    ours = [r["columns"] for r in rows if r["device_num"] == 1]
    theirs = [r["columns"] for r in rows if r["device_num"] == 2]
    assert len(ours) >= 2
    return [(a, b) for a, b in zip(ours, theirs, strict=True) if a != b] + (
        [] if len(ours) == len(theirs) else [("rows", f"{len(ours)} != {len(theirs)}")]
    )


async def test_irregular_times_pack_as_the_job_packs() -> None:
    name = f"bench_bulkpack_{uuid.uuid4().hex[:8]}_irregular"
    url, layout = await _world(name)
    connection = await connect(url)
    try:
        rng = np.random.default_rng(11)
        # Two gauges, fields without a profile (gauges to the job too), the counter with
        # resets (the fifth: 400 readings), values of every magnitude (the sixth), zeros
        # of both signs (the seventh).
        gauges = [int(layout.field_nums[f][0]) for f in ("temperature", "humidity")]
        counter = int(layout.field_nums[COUNTER][0])
        assert counter in layout.counters
        fields = [*gauges, 9001, 9002, counter, 9003, 9004]
        state = int(layout.field_nums["status"][0])
        # Device 1 is packed here, device 2 (the same readings) by the packing job.
        frame = _irregular(1, rng, fields)
        assert frame.select(pl.col("time_us").n_unique()).item() < frame.height  # ties
        states = _states(1, rng, state)
        await _copy_packed(connection, "num", pack_slice(frame, counters=layout.counters))
        await _copy_packed(connection, "other", pack_slice(states, STATES))
        await copy_binary(
            connection,
            "readings_num",
            encode_num(frame.with_columns(device_num=pl.lit(2, pl.Int32)).sample(fraction=1.0)),
        )
        await copy_binary(
            connection,
            "readings_other",
            pack_other(
                np.full(states.height, 2, np.int32),
                states["field_num"].to_numpy(),
                states["time_us"].to_numpy(),
                states["value"].to_numpy(),
                states["site_num"].to_numpy(),
                STATES,
            ),
        )
        await pack_closed(connection)
        for table, start in (("packed_num", "period"), *PARTIAL_TABLES.items()):
            assert await _differences(connection, table, start) == []
        # Every kind of partial was there to compare, NULL and not.
        stats = await connection.fetchrow(
            """SELECT count(*) FILTER (WHERE i IS NOT NULL) AS integrals,
                      count(*) FILTER (WHERE i IS NULL) AS even,
                      count(*) FILTER (WHERE c IS NOT NULL) AS resets
                 FROM packed_hours_num, unnest(integral, increase) AS u (i, c)
                WHERE device_num = 1"""
        )
        assert min(stats.values()) > 0
        assert await connection.fetchval(
            "SELECT count(*) FROM packed_hours_num WHERE device_num = 1 AND increase IS NULL"
        )
        # The comparison sees one partial off by its last bit.
        await connection.execute(
            """UPDATE rollup_day_num SET integral = integral + abs(integral) * 1e-15
                WHERE device_num = 1 AND integral <> 0
                  AND ctid = (SELECT min(ctid) FROM rollup_day_num
                               WHERE device_num = 1 AND integral <> 0)"""
        )
        assert len(await _differences(connection, "rollup_day_num", "bucket")) == 1
        # The run encoder alone, against time_runs, on the edge cases.
        for times in ([5], [5, 5], [0, 10, 20, 25, 30], [0, 10, 15, 30, 45], [0, 0, 0, 7, 7]):
            offsets = np.array(times, dtype=np.int64)
            starts = np.zeros(len(times), dtype=bool)
            starts[0] = True
            runs = time_runs(starts, offsets)
            expected = await connection.fetchrow(
                "SELECT * FROM time_runs(timestamptz '2024-03-07 00:00+00', "
                "ARRAY(SELECT timestamptz '2024-03-07 00:00+00' + u * interval '1 microsecond'"
                " FROM unnest($1::bigint[]) WITH ORDINALITY AS t (u, o) ORDER BY o))",
                times,
            )
            assert (runs.offset.tolist(), runs.step.tolist(), runs.count.tolist()) == (
                expected["offsets"],
                expected["steps"],
                expected["counts"],
            )
    finally:
        await connection.close()
        await asyncio.to_thread(drop_database, name)


def _sum_cases(rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Values that take each way of numeric_sums: readings of a few decimals (int64 sums),
    their differences (15-digit mantissas, summed in two parts), large and tiny values
    (limbs, the decimal module), zeros of both signs and halfway digits."""
    readings = np.round(rng.normal(20, 5, 20_001), 2)
    return {
        "readings": readings[1:],
        "differences": np.diff(readings),
        "tenths": np.diff(np.round(rng.normal(50, 10, 20_001), 1)),
        "integers": rng.integers(-(10**6), 10**6, 20_000).astype(np.float64),
        "magnitudes": rng.normal(0, 1, 20_000) * 10.0 ** rng.integers(-12, 18, 20_000),
        "edges": np.array([0.0, -0.0, 1e-7, 5e-324, 1e300, 999999999999999.9, 1e15, 0.5, 2.5]),
    }


async def test_numeric_sums_equal_postgresqls() -> None:
    """numeric_sums against `saturate(sum(v::numeric * w))` itself, group by group."""
    name = f"bench_bulkpack_{uuid.uuid4().hex[:8]}_sums"
    url = await asyncio.to_thread(scratch_database, name, fresh=True)
    connection = await connect(url)
    try:
        rng = np.random.default_rng(5)
        for case, values in _sum_cases(rng).items():
            sizes = rng.integers(1, 120, len(values))
            starts = np.unique(np.append(0, np.cumsum(sizes)))
            starts = starts[starts < len(values)]
            group = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, len(values))))
            for weight in (None, rng.integers(0, 10**9, len(values))):
                ours = numeric_sums(values, starts, weight)
                theirs = await connection.fetchval(
                    """SELECT array_agg(s ORDER BY g) FROM (
                           SELECT g, saturate(sum(v::numeric * COALESCE(w, 1))) AS s
                             FROM unnest($1::float8[], $2::int[], $3::bigint[]) AS u (v, g, w)
                            GROUP BY g) x""",
                    values.tolist(),
                    group.tolist(),
                    None if weight is None else weight.tolist(),
                )
                differ = np.flatnonzero(ours.view(np.int64) != np.array(theirs).view(np.int64))
                assert differ.tolist() == [], (case, ours[differ[:3]], np.array(theirs)[differ[:3]])
    finally:
        await connection.close()
        await asyncio.to_thread(drop_database, name)
