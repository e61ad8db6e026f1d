"""Chart-ready series on GET /devices/{id}/history (analytics.md section 3): fill, maxPoints
with lttb and minmax, the increase, twa, integral and duration aggregates, and their 400s."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import asyncpg
import pytest
from litestar.testing import AsyncTestClient

from app.core.sql import QUERIES
from testkit.factories import World, load
from testkit.history_oracle_chart import lttb_reference, minmax_reference
from tests.support.helpers import bearer
from tests.support.history import iso, nums, parse, record

HISTORY = "/api/v1/devices/{}/history"
RETENTION_DAYS = 800
# A past day well inside retention, at midnight UTC.
DAY = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(days=20)
BERLIN = ZoneInfo("Europe/Berlin")


def local_midnights_of_dst_days() -> tuple[datetime, datetime]:
    """The UTC instants of local midnight on last year's two DST days in Berlin (the last
    Sundays of March and October: 23 and 25 local hours)."""
    year = datetime.now(UTC).year - 1
    days = []
    for month in (3, 10):
        last = datetime(year, month, 31)
        sunday = last - timedelta(days=(last.weekday() + 1) % 7)
        days.append(sunday.replace(tzinfo=BERLIN).astimezone(UTC))
    return days[0], days[1]


@dataclass
class Setup:
    key: str
    devices: list[dict[str, Any]]
    device_nums: list[int]
    field_nums: dict[str, int]
    used: int = 0
    sites: list[dict[str, Any]] = field(default_factory=list)

    def fresh(self) -> tuple[str, int]:
        """A device no other test has written to: its id and num."""
        index = self.used
        self.used += 1
        return self.devices[index]["id"], self.device_nums[index]


@pytest.fixture(scope="module")
async def setup(pool: asyncpg.Pool) -> Setup:
    w = World()
    tier = {"perMinute": 100000, "perDay": 10000000}
    partner = w.partner(plan={"retentionDays": RETENTION_DAYS}, tier=tier)
    sub = w.sub_account(partner)
    fields = {
        "temperature": w.field("temperature"),
        "water": w.field("water", measurement="counter"),
        "door": w.field("door", dataType="string"),
        "open": w.field("open", dataType="boolean"),
        "where": w.field("where", dataType="location"),
    }
    profile = w.profile(partner, fields=list(fields.values()))
    devices = [w.device(sub, profile) for _ in range(40)]
    key = w.key(partner, scopes=["telemetry:read"])
    await load(pool, w)
    device_nums = await nums(pool, "devices", [d["id"] for d in devices])
    field_nums = await nums(pool, "profile_fields", [f["id"] for f in fields.values()])
    return Setup(key, devices, device_nums, dict(zip(fields, field_nums, strict=True)))


async def history(client: AsyncTestClient, setup: Setup, device: str, **params: Any) -> Any:
    return await client.get(HISTORY.format(device), params=params, headers=bearer(setup.key))


async def ok(client: AsyncTestClient, setup: Setup, device: str, **params: Any) -> Any:
    response = await history(client, setup, device, **params)
    assert response.status_code == 200, response.text
    return response.json()["data"]


def at(hours: float = 0, minutes: float = 0, day: datetime = DAY) -> datetime:
    return day + timedelta(hours=hours, minutes=minutes)


async def write(
    pool: asyncpg.Pool,
    setup: Setup,
    device_num: int,
    name: str,
    readings: list[tuple[datetime, Any]],
) -> None:
    for moment, value in readings:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            await record(pool, device_num, moment, {setup.field_nums[name]: value})
        else:
            await record(pool, device_num, moment, others={setup.field_nums[name]: value})


def points(data: dict[str, Any]) -> list[tuple[str, Any]]:
    return [(p["time"], p["value"]) for p in data["points"]]


# Aggregates --------------------------------------------------------------------------------


async def test_twa_and_integral_weigh_values_by_time(
    client: AsyncTestClient, pool: asyncpg.Pool, setup: Setup
) -> None:
    device, num = setup.fresh()
    # The contract's example: 10 at 00:00 and 20 at 00:45 give the hour a twa of 12.5
    # where avg is 15; 20 then holds through the empty hour 01:00.
    await write(pool, setup, num, "temperature", [(at(0), 10.0), (at(0, 45), 20.0)])
    span = {"from": iso(at(0)), "to": iso(at(2)), "resolution": "hourly", "field": "temperature"}
    avg = await ok(client, setup, device, **span)
    assert points(avg) == [(iso(at(0)), 15.0)]
    twa = await ok(client, setup, device, **span, agg="twa")
    assert twa["agg"] == "twa"
    assert points(twa) == [(iso(at(1)), 20.0), (iso(at(0)), 12.5)]
    integral = await ok(client, setup, device, **span, agg="integral")
    assert points(integral) == [(iso(at(1)), 20.0), (iso(at(0)), 12.5)]
    # From 00:30 the value at the start is the reading before it (10, held since 00:00).
    late = await ok(client, setup, device, **{**span, "from": iso(at(0, 30))}, agg="twa")
    assert late["points"][-1] == {"time": iso(at(0)), "value": pytest.approx(15.0)}
    # Before the first reading, with none before it, the time starts at the first reading.
    early = await ok(client, setup, device, **{**span, "from": iso(at(-1))}, agg="twa")
    assert points(early) == [(iso(at(1)), 20.0), (iso(at(0)), 12.5)]


async def test_increase_counts_resets_and_adds_up(
    client: AsyncTestClient, pool: asyncpg.Pool, setup: Setup
) -> None:
    device, num = setup.fresh()
    readings = [(at(-1), 100.0), (at(0, 10), 104.0), (at(0, 40), 110.0), (at(1, 20), 3.0),
                (at(1, 50), 9.0), (at(3, 5), 12.0)]  # fmt: skip
    await write(pool, setup, num, "water", readings)
    span = {"from": iso(at(0)), "to": iso(at(4)), "resolution": "hourly", "field": "water"}
    data = await ok(client, setup, device, **span, agg="increase")
    # Hour 0: 4 (from the reading before `from`) + 6; hour 1: a reset to 3 counts 3, then
    # 6; hour 2 empty; hour 3: 3.
    assert points(data) == [(iso(at(3)), 3.0), (iso(at(1)), 9.0), (iso(at(0)), 10.0)]
    whole = await ok(client, setup, device, **{**span, "resolution": "PT4H"}, agg="increase")
    assert points(whole) == [(iso(at(0)), 22.0)]
    # From 00:30, the hour's first difference is taken from the reading at 00:10.
    late = await ok(client, setup, device, **{**span, "from": iso(at(0, 30))}, agg="increase")
    assert late["points"][-1] == {"time": iso(at(0)), "value": 6.0}


def plain_buckets(
    readings: list[tuple[datetime, Any]],
    lo: datetime,
    hi: datetime,
    width: timedelta,
    agg: str,
    state: str = "",
) -> dict[str, float]:
    """increase, twa or duration (of `state`) per UTC bucket of `width` over [lo, hi),
    written out plainly from section 3 over every reading (each held until the next;
    resets count their value)."""
    ordered = sorted(readings)
    out: dict[str, float] = {}
    if agg == "increase":
        for i, (moment, value) in enumerate(ordered):
            if not lo <= moment < hi:
                continue
            before = ordered[i - 1][1] if i else None
            growth = 0.0 if before is None else value if value < before else value - before
            label = iso(EPOCH + (moment - EPOCH) // width * width)
            out[label] = out.get(label, 0.0) + growth
        return out
    start = EPOCH + (lo - EPOCH) // width * width
    while start < hi:
        a, b = max(start, lo), min(start + width, hi)
        area, covered = 0.0, 0.0
        for i, (moment, value) in enumerate(ordered):
            until = ordered[i + 1][0] if i + 1 < len(ordered) else b
            x, y = max(moment, a), min(until, b)
            if y > x:
                seconds = (y - x).total_seconds()
                held = (value == state) * seconds if agg == "duration" else value * seconds
                area, covered = area + held, covered + seconds
        if covered:
            out[iso(start)] = area if agg == "duration" else area / covered
        start += width
    return out


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def assert_plain_buckets(data: dict[str, Any], want: dict[str, float], *where: Any) -> None:
    """The answer's points are the buckets `want` (plain_buckets), each value to 1e-9;
    `where` (the resolution, the aggregate) names the case in a failure."""
    got = dict(points(data))
    assert sorted(got) == sorted(want), where
    for label, expected in want.items():
        assert math.isclose(got[label], expected, rel_tol=1e-9, abs_tol=1e-9), (
            *where, label, got[label], expected,
        )  # fmt: skip


async def test_packed_partials_answer_as_the_readings_do(
    client: AsyncTestClient, pool: asyncpg.Pool, setup: Setup
) -> None:
    """increase and twa over packed weeks (hourly partials, daily rollups) equal the plain
    computation over the readings, where a partial's period also holds a raw reading that
    came late, another site's readings, uneven times and a reset: those periods are read
    reading by reading, the others merged from their partials."""
    device, num = setup.fresh()
    water = setup.field_nums["water"]
    rng = random.Random(26)
    start = at(0, day=DAY - timedelta(days=3))
    readings: list[tuple[datetime, float, int]] = []
    value = 1000.0
    for step in range(3 * 24 * 6):  # every 10 minutes for three days, but hours 40 and 41
        if 40 * 6 <= step < 42 * 6:
            continue
        moment = start + timedelta(minutes=10 * step + (3 if step % 37 == 0 else 0))
        value = 5.0 if step == 200 else value + rng.randint(0, 9) / 4  # a reset at step 200
        readings.append((moment, value, 0))
    # Another site inside one hour, between site 0's readings.
    readings += [(start + timedelta(hours=30, minutes=5), 7.0, 9),
                 (start + timedelta(hours=30, minutes=25), 8.0, 9)]  # fmt: skip
    for moment, reading, site in readings:
        await record(pool, num, moment, {water: reading}, site_num=site)
    await pool.execute("SELECT pack_closed_chunks(interval '0')")
    packed = await pool.fetchval(
        "SELECT count(*) FROM packed_hours_num WHERE device_num = $1 AND increase IS NOT NULL",
        num,
    )
    assert packed > 0  # the counter's weeks were packed with their increase partials
    # Late readings, raw: inside a packed hour, and inside the empty hour 40 (between two
    # packed hours of a week: the hour after it does not follow the reading its week saw).
    lates = [(start + timedelta(hours=50, minutes=33), readings[-80][1] + 0.5, 0),
             (start + timedelta(hours=40, minutes=30), 3.0, 0)]  # fmt: skip
    for moment, reading, _ in lates:
        await record(pool, num, moment, {water: reading})
    every = [(moment, reading) for moment, reading, _ in [*readings, *lates]]
    for resolution, width in (("hourly", timedelta(hours=1)), ("daily", timedelta(days=1))):
        for agg in ("increase", "twa"):
            lo, hi = start + timedelta(hours=5, minutes=20), start + timedelta(days=3)
            data = await ok(
                client, setup, device, field="water", resolution=resolution, agg=agg,
                **{"from": iso(lo), "to": iso(hi)},
            )  # fmt: skip
            want = plain_buckets(every, lo, hi, width, agg)
            assert_plain_buckets(data, want, resolution, agg)


async def test_packed_duration_partials_answer_as_the_readings_do(
    client: AsyncTestClient, pool: asyncpg.Pool, setup: Setup
) -> None:
    """duration over packed weeks of a state field (hours that keep one value throughout,
    hours that change, another site inside an hour, a late raw reading) equals the plain
    computation over the readings."""
    device, num = setup.fresh()
    door = setup.field_nums["door"]
    rng = random.Random(181)
    start = at(0, day=DAY - timedelta(days=3))
    readings: list[tuple[datetime, str, int]] = []
    state = "closed"
    for step in range(2 * 24 * 4):  # every 15 minutes for two days
        if step % 9 == 0:  # the door moves now and then, so some hours change and most not
            state = rng.choice(["open", "closed", "ajar"])
        readings.append((start + timedelta(minutes=15 * step + step % 3), state, 0))
    readings.append((start + timedelta(hours=20, minutes=7), "open", 4))
    for moment, value, site in readings:
        await record(pool, num, moment, others={door: value}, site_num=site)
    await pool.execute("SELECT pack_closed_chunks(interval '0')")
    late = (start + timedelta(hours=30, minutes=20), "ajar", 0)
    await record(pool, num, late[0], others={door: late[1]})
    every = [(moment, value) for moment, value, _ in [*readings, late]]
    lo, hi = start + timedelta(hours=3, minutes=40), start + timedelta(days=2)
    for resolution, width in (("hourly", timedelta(hours=1)), ("daily", timedelta(days=1))):
        for timed in ("open", "ajar"):
            data = await ok(
                client, setup, device, field="door", resolution=resolution, agg="duration",
                state=timed, **{"from": iso(lo), "to": iso(hi)},
            )  # fmt: skip
            want = plain_buckets(every, lo, hi, width, "duration", timed)
            assert_plain_buckets(data, want, resolution, timed)


async def test_duration_of_a_state(
    client: AsyncTestClient, pool: asyncpg.Pool, setup: Setup
) -> None:
    device, num = setup.fresh()
    await write(pool, setup, num, "door", [(at(-2), "open"), (at(0, 15), "closed"),
                                           (at(0, 45), "open"), (at(1, 30), "closed")])  # fmt: skip
    await write(pool, setup, num, "open", [(at(0, 20), True), (at(0, 50), False)])
    span = {"from": iso(at(0)), "to": iso(at(3)), "resolution": "hourly"}
    door = await ok(client, setup, device, **span, field="door", agg="duration", state="open")
    # 15 + 15 minutes open in hour 0, 30 in hour 1, none in hour 2 (closed held into it).
    assert points(door) == [(iso(at(2)), 0.0), (iso(at(1)), 1800.0), (iso(at(0)), 1800.0)]
    closed = await ok(client, setup, device, **span, field="door", agg="duration",
                      state="closed")  # fmt: skip
    assert points(closed) == [(iso(at(2)), 3600.0), (iso(at(1)), 1800.0), (iso(at(0)), 1800.0)]
    flag = await ok(client, setup, device, **span, field="open", agg="duration", state="true")
    assert points(flag) == [(iso(at(2)), 0.0), (iso(at(1)), 0.0), (iso(at(0)), 1800.0)]


async def test_dst_days_are_23_and_25_hours(
    client: AsyncTestClient, pool: asyncpg.Pool, setup: Setup
) -> None:
    device, num = setup.fresh()
    spring, autumn = local_midnights_of_dst_days()
    await write(pool, setup, num, "water", [(spring, 0.0), (autumn, 0.0)])
    await write(pool, setup, num, "temperature", [(spring, 1.0), (autumn, 1.0)])
    for start, hours in ((spring, 23), (autumn, 25)):
        span = {"from": iso(start), "to": iso(start + timedelta(hours=hours)),
                "resolution": "daily", "tz": "Europe/Berlin", "field": "temperature"}  # fmt: skip
        data = await ok(client, setup, device, **span, agg="integral")
        assert points(data) == [(iso(start), float(hours))]
        # Hourly over the day, local hours as time_bucket forms them: 23 in spring; in
        # autumn the repeated hour 02:00 is one bucket of two UTC hours (labelled, as
        # time_bucket labels it, with the later 02:00, 01:00 UTC).
        hourly = await ok(client, setup, device, **{**span, "resolution": "hourly"},
                          agg="integral", fill="null")  # fmt: skip
        values = {p["time"]: p["value"] for p in hourly["points"]}
        assert sum(values.values()) == hours
        if hours == 23:
            assert set(values.values()) == {1.0} and len(values) == 23
        else:
            repeated = iso(autumn + timedelta(hours=3))  # the later 02:00, 01:00 UTC
            assert len(values) == 24 and values[repeated] == 2.0


# Fill ------------------------------------------------------------------------------------


async def test_fill_modes(client: AsyncTestClient, pool: asyncpg.Pool, setup: Setup) -> None:
    device, num = setup.fresh()
    await write(pool, setup, num, "temperature",
                [(at(-5), 7.0), (at(1, 10), 10.0), (at(4, 20), 40.0)])  # fmt: skip
    span = {"from": iso(at(0)), "to": iso(at(6)), "resolution": "hourly", "field": "temperature"}

    async def filled(**params: Any) -> list[tuple[str, Any, bool]]:
        data = await ok(client, setup, device, **span, **params)
        return [(p["time"], p["value"], p["filled"]) for p in reversed(data["points"])]

    hours = [iso(at(h)) for h in range(6)]
    plain = await ok(client, setup, device, **span)
    assert all("filled" not in p for p in plain["points"]) and len(plain["points"]) == 2
    assert await filled(fill="null") == list(
        zip(hours, [None, 10.0, None, None, 40.0, None], [True, False, True, True, False, True],
            strict=True)
    )  # fmt: skip
    assert [v for _, v, _ in await filled(fill="zero", agg="count")] == [0, 1, 0, 0, 1, 0]
    # previous: before the first non-empty bucket, the last reading before `from` (7).
    assert [v for _, v, _ in await filled(fill="previous")] == [7.0, 10.0, 10.0, 10.0, 40.0, 40.0]
    assert [v for _, v, _ in await filled(fill="previous", agg="count")] == [1, 1, 1, 1, 1, 1]
    # fillMaxGap: a bucket starting more than PT2H after the newest reading carried is null.
    gapped = await filled(fill="previous", fillMaxGap="PT2H")
    assert [v for _, v, _ in gapped] == [None, 10.0, 10.0, 10.0, 40.0, 40.0]
    gapped = await filled(fill="previous", fillMaxGap="PT1H")
    assert [v for _, v, _ in gapped] == [None, 10.0, 10.0, None, 40.0, 40.0]
    assert [v for _, v, _ in await filled(fill="linear")] == [None, 10.0, 20.0, 30.0, 40.0, None]
    # A range ending in the future ends its buckets at now.
    now = datetime.now(UTC)
    ahead = {"from": iso(now - timedelta(days=2)), "to": iso(now + timedelta(days=5))}
    future = await ok(
        client, setup, device, field="temperature", resolution="daily", fill="null", **ahead
    )
    assert len(future["points"]) == 3


async def test_fill_on_dst_day_with_tz(
    client: AsyncTestClient, pool: asyncpg.Pool, setup: Setup
) -> None:
    device, num = setup.fresh()
    start = local_midnights_of_dst_days()[1]  # local midnight of the 25-hour day
    await write(pool, setup, num, "temperature", [(start + timedelta(hours=2), 5.0)])
    data = await ok(client, setup, device, field="temperature", resolution="PT6H",
                    tz="Europe/Berlin", fill="previous",
                    **{"from": iso(start), "to": iso(start + timedelta(hours=25))})  # fmt: skip
    times = [parse(p["time"]) for p in reversed(data["points"])]
    # Local 00:00, 06:00, 12:00 and 18:00: the first bucket is 7 UTC hours long.
    assert [t - start for t in times] == [timedelta(hours=h) for h in (0, 7, 13, 19)]
    assert [p["value"] for p in reversed(data["points"])] == [5.0] * 4


async def test_fill_sorts_buckets_whose_labels_run_backwards(
    client: AsyncTestClient, pool: asyncpg.Pool, setup: Setup
) -> None:
    """New York's first night of standard time: 05:59 UTC is 01:59 EDT, in the local
    bucket 01:45 that time_bucket labels 06:45 UTC (the later 01:45); 06:00 UTC is 01:00
    EST, labelled 06:00 UTC. Newest first means 06:45, then 06:00 (the oracle's case
    10,284 answered them in the order of their first instants)."""
    device, num = setup.fresh()
    year = datetime.now(UTC).year - 1
    first = datetime(year, 11, 1, tzinfo=UTC)
    sunday = first + timedelta(days=(6 - first.weekday()) % 7)  # the first Sunday
    change = sunday + timedelta(hours=6)  # 02:00 EDT, the clock goes back to 01:00 EST
    await write(pool, setup, num, "temperature", [(change - timedelta(minutes=1), 3.0)])
    data = await ok(client, setup, device, field="temperature", resolution="PT15M",
                    tz="America/New_York", fill="null",
                    **{"from": iso(change - timedelta(minutes=1)),
                       "to": iso(change + timedelta(microseconds=1))})  # fmt: skip
    assert [(p["time"], p["value"], p["filled"]) for p in data["points"]] == [
        (iso(change + timedelta(minutes=45)), 3.0, False),
        (iso(change), None, True),
    ]


# Downsampling -------------------------------------------------------------------------------


async def test_max_points_lttb_and_minmax_keep_real_readings(
    client: AsyncTestClient, pool: asyncpg.Pool, setup: Setup
) -> None:
    device, num = setup.fresh()
    rng = random.Random(26)
    moments, values, moment = [], [], at(0)
    for _ in range(1500):  # uneven intervals, more than the raw cap of 500
        moment += timedelta(seconds=rng.randrange(20, 200))
        moments.append(moment)
        values.append(round(rng.gauss(20, 5), 3))
    await pool.executemany(
        "SELECT record_readings($1, 0, $2, ARRAY[$3::integer], ARRAY[$4::float8], '{}', '{}')",
        [
            (num, m, setup.field_nums["temperature"], v)
            for m, v in zip(moments, values, strict=True)
        ],
    )
    start, end = at(0), moment + timedelta(seconds=1)
    span = {"from": iso(start), "to": iso(end), "field": "temperature"}
    micros = [int((m - datetime(1970, 1, 1, tzinfo=UTC)) / timedelta(microseconds=1))
              for m in moments]  # fmt: skip
    for max_points in (2, 3, 10, 137, 1000):
        data = await ok(client, setup, device, **span, maxPoints=max_points)
        expected = lttb_reference([t / 1e6 for t in micros], values, max_points)
        assert data["downsampled"] == {"method": "lttb", "readings": 1500, "points": len(expected)}
        assert points(data) == [(iso(moments[i]), values[i]) for i in reversed(expected)]
        assert "truncated" not in data
        data = await ok(client, setup, device, **span, maxPoints=max_points, downsample="minmax")
        lo = int((start - datetime(1970, 1, 1, tzinfo=UTC)) / timedelta(microseconds=1))
        hi = int((end - datetime(1970, 1, 1, tzinfo=UTC)) / timedelta(microseconds=1))
        expected = minmax_reference(micros, values, lo, hi, max_points)
        assert data["downsampled"]["method"] == "minmax"
        assert points(data) == [(iso(moments[i]), values[i]) for i in reversed(expected)]
    everything = await ok(client, setup, device, **span, maxPoints=1500)
    assert "downsampled" not in everything and len(everything["points"]) == 1500


# Errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "names"),
    [
        ({"fill": "null"}, "fill: applies to bucketed resolutions only"),
        ({"resolution": "hourly", "fill": "zero"}, "zero applies only with agg count or sum"),
        ({"resolution": "hourly", "fill": "sideways"}, "fill: must be one of"),
        ({"resolution": "hourly", "fill": "null", "fillMaxGap": "PT1H"}, "fillMaxGap"),
        ({"resolution": "hourly", "fill": "previous", "fillMaxGap": "soon"}, "fillMaxGap"),
        (
            {"resolution": "hourly", "agg": "twa", "field": "door"},
            "twa applies to number fields only; this is a string field of measurement state",
        ),
        (
            {"resolution": "hourly", "agg": "increase"},
            "increase applies to counter fields only; this is a number field of measurement gauge",
        ),
        (
            {"resolution": "hourly", "agg": "integral", "field": "where"},
            "this is a location field of measurement null",
        ),
        ({"resolution": "hourly", "agg": "duration", "field": "door"}, "needs state"),
        (
            {"resolution": "hourly", "agg": "duration", "state": "x", "field": "water"},
            "duration applies to state fields only; this is a number field of measurement counter",
        ),
        (
            {"resolution": "hourly", "agg": "duration", "field": "open", "state": "yes"},
            "true or false",
        ),
        ({"resolution": "hourly", "agg": "avg", "state": "open"}, "state: applies only"),
        ({"maxPoints": "1"}, "maxPoints: must be an integer from 2 to 10000"),
        ({"maxPoints": "10001"}, "maxPoints: must be an integer from 2 to 10000"),
        ({"maxPoints": "many"}, "maxPoints: must be an integer"),
        ({"maxPoints": "10", "field": "door"}, "maxPoints: applies to number fields"),
        ({"maxPoints": "10", "resolution": "hourly"}, "maxPoints: applies to resolution=raw"),
        ({"downsample": "lttb"}, "downsample: applies only with maxPoints"),
        ({"maxPoints": "10", "downsample": "mean"}, "downsample: must be lttb or minmax"),
    ],
)
async def test_rules_broken_are_400_naming_the_rule(
    client: AsyncTestClient, setup: Setup, params: dict[str, Any], names: str
) -> None:
    params = {"field": "temperature", "from": iso(at(0)), "to": iso(at(2)), **params}
    response = await history(client, setup, setup.devices[-1]["id"], **params)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_parameter"
    assert names in error["message"]


async def test_reading_before_an_hour_from_partials_and_raw_rows(pool: asyncpg.Pool) -> None:
    """The reading before a `from` on a whole hour comes from the newest packed hour
    before it and the raw rows (span_parts_num): it is the one readings_num_newest finds
    by unpacking, when the newest packed week before `from` has no hour before it, when a
    late raw reading is newer than the packed ones, when two readings share a time (the
    greater value), across sites, and after the retention cutoff (none)."""
    w = World()
    partner = w.partner(plan={"retentionDays": 3650}, tier={"perMinute": 100_000, "perDay": 10**7})
    profile = w.profile(partner, fields=[w.field("level")])
    device = w.device(w.sub_account(partner), profile)
    await load(pool, w)
    [num] = await nums(pool, "devices", [device["id"]])
    [level] = await nums(pool, "profile_fields", [profile["fields"][0]["id"]])
    monday = datetime(2025, 3, 3, tzinfo=UTC)
    packed = [
        (monday + timedelta(hours=3, minutes=20), 9.0, 0),  # an earlier hour of the week
        (monday + timedelta(hours=5, minutes=10), 1.0, 0),
        (monday + timedelta(hours=5, minutes=40), 2.0, 0),
        (monday + timedelta(hours=5, minutes=40), 3.0, 0),  # same time: the greater value
        (monday + timedelta(hours=7, minutes=59), 4.0, 4),  # another site, later
        (monday + timedelta(days=15, hours=2), 5.0, 0),  # a week later than an empty one
    ]
    for at, value, site in packed:
        await record(pool, num, at, {level: value}, site_num=site)
    await pool.execute("SELECT pack_closed_chunks(interval '0')")
    assert await pool.fetchval("SELECT count(*) FROM packed_num WHERE device_num = $1", num)
    await record(pool, num, monday + timedelta(hours=6, minutes=30), {level: 6.0})  # late, raw
    sql = QUERIES["history.span_parts_num"]
    cutoffs = [monday - timedelta(days=30), monday + timedelta(hours=5, minutes=30)]
    for hours in (0, 5, 6, 7, 8, 9, 30, 24 * 14, 24 * 15 + 2, 24 * 15 + 3, 24 * 22):
        start = monday + timedelta(hours=hours)
        for cutoff in cutoffs:
            for site_filter in (None, 0, 4):
                want = await pool.fetchrow(
                    """SELECT (extract(epoch FROM n.times[1]) * 1000000)::bigint AS t,
                              n.values[1] AS v
                         FROM readings_num_newest($1, $2, $3, $4, $5, 1) n""",
                    num, level, cutoff, start, site_filter,
                )  # fmt: skip
                end = start + timedelta(days=1)
                got = await pool.fetchrow(
                    sql,
                    num,
                    level,
                    start,
                    end,
                    site_filter,
                    1000,
                    cutoff,
                    end,
                    end,
                    end,
                    end,
                    False,
                )
                assert (got["before_time"], got["before_value"]) == (want["t"], want["v"]), (
                    hours, cutoff, site_filter, got, want)  # fmt: skip
