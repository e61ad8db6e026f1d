"""The benchmark's client-side packer (benchmarks/packed.py) writes exactly what the
database's packing job writes: the same packed rows (runs of times, order of values), and
with the partials the database fills in from them (hourly, daily), for the benchmark's own
readings loaded both ways and for irregular readings (equal times, uneven steps, single
readings) packed both ways."""

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
    Scale,
    Series,
    _layout,
    _load_world,
    build_world,
    copy_binary,
    encode_num,
    load_readings,
    pack_closed,
    plan_series,
)
from benchmarks.packed import PACKED_COLUMNS, PERIOD_US, pack_slice, time_runs
from testkit.databases import connect, drop_database, scratch_database

SCALE = Scale("PACK", devices=6, days=23, partners=1, sub_accounts_per_partner=2)
SEED = 6

# Packed rows and daily rollups keyed by the ids behind the numbers, so that two databases
# can be compared whatever numbers their sequences handed out.
PACKED = """
SELECT d.id::text AS device, COALESCE(f.id::text, '') AS field, COALESCE(s.id::text, '') AS site,
       k.period, k.n, k.offsets, k.steps, k.counts, k.values::text[] AS values
  FROM packed_{kind} k JOIN devices d ON d.num = k.device_num
  LEFT JOIN profile_fields f ON f.num = k.field_num LEFT JOIN sites s ON s.num = k.site_num
 ORDER BY 1, 2, 3, 4"""
ROLLUPS = """
SELECT d.id::text AS device, COALESCE(f.id::text, '') AS field, COALESCE(s.id::text, '') AS site,
       r.bucket, r.n, {partials} r.last_time, r.last_value::text AS last_value
  FROM rollup_day_{kind} r JOIN devices d ON d.num = r.device_num
  LEFT JOIN profile_fields f ON f.num = r.field_num LEFT JOIN sites s ON s.num = r.site_num
 ORDER BY 1, 2, 3, 4"""
HOURS = """
SELECT d.id::text AS device, COALESCE(f.id::text, '') AS field, COALESCE(s.id::text, '') AS site,
       h.period, h.hours, h.n, {partials} h.last_time, h.last_value::text[] AS last_value
  FROM packed_hours_{kind} h JOIN devices d ON d.num = h.device_num
  LEFT JOIN profile_fields f ON f.num = h.field_num LEFT JOIN sites s ON s.num = h.site_num
 ORDER BY 1, 2, 3, 4"""
RAW = """
SELECT d.id::text AS device, COALESCE(f.id::text, '') AS field, r.time, r.value::text AS value
  FROM readings_{kind} r JOIN devices d ON d.num = r.device_num
  LEFT JOIN profile_fields f ON f.num = r.field_num
 ORDER BY 1, 2, 3, 4"""


