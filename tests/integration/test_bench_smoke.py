"""The benchmark dataset generator on a tiny scale: what it loads is what it planned, every
reading is read once (raw rows of the open week, packed weeks before it), and the daily
rollups equal a direct aggregate of the packed readings."""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from collections.abc import AsyncIterator
from datetime import datetime, timedelta

import pytest

from benchmarks.common import Manifest
from benchmarks.datasets import SCALES, generate_async, plan_series
from testkit.databases import connect, drop_database
from tests.support.packing import (
    CLOSED_RAW_CHUNKS,
    HOURS_MISMATCHES_NUM,
    HOURS_MISMATCHES_OTHER,
    ROLLUP_MISMATCHES_NUM,
    ROLLUP_MISMATCHES_OTHER,
)

# Every reading of every series (raw rows and packed weeks alike), with how many of them
# are distinct (series, time, site): the dataset never has two readings of a series at one
# time, so a reading read twice would show.
READ_BACK = """
WITH series AS (
    SELECT device_num, field_num FROM readings_{kind}
    UNION SELECT device_num, field_num FROM packed_{kind}),
every AS (
    SELECT s.device_num, s.field_num, r.time, r.site_num, r.value
      FROM series s CROSS JOIN LATERAL readings_{kind}_in(s.device_num, s.field_num, $1, $2) r)
SELECT count(*) AS n,
       count(DISTINCT (device_num, field_num, time, site_num)) AS distinct_n,
       (SELECT count(*) FROM readings_{kind}) AS raw,
       (SELECT COALESCE(sum(n), 0) FROM packed_{kind}) AS packed
  FROM every
"""


# XS over ten days instead of three: at least one closed week, packed, whatever the
# weekday (three days lie inside the open week four days a week).
SMOKE = dataclasses.replace(SCALES["XS"], name="XS10", days=10)


@pytest.fixture(scope="module")
async def dataset() -> AsyncIterator[Manifest]:
    name = f"bench_test_{uuid.uuid4().hex[:8]}"
    SCALES[SMOKE.name] = SMOKE
    try:
        yield await generate_async(SMOKE.name, database=name, write_manifest=False)
    finally:
        SCALES.pop(SMOKE.name, None)
        await asyncio.to_thread(drop_database, name)


async def test_loads_every_planned_reading(dataset: Manifest) -> None:
    scale = SMOKE
    steps = scale.days * 86400 // dataset.interval_s
    series = plan_series(len(dataset.devices), datetime.fromisoformat(dataset.start), steps)
    present = int(series.present.sum())
    # Signal quality and three numeric fields per uplink, plus three per late arrival.
    assert dataset.readings_num == present * 4 + len(series.late) * 3
    assert dataset.readings_other == present
    assert len(series.late) > 0 and present < len(dataset.devices) * steps  # gaps exist

    connection = await connect(dataset.database_url)
    try:
        window = (
            datetime.fromisoformat(dataset.start) - timedelta(days=8),
            datetime.fromisoformat(dataset.end) + timedelta(days=1),
        )
        for kind, loaded in (("num", dataset.readings_num), ("other", dataset.readings_other)):
            read = await connection.fetchrow(READ_BACK.format(kind=kind), *window)
            assert read["n"] == read["distinct_n"] == loaded, (kind, dict(read))
            assert read["raw"] + read["packed"] == loaded, (kind, dict(read))
        statuses = await connection.fetchval(
            "SELECT array_agg(DISTINCT r.value #>> '{}' ORDER BY r.value #>> '{}')"
            "  FROM (SELECT device_num, field_num FROM readings_other"
            "        UNION SELECT device_num, field_num FROM packed_other) s"
            " CROSS JOIN LATERAL readings_other_in(s.device_num, s.field_num, $1, $2) r",
            *window,
        )
        assert set(statuses) <= {"ok", "low_battery", "alarm", "maintenance"}
        assert "ok" in statuses
        # Each device has readings of every numeric field of its profile (raw or packed).
        fields = await connection.fetch(
            """SELECT d.num, array_agg(DISTINCT f.identifier ORDER BY f.identifier) AS ids
                 FROM (SELECT device_num, field_num FROM readings_num
                       UNION SELECT device_num, field_num FROM packed_num) r
                 JOIN devices d ON d.num = r.device_num
                 JOIN profile_fields f ON f.num = r.field_num
                GROUP BY d.num"""
        )
        assert {tuple(r["ids"]) for r in fields} == {("battery", "humidity", "temperature")}
        assert len(fields) == len(dataset.devices)
        if dataset.latest_primed:  # the newest uplink went through the ingest pipeline
            bodies = await connection.fetchval(
                "SELECT count(*) FROM device_state WHERE latest_body IS NOT NULL"
            )
            assert bodies == len(dataset.devices)
        battery_roles = await connection.fetchval(
            "SELECT count(*) FROM profile_fields WHERE role = 'battery_pct'"
        )
        assert battery_roles >= 1
    finally:
        await connection.close()


async def test_closed_weeks_are_packed_and_rollups_equal_a_direct_aggregate(
    dataset: Manifest,
) -> None:
    """Every closed week is packed and the open one raw; the daily rollups summarise the
    packed readings exactly."""
    connection = await connect(dataset.database_url)
    try:
        assert await connection.fetchval(CLOSED_RAW_CHUNKS) == 0
        assert await connection.fetchval("SELECT count(*) FROM packed_num") > 0
        for kind in ("num", "other"):
            assert (
                await connection.fetchval(
                    f"SELECT count(*) FROM packed_{kind} WHERE period >= packed_period(now())"
                )
                == 0
            )
            assert (
                await connection.fetchval(
                    f"SELECT count(*) FROM readings_{kind} WHERE time >= packed_period(now())"
                )
                > 0
            )
            assert await connection.fetchval(
                f"SELECT (SELECT COALESCE(sum(n), 0) FROM rollup_day_{kind})"
                f" = (SELECT COALESCE(sum(n), 0) FROM packed_{kind})"
            )
        assert await connection.fetchval(ROLLUP_MISMATCHES_NUM) == 0
        assert await connection.fetchval(ROLLUP_MISMATCHES_OTHER) == 0
        assert await connection.fetchval(HOURS_MISMATCHES_NUM) == 0
        assert await connection.fetchval(HOURS_MISMATCHES_OTHER) == 0
    finally:
        await connection.close()


async def test_manifest_keys_authenticate(dataset: Manifest) -> None:
    import hashlib

    connection = await connect(dataset.database_url)
    try:
        for key in dataset.keys:
            row = await connection.fetchrow(
                "SELECT outcome, partner_id::text, sub_account_id::text FROM api_authenticate($1)",
                hashlib.sha256(key.secret.encode()).digest(),
            )
            assert (row["outcome"], row["partner_id"], row["sub_account_id"]) == (
                "ok",
                key.partner_id,
                key.sub_account_id,
            )
    finally:
        await connection.close()
