"""`tz` on bucketed history: every rule of integrations.md section 5.

The general equality with `time_bucket(interval, time, tz)` is the oracle's
(test_history_oracle.py); these are the rules a reader checks by hand.
"""

from __future__ import annotations

import math
import zoneinfo
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import pytest
from litestar.testing import AsyncTestClient

from testkit.factories import World, load
from tests.support.helpers import assert_error, bearer
from tests.support.history import iso, nums, parse, record

HISTORY = "/api/v1/devices/{}/history"
# Berlin's clocks: forward on 2026-03-29 at 01:00 UTC, back on 2026-10-25 at 01:00 UTC.
SPRING = datetime(2026, 3, 27, tzinfo=UTC)
AUTUMN = datetime(2026, 10, 23, tzinfo=UTC)


@dataclass
class Setup:
    key: str
    device: str


@pytest.fixture(scope="module")
async def setup(pool: asyncpg.Pool) -> Setup:
    w = World()
    partner = w.partner(plan={"retentionDays": 3650}, tier={"perMinute": 100_000, "perDay": 10**7})
    profile = w.profile(partner, fields=[w.field("level"), w.field("state", dataType="string")])
    device = w.device(w.sub_account(partner), profile)
    key = w.key(partner, scopes=["telemetry:read"])
    await load(pool, w)
    [num] = await nums(pool, "devices", [device["id"]])
    level, state = await nums(pool, "profile_fields", [f["id"] for f in profile["fields"]])
    # One reading every hour for five days around each change, on the half hour.
    for first in (SPRING, AUTUMN):
        for hour in range(5 * 24):
            at = first + timedelta(hours=hour, minutes=30)
            await record(pool, num, at, {level: 1.0}, {state: f"s{hour}"})
    return Setup(key=key, device=device["id"])


async def history(client: AsyncTestClient, setup: Setup, **params: Any) -> Any:
    return await client.get(HISTORY.format(setup.device), params=params, headers=bearer(setup.key))


async def points(client: AsyncTestClient, setup: Setup, **params: Any) -> list[tuple[str, Any]]:
    response = await history(client, setup, **params)
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert data.get("tz") == params.get("tz")
    return [(p["time"], p["value"]) for p in reversed(data["points"])]


async def counts(
    client: AsyncTestClient, setup: Setup, resolution: str, start: str, end: str, **params: Any
) -> list[tuple[str, Any]]:
    """How many `level` readings each bucket from `start` to `end` holds."""
    window = {"from": start, "to": end}
    return await points(
        client, setup, field="level", resolution=resolution, agg="count", **window, **params
    )


async def test_local_days_are_23_and_25_hours_long(client: AsyncTestClient, setup: Setup) -> None:
    spring = await counts(
        client,
        setup,
        "daily",
        "2026-03-28T00:00:00+01:00",
        "2026-03-31T00:00:00+02:00",
        tz="Europe/Berlin",
    )
    assert spring == [
        ("2026-03-27T23:00:00Z", 24),  # local midnight of the 28th (+01:00)
        ("2026-03-28T23:00:00Z", 23),  # the 29th: clocks forward
        ("2026-03-29T22:00:00Z", 24),  # the 30th starts at +02:00
    ]
    autumn = await counts(
        client,
        setup,
        "P1D",
        "2026-10-24T00:00:00+02:00",
        "2026-10-27T00:00:00+01:00",
        tz="Europe/Berlin",
    )
    assert autumn == [
        ("2026-10-23T22:00:00Z", 24),
        ("2026-10-24T22:00:00Z", 25),  # the 25th: clocks back
        ("2026-10-25T23:00:00Z", 24),
    ]
    # Without tz the same range is bucketed in UTC days (D12) and `tz` is not echoed.
    utc = await counts(client, setup, "daily", "2026-10-24T00:00:00Z", "2026-10-26T00:00:00Z")
    assert utc == [("2026-10-24T00:00:00Z", 24), ("2026-10-25T00:00:00Z", 24)]