def _series(now: datetime) -> Series:
    end = now.replace(minute=0, second=0, microsecond=0)
    start = end - timedelta(days=SCALE.days)
    return plan_series(SCALE.devices, start, SCALE.days * 86400 // INTERVAL_S, SEED)


@pytest.fixture(scope="module")
async def loaded() -> AsyncIterator[tuple[str, str, Series]]:
    """The same dataset loaded packed by the client and by the packing job."""
    names = [f"bench_bulkpack_{uuid.uuid4().hex[:8]}_{way}" for way in ("client", "job")]
    series = _series(datetime.now(UTC))
    try:
        urls = []
        for name, client_packing in zip(names, (True, False), strict=True):
            url = await asyncio.to_thread(scratch_database, name, fresh=True)
            plan = build_world(SCALE)
            await _load_world(url, plan.world)
            connection = await connect(url)
            try:
                layout = await _layout(connection, plan.devices)
            finally:
                await connection.close()
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
    # The late readings exercise the job's merge into rows the client packed.
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


# Per kind of partials: the query of both kinds of series (with the number-only columns
# filled in), how many rows at least, and the sum of their counts (every packed reading
# once).
PARTIALS = {
    "daily rollups": (
        ROLLUPS,
        "r.sum, r.min, r.max,",
        SCALE.devices * 4 * 14,
        "SELECT sum(n) AS n FROM rollup_day_num",
    ),
    "hourly partials": (
        HOURS,
        "h.sum, h.min, h.max,",
        SCALE.devices * 3,
        "SELECT sum(x) AS n FROM packed_hours_num, unnest(n) x",
    ),
}


@pytest.mark.parametrize("partials", PARTIALS)
async def test_bulk_partials_equal_the_packing_jobs(
    loaded: tuple[str, str, Series], partials: str
) -> None:
    client, job, _ = loaded
    template, number_columns, least, counted = PARTIALS[partials]
    query = template.format(kind="num", partials=number_columns)
    ours, reference = await _fetch(client, query), await _fetch(job, query)
    assert len(ours) == len(reference) > least
    for mine, theirs in zip(ours, reference, strict=True):
        # Float addition in another order: the sums agree to rounding only.
        assert np.allclose(mine.pop("sum"), theirs.pop("sum"), rtol=1e-9, atol=1e-9)
        assert mine == theirs
    query = template.format(kind="other", partials="")
    assert await _fetch(client, query) == await _fetch(job, query)
    total = await _fetch(client, counted)
    packed = await _fetch(client, "SELECT sum(n) AS n FROM packed_num")
    assert total == packed


def _irregular(device: int, rng: np.random.Generator) -> pl.DataFrame:
    """Readings of a few series over two old weeks: uneven steps, runs of equal steps,
    equal times with different values, and series of one or two readings."""
    base = int(datetime(2024, 3, 4, tzinfo=UTC).timestamp()) * 1_000_000
    rows: list[tuple[int, int, int, float, int]] = []
    for field in range(1, 6):
        count = [1, 2, 3, 40, 400][field - 1]
        steps = rng.choice([0, 1_000_000, 60_000_000, 60_000_000, 60_000_000, 7_000], count)
        times = base + field * 3_600_000_000 + np.cumsum(steps) * (field * 37)
        for t in times.tolist():
            rows.append((device, field, int(t), float(rng.integers(0, 5)), field % 2))
    return pl.DataFrame(
        rows, schema=["device_num", "field_num", "time_us", "value", "site_num"], orient="row"
    )


async def test_irregular_times_pack_as_the_job_packs() -> None:
    name = f"bench_bulkpack_{uuid.uuid4().hex[:8]}_irregular"
    url = await asyncio.to_thread(scratch_database, name, fresh=True)
    connection = await connect(url)
    try:
        rng = np.random.default_rng(11)
        # Device 1 is packed here, device 2 (the same readings) by the packing job.
        frame = _irregular(1, rng)
        assert frame.select(pl.col("time_us").n_unique()).item() < frame.height  # ties
        packed = pack_slice(frame)
        await copy_binary(connection, "packed_num", packed.packed, PACKED_COLUMNS)
        # The hourly partials and daily rollups of client-packed weeks are the database's
        # own, from the packed rows (as benchmarks/datasets.py loads them).
        await connection.execute("SELECT fill_packed_hours_num('-infinity', 'infinity')")
        await copy_binary(
            connection,
            "readings_num",
            encode_num(frame.with_columns(device_num=pl.lit(2, pl.Int32)).sample(fraction=1.0)),
        )
        await pack_closed(connection)
        for table in ("packed_num", "rollup_day_num", "packed_hours_num"):
            rows = await connection.fetch(
                f"SELECT * FROM {table} ORDER BY device_num, field_num, 4, site_num"
            )
            ours = [dict(r) | {"device_num": 0} for r in rows if r["device_num"] == 1]
            theirs = [dict(r) | {"device_num": 0} for r in rows if r["device_num"] == 2]
            assert len(ours) >= 5
            for mine, job in zip(ours, theirs, strict=True):
                if "sum" in mine:
                    mine_sums, job_sums = (
                        np.atleast_1d(mine.pop("sum")),
                        np.atleast_1d(job.pop("sum")),
                    )
                    assert np.allclose(mine_sums, job_sums, rtol=1e-9, atol=0)
                assert mine == job
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
