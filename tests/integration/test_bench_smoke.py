"""The benchmark dataset generator on a tiny scale: what it loads is what it planned, and
the rollups it builds equal a direct aggregate of the raw readings."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import datetime

import pytest

from benchmarks.common import Manifest, connect, drop_database
from benchmarks.datasets import SCALES, generate_async, plan_series

MISMATCHED_NUM = """
WITH raw AS (
    SELECT device_num, field_num, site_num, time_bucket($1::text::interval, time) AS bucket,
           count(*) AS n, sum(value) AS sum, min(value) AS min, max(value) AS max,
           max(time) AS last_time, last(value, time) AS last_value
      FROM readings_num GROUP BY 1, 2, 3, 4)
SELECT count(*)
  FROM raw FULL JOIN {table} r USING (device_num, field_num, site_num, bucket)
 WHERE raw.n IS DISTINCT FROM r.n OR abs(raw.sum - r.sum) > 1e-9
    OR raw.min IS DISTINCT FROM r.min OR raw.max IS DISTINCT FROM r.max
    OR raw.last_time IS DISTINCT FROM r.last_time OR raw.last_value IS DISTINCT FROM r.last_value
"""

MISMATCHED_OTHER = """
WITH raw AS (
    SELECT device_num, field_num, site_num, time_bucket($1::text::interval, time) AS bucket,
           count(*) AS n, max(time) AS last_time, last(value, time) AS last_value
      FROM readings_other GROUP BY 1, 2, 3, 4)
SELECT count(*)
  FROM raw FULL JOIN {table} r USING (device_num, field_num, site_num, bucket)
 WHERE raw.n IS DISTINCT FROM r.n OR raw.last_time IS DISTINCT FROM r.last_time
    OR raw.last_value IS DISTINCT FROM r.last_value
"""


@pytest.fixture(scope="module")
async def dataset() -> AsyncIterator[Manifest]:
    name = f"bench_test_{uuid.uuid4().hex[:8]}"
    try:
        yield await generate_async("XS", database=name, write_manifest=False)
    finally:
        await asyncio.to_thread(drop_database, name)


async def test_loads_every_planned_reading(dataset: Manifest) -> None:
    scale = SCALES["XS"]
    steps = scale.days * 86400 // dataset.interval_s
    series = plan_series(len(dataset.devices), datetime.fromisoformat(dataset.start), steps)
    present = int(series.present.sum())
    # Signal quality and three numeric fields per uplink, plus three per late arrival.
    assert dataset.readings_num == present * 4 + len(series.late) * 3
    assert dataset.readings_other == present
    assert len(series.late) > 0 and present < len(dataset.devices) * steps  # gaps exist

    connection = await connect(dataset.database_url)
    try:
        assert await connection.fetchval("SELECT count(*) FROM readings_num") == (
            dataset.readings_num
        )
        assert await connection.fetchval("SELECT count(*) FROM readings_other") == present
        statuses = await connection.fetchval(
            "SELECT array_agg(DISTINCT value #>> '{}' ORDER BY value #>> '{}') FROM readings_other"
        )
        assert set(statuses) <= {"ok", "low_battery", "alarm", "maintenance"}
        assert "ok" in statuses
        # Each device has one row of readings per field identifier of its profile.
        fields = await connection.fetch(
            """SELECT d.num, array_agg(DISTINCT f.identifier ORDER BY f.identifier) AS ids
                 FROM readings_num r JOIN devices d ON d.num = r.device_num
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


async def test_rollups_equal_a_direct_aggregate(dataset: Manifest) -> None:
    connection = await connect(dataset.database_url)
    try:
        for interval, table in (("1 hour", "rollup_hour_num"), ("1 day", "rollup_day_num")):
            assert await connection.fetchval(MISMATCHED_NUM.format(table=table), interval) == 0
        for interval, table in (("1 hour", "rollup_hour_other"), ("1 day", "rollup_day_other")):
            assert await connection.fetchval(MISMATCHED_OTHER.format(table=table), interval) == 0
        assert await connection.fetchval("SELECT sum(n) FROM rollup_day_num") == (
            dataset.readings_num
        )
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
