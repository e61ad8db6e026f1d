"""The raw wide export read as stored (app/export/wide.py) writes the bytes of the SQL path
(sql/export/export.sql wide_rows) that it replaced: packed weeks with late raw readings
beside and inside them, a second site, fields of two types under one identifier, numbers
of every form PostgreSQL writes, strings that CSV neutralises or quotes, fractional
seconds and ranges that cut weeks and hours."""

from __future__ import annotations

import io
import math
import random
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import numpy as np
import pyarrow.parquet as pq
import pytest

from app.auth.principal import Principal
from app.core.config import Settings
from app.devices.filters import fleet_filters
from app.export import service, wide, writers
from app.export.cells import float_texts, json_numbers
from app.export.structs import ExportPlan
from testkit.factories import World, load
from tests.support.history import nums

NOW = datetime.now(UTC).replace(second=0, microsecond=0)
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
WEEK = timedelta(days=7)
# Three weeks back from the start of the current week (weeks as the packed periods), so
# that two whole weeks and a part are packed and the rest is raw.
BASE = EPOCH + (NOW - EPOCH) // WEEK * WEEK - 3 * WEEK + timedelta(hours=5)
NUMBERS = [
    1e15, 1.5e20, 1e-5, 2.5e-7, -0.0, 0.0, 123456789012345.6, 1e16, 0.1 + 0.2, 1e300,
    -1e-300, 100.0, -42.125, 1e-4, 9.999999999999999e14, 5e-324, 20.5, -3.0,
]  # fmt: skip
STRINGS = [
    "=SUM(A1)", "+1", "-x", "@cmd", "\tTab", "plain", 'say "hi", then\nleave', "", "é ü",
    "ctrl\x01", "a\rb",
]  # fmt: skip
FORMATS = ["csv", "ndjson", "parquet"]


async def record(
    pool: asyncpg.Pool, device: int, site: int, at: datetime, numbers: dict[int, float],
    others: dict[int, Any],
) -> None:  # fmt: skip
    await pool.execute(
        "SELECT record_readings($1, $2, $3, $4, $5, $6, $7)",
        device, site, at, list(numbers), list(numbers.values()), list(others),
        list(others.values()),
    )  # fmt: skip