async def test_half_hour_zones_bucket_on_their_local_hours(
    client: AsyncTestClient, setup: Setup
) -> None:
    # Readings at hh:30 UTC are on Kolkata's local hour (+05:30): one per local hour.
    kolkata = await counts(
        client, setup, "hourly", "2026-10-24T00:00:00Z", "2026-10-24T03:00:00Z", tz="Asia/Kolkata"
    )
    assert kolkata == [
        ("2026-10-24T00:30:00Z", 1),
        ("2026-10-24T01:30:00Z", 1),
        ("2026-10-24T02:30:00Z", 1),
    ]
    # Kathmandu (+05:45): local hours start at hh:15 UTC.
    kathmandu = await points(
        client,
        setup,
        field="state",
        resolution="PT1H",
        agg="last",
        tz="Asia/Kathmandu",
        **{"from": "2026-10-24T00:00:00Z", "to": "2026-10-24T02:00:00Z"},
    )
    assert kathmandu == [("2026-10-24T00:15:00Z", "s24"), ("2026-10-24T01:15:00Z", "s25")]


async def test_sub_day_buckets_in_the_repeated_hour_follow_time_bucket(
    client: AsyncTestClient, pool: asyncpg.Pool, setup: Setup
) -> None:
    got = await counts(
        client, setup, "PT1H", "2026-10-24T23:00:00Z", "2026-10-25T03:00:00Z", tz="Europe/Berlin"
    )
    want = await pool.fetch(
        "SELECT time_bucket('1 hour', t, 'Europe/Berlin') AS b, count(*)"
        "  FROM generate_series(timestamptz '2026-10-24 23:30Z', '2026-10-25 02:30Z',"
        "                       interval '1 hour') t GROUP BY 1 ORDER BY 1"
    )
    assert got == [(r["b"].strftime("%Y-%m-%dT%H:%M:%SZ"), r["count"]) for r in want]
    assert sum(count for _, count in got) == 4


async def test_weeks_and_months_are_local(client: AsyncTestClient, setup: Setup) -> None:
    month = await counts(
        client, setup, "P1M", "2026-03-01T00:00:00Z", "2026-04-01T00:00:00Z", tz="America/New_York"
    )
    # March in New York starts at 05:00 UTC; the readings of 27-31 March UTC are all in it
    # (the last, 2026-03-31 23:30Z, is 19:30 local).
    assert month == [("2026-03-01T05:00:00Z", 5 * 24)]
    week = await counts(
        client, setup, "P1W", "2026-10-23T00:00:00Z", "2026-10-28T00:00:00Z", tz="Europe/Berlin"
    )
    # Monday 2026-10-26 00:00 in Berlin is Sunday 23:00 UTC.
    assert [time for time, _ in week] == ["2026-10-18T22:00:00Z", "2026-10-25T23:00:00Z"]


async def test_raw_points_are_unchanged_and_tz_echoed(
    client: AsyncTestClient, setup: Setup
) -> None:
    span = {"field": "level", "from": "2026-10-24T00:00:00Z", "to": "2026-10-24T05:00:00Z"}
    assert await points(client, setup, tz="Pacific/Chatham", **span) == await points(
        client, setup, **span
    )


async def test_unknown_zone_is_invalid_parameter(client: AsyncTestClient, setup: Setup) -> None:
    for zone in ["Mars/Olympus_Mons", "europe/berlin", "", "+02:00", "../../etc/passwd"]:
        response = await history(
            client,
            setup,
            field="level",
            resolution="daily",
            tz=zone,
            **{"from": "2026-10-24T00:00:00Z", "to": "2026-10-26T00:00:00Z"},
        )
        assert_error(response, 400, "invalid_parameter", "tz")


Reading = tuple[datetime, float] | tuple[datetime, float, int]


async def local_days_device(pool: asyncpg.Pool, readings: list[Reading]) -> Setup:
    """A device whose `level` holds the readings (at site 0, or the site num a reading
    names), packed into weeks (hourly partials and daily rollups), as the packing job
    leaves closed weeks."""
    w = World()
    partner = w.partner(plan={"retentionDays": 3650}, tier={"perMinute": 100_000, "perDay": 10**7})
    profile = w.profile(partner, fields=[w.field("level")])
    device = w.device(w.sub_account(partner), profile)
    key = w.key(partner, scopes=["telemetry:read"])
    await load(pool, w)
    [num] = await nums(pool, "devices", [device["id"]])
    [level] = await nums(pool, "profile_fields", [profile["fields"][0]["id"]])
    for at, value, *site in readings:
        await record(pool, num, at, {level: value}, site_num=site[0] if site else 0)
    await pool.execute("SELECT pack_closed_chunks(interval '0')")
    assert await pool.fetchval("SELECT count(*) FROM rollup_day_num WHERE device_num = $1", num)
    return Setup(key=key, device=device["id"])


def local_start(at: datetime, zone: zoneinfo.ZoneInfo, resolution: str) -> datetime:
    """The UTC instant that starts the local day, week (from Monday) or month of `at`."""
    day = at.astimezone(zone).date()
    if resolution == "P1W":
        day -= timedelta(days=day.weekday())
    elif resolution == "P1M":
        day = day.replace(day=1)
    return datetime(day.year, day.month, day.day, tzinfo=zone).astimezone(UTC)


def autumn_readings() -> list[tuple[datetime, float]]:
    """Every 20 minutes for two weeks across Berlin's and New York's autumn changes: days
    of readings of one sign, days of mixed signs (one with a zero) and a tiny day."""
    first = datetime(2025, 10, 20, tzinfo=UTC)
    readings: list[tuple[datetime, float]] = []
    for step in range(14 * 24 * 3):
        at = first + timedelta(minutes=20 * step + step % 7)
        day = step // 72
        # Days 4 and 9 mix signs (and day 9 holds a zero): read hour by hour.
        value = (
            (10.0 + step % 13 / 8) * (10 ** (day % 3)) * (-1 if day % 5 == 4 and step % 2 else 1)
        )
        # Day 11 is tiny (its least and greatest values multiply to below the smallest
        # float, which PostgreSQL refuses as an underflow).
        value *= 1e-200 if day == 11 else 1.0
        readings.append((at, 0.0 if day == 9 and step % 72 == 5 else value))
    return readings