@pytest.fixture(scope="module")
async def world(pool: asyncpg.Pool) -> dict[str, Any]:
    w = World()
    partner = w.partner(plan={"retentionDays": 3650}, features={"multiSite": True})
    sub = w.sub_account(partner)
    first = w.fields(
        temperature="number", label="string", open="boolean", where="location", reading="number"
    )
    # The same identifier a string in a second profile: a text column with numbers in it.
    second = w.fields(temperature="number", reading="string")
    profile_a, profile_b = w.profile(partner, fields=first), w.profile(partner, fields=second)
    devices = [w.device(sub, profile_a), w.device(sub, profile_a), w.device(sub, profile_b)]
    devices.append(w.device(sub, profile_a))  # no readings at all
    await load(pool, w)
    temp, label, is_open, where, reading = await nums(
        pool, "profile_fields", [f["id"] for f in first]
    )
    temp_b, reading_b = await nums(pool, "profile_fields", [f["id"] for f in second])
    d1, d2, d3, _ = await nums(pool, "devices", [d["id"] for d in devices])
    for i in range(19 * 24 * 2):  # every 30 minutes for 19 days
        at = BASE + timedelta(minutes=30 * i)
        if i % 5 == 0:
            at += timedelta(microseconds=[500_000, 123_456, 250, 1][i // 5 % 4])
        others: dict[int, Any] = {label: STRINGS[i % len(STRINGS)]}
        if i % 3 == 0:
            others[is_open] = i % 2 == 0
        if i % 40 == 0:
            others[where] = {"latitude": 52.5 + i / 1000, "longitude": 13.4, "altitude": None}
        numbers = {temp: NUMBERS[i % len(NUMBERS)]}
        if i % 4 != 1:
            numbers[reading] = i / 8 - 30
        await record(pool, d1, 0, at, numbers, others)
        if i % 7 == 0:  # a second site, at times of its own
            await record(pool, d1, 2, at + timedelta(seconds=7), {temp: -i / 4}, {})
        await record(pool, d2, 0, at, {temp: float(i)}, {})
        if i % 6 == 0:  # a second site at the same times: two readings of a field at once
            await record(pool, d2, 3, at, {temp: i + 0.5}, {})
        await record(pool, d3, 0, at, {temp_b: -float(i)}, {reading_b: STRINGS[i % 3] + "7"})
    async with pool.acquire() as connection, connection.transaction():
        await connection.execute("SET LOCAL statement_timeout = 0")
        await connection.execute("SELECT pack_closed_chunks(interval '0')")
        assert await connection.fetchval(
            "SELECT count(*) FROM packed_num WHERE device_num = $1", d1
        )
        # Late raw readings inside packed weeks: at times of their own (d1) and at a packed
        # time of the same field (d2: two readings of a field at one time).
        late = BASE + timedelta(days=2, minutes=17, microseconds=5)
        for device, at, value in [
            (d1, late, 7.25),
            (d1, late + timedelta(days=6), 1e17),
            (d2, BASE + timedelta(days=3), 99.5),
        ]:
            await connection.execute(
                "INSERT INTO readings_num (device_num, field_num, time, value)"
                " VALUES ($1, $2, $3, $4)",
                device, temp, at, value,
            )  # fmt: skip
        await connection.execute(
            "INSERT INTO readings_other (device_num, field_num, time, value)"
            " VALUES ($1, $2, $3, $4)",
            d1, label, late + timedelta(hours=1), "=late",
        )  # fmt: skip
    return {"partner": partner, "devices": devices}


def principal(world: dict[str, Any]) -> Principal:
    return Principal(
        uuid.uuid4(), uuid.UUID(world["partner"]["id"]), None, frozenset({"telemetry:read"}),
        False, 3650, True, True, 1000, 1000, 1_000_000, 1_000_000,
    )  # fmt: skip


async def plan_of(
    pool: asyncpg.Pool, settings: Settings, world: dict[str, Any], fmt: str, start: datetime,
    end: datetime, device: dict[str, Any] | None = None, fields: str | None = None,
) -> ExportPlan:  # fmt: skip
    who = principal(world)
    params = service.parse_params(
        who, fields, start.isoformat(), end.isoformat(), fmt, "wide", None
    )
    if device is None:
        devices = await service.fleet_devices(pool, who, fleet_filters(who), 100)
    else:
        row = await pool.fetchrow(
            "SELECT num, id, dev_eui, profile_id FROM devices WHERE id = $1",
            uuid.UUID(device["id"]),
        )
        devices = [dict(row)]
    plan = await service.plan_export(
        pool, settings, params, devices, fleet=device is None, name="x"
    )
    assert wide.applies(plan)
    # The counts the reads are cut by are the exact count of the SQL path.
    assert sum(plan.device_readings) == await service.count_readings(pool, settings, plan)
    return plan


async def both(pool: asyncpg.Pool, settings: Settings, plan: ExportPlan) -> tuple[bytes, bytes]:
    """The export by the SQL path and by the stored reads."""
    outputs = []
    sql = writers._parquet if plan.format == "parquet" else writers._copy
    for produce in (sql, writers._wide):
        out = bytearray()

        async def put(chunk: bytes, into: bytearray = out) -> None:
            into.extend(chunk)

        await produce(pool, settings, plan, put)
        outputs.append(bytes(out))
    return outputs[0], outputs[1]


@pytest.mark.parametrize("fmt", FORMATS)
async def test_one_device_is_written_byte_for_byte(
    pool: asyncpg.Pool, settings: Settings, world: dict[str, Any], fmt: str
) -> None:
    # A range that cuts a packed week and an hour at both ends, into the raw week.
    start = BASE + timedelta(days=1, minutes=41, microseconds=250)
    end = NOW - timedelta(minutes=3, microseconds=1)
    plan = await plan_of(pool, settings, world, fmt, start, end, world["devices"][0])
    old, new = await both(pool, settings, plan)
    assert len(old) > (10_000 if fmt == "parquet" else 30_000)
    assert new == old


@pytest.mark.parametrize("unit", [wide.UNIT_READINGS, 700])
@pytest.mark.parametrize("fmt", FORMATS)
async def test_the_fleet_is_written_as_the_sql_path_wrote_it(
    pool: asyncpg.Pool, settings: Settings, world: dict[str, Any], fmt: str, unit: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """Every device and field, two readings of a field at one time included: the same
    rows, byte for byte, but for the order of the rows of one time with two readings of
    a field (not defined). Read in one unit, and in units of 700 readings (a device's
    weeks in windows of their own, Parquet row groups across units)."""
    monkeypatch.setattr(wide, "UNIT_READINGS", unit)
    monkeypatch.setattr(writers, "CHUNK_ROWS", 1000 if unit < 1000 else writers.CHUNK_ROWS)
    start = BASE - timedelta(hours=3)
    plan = await plan_of(pool, settings, world, fmt, start, NOW)
    old, new = await both(pool, settings, plan)
    if fmt == "parquet":
        old_file, new_file = pq.ParquetFile(io.BytesIO(old)), pq.ParquetFile(io.BytesIO(new))
        assert new_file.schema_arrow == old_file.schema_arrow
        assert new_file.metadata.num_rows == old_file.metadata.num_rows > 1000
        old_rows = old_file.read().to_pylist()
        new_rows = new_file.read().to_pylist()
        key = ("time", "deviceId")
    else:
        old_rows = old.split(b"\n")
        new_rows = new.split(b"\n")
        key = None
    assert len(new_rows) == len(old_rows)
    assert in_groups(new_rows, key) == in_groups(old_rows, key)
    twice = [g for g in in_groups(old_rows, key) if len(g) > 1]
    assert len(twice) > 10  # the second site's readings at the same times
    if fmt != "parquet":
        assert sorted(new_rows) == sorted(old_rows)


def in_groups(rows: list[Any], key: tuple[str, ...] | None) -> list[list[Any]]:
    """The rows in runs of one device and time, each run's rows sorted."""
    groups: list[list[Any]] = []
    last = None
    for row in rows:
        # A line is led by its time and device.
        mark = row.split(b",")[:2] if key is None else [row[k] for k in key]
        if groups and mark == last:
            groups[-1].append(row)
        else:
            groups.append([row])
        last = mark
    return [sorted(g, key=repr) for g in groups]


async def test_number_cells_are_postgresqls(pool: asyncpg.Pool) -> None:
    """float8out's text (CSV, Parquet text) and to_jsonb's (NDJSON) for numbers of every
    magnitude and the edges of the fixed-point range."""
    edges = [1e-4, 1e15, 1e16, 1e-5, 2.0**53, 2.0**63, 1.7976931348623157e308, 5e-324]
    values = [0.0, -0.0, math.nan, math.inf, -math.inf, 0.1, 100.0, 1234567.0]
    for edge in edges:
        values += [edge, -edge, math.nextafter(edge, 0), math.nextafter(edge, math.inf)]
    rng = random.Random(27)
    for _ in range(3000):
        values.append(rng.uniform(-1, 1) * 10.0 ** rng.randint(-320, 307))
        values.append(round(rng.uniform(-1000, 1000), rng.randint(0, 6)))
        # Short decimals past 2^53 and their neighbours: where an end of a value's rounding
        # interval is itself a short decimal (PostgreSQL's Ryu never writes the upper one).
        near = float(rng.randint(1, 999_999) * 10 ** rng.randint(10, 30))
        values += [near, math.nextafter(near, math.inf), math.nextafter(near, 0)]
    rows = await pool.fetch(
        "SELECT x::text AS text, CASE WHEN x = 'NaN' OR abs(x) = 'Infinity'"
        " THEN to_jsonb(x::text)::text ELSE to_jsonb(x)::text END AS json"
        " FROM unnest($1::float8[]) WITH ORDINALITY AS u (x, i) ORDER BY i",
        values,
    )
    array = np.array(values, dtype=np.float64)
    assert float_texts(array).to_list() == [r["text"] for r in rows]
    assert json_numbers(array).to_list() == [r["json"] for r in rows]