def spring_readings() -> list[tuple[datetime, float]]:
    """Every 30 minutes for 30 days across New York's and Berlin's spring changes
    (2026-03-08 and 2026-03-29), with hours missing (the first hours of some days, the
    hours across midnight of others, a whole day) and a day of mixed signs."""
    first = datetime(2026, 3, 2, tzinfo=UTC)
    readings: list[tuple[datetime, float]] = []
    for step in range(30 * 24 * 2):
        at = first + timedelta(minutes=30 * step + step % 5)
        day, hour = divmod(step // 2, 24)
        if (
            (day % 3 == 1 and hour < 5)  # the first hours of the day (positions shift)
            or (day % 4 == 2 and hour == 23)  # an hour across Berlin's midnight
            or (day % 5 == 3 and hour in (4, 22))  # across New York's, and Berlin's in summer
            or day == 17  # a whole day
        ):
            continue
        sign = -1 if day == 20 and step % 3 == 0 else 1  # day 20 is read hour by hour
        readings.append((at, sign * (20.0 + step % 11 / 4)))
    return readings


def two_sites_readings() -> list[Reading]:
    """Every 20 minutes for a week at site 0, all of one sign, and on two of its days also
    at site 4 around local midnight with a zero among them: those days' rollups are safe at
    site 0 and not at site 4, so the whole day is read hour by hour, every site's hours
    once."""
    first = datetime(2025, 10, 6, tzinfo=UTC)
    readings: list[Reading] = [
        (first + timedelta(minutes=20 * step), 5.0 + step % 9 / 4) for step in range(7 * 72)
    ]
    for day in (2, 4):
        for minute in range(0, 180, 30):
            at = first + timedelta(days=day, hours=21, minutes=minute + 7)
            readings.append((at, 0.0 if minute == 60 else 1.0 + minute / 60, 4))
    return readings


# Readings, the (zone, from, to) ranges read (whole local days, cut inside a day) and the
# resolutions read over them.
LOCAL_BUCKET_CASES = [
    pytest.param(
        autumn_readings,
        [("Europe/Berlin", "2025-10-21T00:00:00Z", "2025-11-02T00:00:00Z"),
         ("Europe/Berlin", "2025-10-20T13:20:00Z", "2025-11-01T07:00:00Z"),
         ("America/New_York", "2025-10-21T05:00:00Z", "2025-11-03T02:30:00Z")],
        ("daily",),
        id="autumn-days",
    ),
    pytest.param(
        spring_readings,
        [("Europe/Berlin", "2026-03-02T00:00:00Z", "2026-04-01T00:00:00Z"),
         ("Europe/Berlin", "2026-03-03T09:10:00Z", "2026-03-30T21:00:00Z"),
         ("America/New_York", "2026-03-02T05:00:00Z", "2026-03-31T03:00:00Z")],
        ("daily", "P1W", "P1M"),
        id="spring-days-weeks-months-missing-hours",
    ),
    pytest.param(
        two_sites_readings,
        [("Europe/Berlin", "2025-10-06T00:00:00Z", "2025-10-13T00:00:00Z"),
         ("Europe/Berlin", "2025-10-07T20:59:59.999999Z", "2025-10-11T00:00:00Z")],
        ("daily",),
        id="two-sites-one-unsafe",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("make_readings", "ranges", "resolutions"), LOCAL_BUCKET_CASES)
async def test_local_buckets_over_packed_weeks_equal_the_readings_on_the_local_clock(
    client: AsyncTestClient,
    pool: asyncpg.Pool,
    make_readings: Callable[[], list[Reading]],
    ranges: list[tuple[str, str, str]],
    resolutions: tuple[str, ...],
) -> None:
    """Local days of avg, sum and count over packed weeks are read as UTC days' rollups
    with the hours across local midnight moved between them (sql/history/history.sql
    bucketed_num_local_days), those hours found by their position in a week's hourly
    arrays, which list only the hours that hold readings. Over each (zone, from, to),
    local days, weeks and months equal the readings bucketed on the local clock (exactly
    for count, avg and sum within 1e-12 of the bucket's greatest value): on days read
    that way (all readings of one sign) and on those read hour by hour (signs mixed, a
    zero), with hours missing, across the autumn and spring changes, in whole ranges and
    ranges cut inside a day."""
    readings = make_readings()
    setup = await local_days_device(pool, readings)
    for (tz, start, end), resolution in [(r, res) for r in ranges for res in resolutions]:
        zone = zoneinfo.ZoneInfo(tz)
        lo, hi = parse(start), parse(end)
        buckets: dict[datetime, list[float]] = {}
        for at, value, *_ in readings:
            if lo <= at < hi:
                buckets.setdefault(local_start(at, zone, resolution), []).append(value)
        for agg in ("avg", "sum", "count"):
            got = await points(
                client,
                setup,
                field="level",
                resolution=resolution,
                agg=agg,
                tz=tz,
                **{"from": start, "to": end},
            )
            context = (tz, start, end, resolution, agg)
            assert [t for t, _ in got] == [iso(b) for b in sorted(buckets)], (context, got)
            for (_, value), bucket in zip(got, sorted(buckets), strict=True):
                values = buckets[bucket]
                want = {"avg": math.fsum(values) / len(values), "sum": math.fsum(values),
                        "count": len(values)}[agg]  # fmt: skip
                scale = max(abs(v) for v in values) * (len(values) if agg == "sum" else 1)
                assert math.isclose(value, want, rel_tol=0, abs_tol=1e-12 * scale), (
                    context, bucket, value, want)  # fmt: skip
