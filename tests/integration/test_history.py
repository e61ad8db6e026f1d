"""GET /devices/{id}/history: every rule of api-spec 4.3 and decisions D12 (and D3 order)."""

from __future__ import annotations

import asyncio
import os
import sys
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from litestar.testing import AsyncTestClient

from app.history.maintenance import pack_closed_weeks
from testkit.factories import ReadDevices, World, load, telemetry_keys
from tests.support.helpers import assert_error, bearer
from tests.support.history import iso, nums, parse, record

HISTORY = "/api/v1/devices/{}/history"
RETENTION_DAYS = 90
NOW = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)


@dataclass
class Setup(ReadDevices):
    single_site_key: str
    device_num: int
    single_site_device: dict[str, Any]
    single_site_num: int
    fields: dict[str, dict[str, Any]]
    field_nums: dict[str, int]
    sites: list[dict[str, Any]]
    site_nums: list[int]
    foreign_site: dict[str, Any]


@pytest.fixture(scope="module")
async def setup(pool: asyncpg.Pool) -> Setup:
    w = World()
    tier = {"perMinute": 100000, "perDay": 10000000}
    partner = w.partner(
        plan={"apiWrite": False, "retentionDays": RETENTION_DAYS},
        features={"networks": False, "multiSite": True},
        tier=tier,
    )
    sub = w.sub_account(partner)
    other_sub = w.sub_account(partner)
    fields = {
        "temperature": w.field("temperature"),
        "label": w.field("label", dataType="string"),
        "open": w.field("open", dataType="boolean"),
        "where": w.field("where", dataType="location"),
        "installed": w.field("installed", dataType="date", kind="static", default="2026-01-01"),
        "seen": w.field("seen", dataType="date"),
        "level": w.field("level"),
    }
    profile = w.profile(partner, fields=list(fields.values()))
    sites = [w.site(sub), w.site(sub)]
    device = w.device(sub, profile, site=sites[0])
    other_device = w.device(other_sub, profile)
    inventory = w.device(partner, profile)
    archived = w.device(sub, profile, status="archived")

    foreign_partner = w.partner(features={"multiSite": True}, tier=tier)
    foreign_sub = w.sub_account(foreign_partner)
    foreign_profile = w.profile(foreign_partner)
    foreign = w.device(foreign_sub, foreign_profile)
    foreign_site = w.site(foreign_sub)

    single = w.partner(plan={"retentionDays": RETENTION_DAYS}, tier=tier)
    single_sub = w.sub_account(single)
    single_device = w.device(single_sub, w.profile(single))

    setup = Setup(
        **telemetry_keys(
            w, partner, sub, other_sub, foreign_partner, ("devices:read", "telemetry:read")
        ),
        single_site_key=w.key(single, scopes=["telemetry:read"]),
        device=device,
        device_num=0,
        other_device=other_device,
        inventory=inventory,
        archived=archived,
        foreign=foreign,
        single_site_device=single_device,
        single_site_num=0,
        fields=fields,
        field_nums={},
        sites=sites,
        site_nums=[],
        foreign_site=foreign_site,
    )
    await load(pool, w)
    setup.device_num, setup.single_site_num = await nums(
        pool, "devices", [device["id"], single_device["id"]]
    )
    field_nums = await nums(pool, "profile_fields", [f["id"] for f in fields.values()])
    setup.field_nums = dict(zip(fields, field_nums, strict=True))
    setup.site_nums = await nums(pool, "sites", [s["id"] for s in sites])
    return setup


async def get(client: AsyncTestClient, key: str, device: str, **params: Any) -> Any:
    return await client.get(HISTORY.format(device), params=params, headers=bearer(key))


async def own(client: AsyncTestClient, setup: Setup, **params: Any) -> Any:
    """The history of the setup's device, asked with its partner's key."""
    return await get(client, setup.partner_key, setup.device["id"], **params)


async def between(
    client: AsyncTestClient, setup: Setup, start: str, end: str, **params: Any
) -> Any:
    """The setup device's history from `start` to `end` (its temperature unless `field`)."""
    params.setdefault("field", "temperature")
    return await own(client, setup, **{"from": start, "to": end}, **params)


# Raw -------------------------------------------------------------------------------------


async def test_raw_newest_first_with_site_at_arrival(
    client: AsyncTestClient, pool: asyncpg.Pool, setup: Setup
) -> None:
    temp = setup.field_nums["temperature"]
    base = NOW - timedelta(days=3)
    for i, (minutes, site) in enumerate([(10, 0), (0, 1), (20, 0), (5, 2)]):
        site_num = setup.site_nums[site - 1] if site else 0
        await record(
            pool,
            setup.device_num,
            base + timedelta(minutes=minutes),
            {temp: i + 0.5},
            site_num=site_num,
        )
    response = await between(client, setup, iso(base), iso(base + timedelta(hours=1)))
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == {"data"}
    data = body["data"]
    assert set(data) == {"deviceId", "field", "resolution", "from", "to", "points"}
    assert data["deviceId"] == setup.device["id"]
    assert data["field"] == "temperature"
    assert data["resolution"] == "raw"
    assert data["from"] == iso(base) and data["to"] == iso(base + timedelta(hours=1))
    assert data["points"] == [
        {"time": iso(base + timedelta(minutes=20)), "value": 2.5, "siteId": None},
        {"time": iso(base + timedelta(minutes=10)), "value": 0.5, "siteId": None},
        {"time": iso(base + timedelta(minutes=5)), "value": 3.5, "siteId": setup.sites[1]["id"]},
        {"time": iso(base), "value": 1.5, "siteId": setup.sites[0]["id"]},
    ]

    by_uuid = await get(
        client,
        setup.sub_key,
        setup.device["devEui"],
        field=setup.fields["temperature"]["id"],
        **{"from": iso(base), "to": iso(base + timedelta(minutes=10))},
    )
    assert by_uuid.status_code == 200, by_uuid.text
    assert by_uuid.json()["data"]["field"] == "temperature"
    assert [p["value"] for p in by_uuid.json()["data"]["points"]] == [3.5, 1.5]

    at_site = await between(
        client, setup, iso(base), iso(base + timedelta(hours=1)), siteId=setup.sites[1]["id"]
    )
    assert at_site.json()["data"]["points"] == [
        {"time": iso(base + timedelta(minutes=5)), "value": 3.5, "siteId": setup.sites[1]["id"]}
    ]
    for other_site in (setup.foreign_site["id"], str(uuid.uuid4())):
        nothing = await between(
            client, setup, iso(base), iso(base + timedelta(hours=1)), siteId=other_site
        )
        assert nothing.status_code == 200
        assert nothing.json()["data"]["points"] == []


async def test_raw_is_capped_at_500_with_truncated(
    client: AsyncTestClient, pool: asyncpg.Pool, setup: Setup
) -> None:
    temp = setup.field_nums["temperature"]
    base = NOW - timedelta(days=10)
    for i in range(501):
        await record(pool, setup.device_num, base + timedelta(seconds=i), {temp: float(i)})
    window = {"from": iso(base), "to": iso(base + timedelta(hours=1))}
    full = (await own(client, setup, field="temperature", **window)).json()["data"]
    assert full["truncated"] is True
    assert len(full["points"]) == 500
    assert full["points"][0]["value"] == 500.0
    assert full["points"][-1]["value"] == 1.0
    # Paging back: `to` = the oldest time received.
    older = (await between(client, setup, iso(base), full["points"][-1]["time"])).json()["data"]
    assert "truncated" not in older
    assert [p["value"] for p in older["points"]] == [0.0]
    after_first = iso(base + timedelta(seconds=1))
    exactly = (await between(client, setup, after_first, window["to"])).json()["data"]
    assert len(exactly["points"]) == 500 and "truncated" not in exactly


# Bucketed --------------------------------------------------------------------------------


async def test_bucketed_aggregates_with_partial_edges(
    client: AsyncTestClient, pool: asyncpg.Pool, setup: Setup
) -> None:
    temp = setup.field_nums["temperature"]
    day = (NOW - timedelta(days=20)).replace(hour=0)
    readings = {  # minutes after midnight -> value
        30: 1.0,
        50: 3.0,
        70: 10.0,
        119: 4.0,
        125: -2.0,
        24 * 60 + 5: 7.0,
        2 * 24 * 60 + 1: 8.0,
    }
    for minutes, value in readings.items():
        await record(pool, setup.device_num, day + timedelta(minutes=minutes), {temp: value})
    # [00:40, 2nd day 00:30): hour 0 is partial (only the 50-minute reading counts).
    window = {
        "from": iso(day + timedelta(minutes=40)),
        "to": iso(day + timedelta(days=1, minutes=30)),
    }

    async def points(resolution: str, agg: str | None = None) -> list[tuple[str, Any]]:
        params = {"field": "temperature", "resolution": resolution, **window}
        if agg:
            params["agg"] = agg
        response = await own(client, setup, **params)
        assert response.status_code == 200, response.text
        data = response.json()["data"]
        assert data["resolution"] == resolution
        assert data["agg"] == (agg or "avg")
        assert all(set(p) == {"time", "value"} for p in data["points"])
        return [(p["time"], p["value"]) for p in data["points"]]

    h = lambda hours: iso(day + timedelta(hours=hours))  # noqa: E731
    assert await points("hourly") == [(h(24), 7.0), (h(2), -2.0), (h(1), 7.0), (h(0), 3.0)]
    assert await points("PT1H", "sum") == [(h(24), 7.0), (h(2), -2.0), (h(1), 14.0), (h(0), 3.0)]
    assert await points("PT1H", "count") == [(h(24), 1), (h(2), 1), (h(1), 2), (h(0), 1)]
    assert await points("PT2H", "min") == [(h(24), 7.0), (h(2), -2.0), (h(0), 3.0)]
    assert await points("daily", "max") == [(h(24), 7.0), (h(0), 10.0)]
    assert await points("P1D", "last") == [(h(24), 7.0), (h(0), -2.0)]
    assert await points("P1D", "avg") == [(h(24), 7.0), (h(0), 15.0 / 4)]
    assert await points("PT45M", "count") == [
        (iso(day + timedelta(minutes=24 * 60)), 1),
        (iso(day + timedelta(minutes=90)), 2),
        (iso(day + timedelta(minutes=45)), 2),
    ]


async def test_weeks_start_on_monday_and_months_on_the_first(
    client: AsyncTestClient, pool: asyncpg.Pool, setup: Setup
) -> None:
    temp = setup.field_nums["temperature"]
    start = (NOW - timedelta(days=60)).replace(hour=0)
    span = {"from": iso(start), "to": iso(start + timedelta(days=40))}
    await record(pool, setup.device_num, start + timedelta(days=17, hours=5), {temp: 100.0})
    moment = start + timedelta(days=17, hours=5)
    monday = (moment - timedelta(days=moment.weekday())).replace(hour=0)
    first = moment.replace(day=1, hour=0)
    week = await own(client, setup, field="temperature", resolution="P1W", agg="max", **span)
    assert (iso(monday), 100.0) in [(p["time"], p["value"]) for p in week.json()["data"]["points"]]
    month = await own(client, setup, field="temperature", resolution="P1M", agg="max", **span)
    assert (iso(first), 100.0) in [(p["time"], p["value"]) for p in month.json()["data"]["points"]]


async def test_non_numeric_fields_and_last_ties(
    client: AsyncTestClient, pool: asyncpg.Pool, setup: Setup
) -> None:
    nums_ = setup.field_nums
    base = NOW - timedelta(days=30)
    place = {"latitude": 52.1, "longitude": 4.3, "altitude": None}
    await record(pool, setup.device_num, base, others={nums_["label"]: "a", nums_["open"]: True})
    await record(
        pool,
        setup.device_num,
        base + timedelta(minutes=1),
        others={nums_["label"]: "c", nums_["where"]: place},
    )
    await record(pool, setup.device_num, base + timedelta(minutes=1), others={nums_["label"]: "b"})
    await record(pool, setup.device_num, base + timedelta(minutes=1), {nums_["temperature"]: 2.0})
    await record(pool, setup.device_num, base + timedelta(minutes=1), {nums_["temperature"]: 5.0})
    await record(pool, setup.device_num, base + timedelta(minutes=1), {nums_["temperature"]: 3.0})
    window = {"from": iso(base), "to": iso(base + timedelta(hours=1))}

    raw = (await own(client, setup, field="label", **window)).json()["data"]
    assert [p["value"] for p in raw["points"]] == ["c", "b", "a"]
    where = (await own(client, setup, field="where", **window)).json()["data"]
    assert [p["value"] for p in where["points"]] == [place]
    flag = (await own(client, setup, field="open", **window)).json()["data"]
    assert [p["value"] for p in flag["points"]] == [True]

    for resolution in ("PT1H", "P1D", "PT10M"):
        last = await own(client, setup, field="label", resolution=resolution, agg="last", **window)
        assert [p["value"] for p in last.json()["data"]["points"]] == ["c"], resolution
        count = await own(
            client, setup, field="label", resolution=resolution, agg="count", **window
        )
        assert [p["value"] for p in count.json()["data"]["points"]] == [3], resolution
        tie = await own(
            client, setup, field="temperature", resolution=resolution, agg="last", **window
        )
        assert [p["value"] for p in tie.json()["data"]["points"]] == [5.0], resolution
    for agg in ("avg", "min", "max", "sum"):
        refused = await own(client, setup, field="label", resolution="PT1H", agg=agg, **window)
        assert_error(refused, 400, "invalid_parameter", "agg")


async def test_signal_quality_and_static_fields(
    client: AsyncTestClient, pool: asyncpg.Pool, setup: Setup
) -> None:
    base = NOW - timedelta(days=40)
    await record(pool, setup.device_num, base, {0: 80.0})
    await record(pool, setup.device_num, base + timedelta(minutes=30), {0: 60.0})
    window = {"from": iso(base), "to": iso(base + timedelta(hours=1))}
    raw = (await own(client, setup, field="signal_quality", **window)).json()
    assert raw["data"]["field"] == "signal_quality"
    assert [p["value"] for p in raw["data"]["points"]] == [60.0, 80.0]
    avg = await own(client, setup, field="signal_quality", resolution="hourly", **window)
    assert avg.json()["data"]["points"] == [{"time": iso(base), "value": 70.0}]
    static = await own(client, setup, field="installed", **window)
    assert static.status_code == 200
    assert static.json()["data"]["points"] == [] and static.json()["data"]["field"] == "installed"
    static_by_id = await own(
        client,
        setup,
        field=setup.fields["installed"]["id"],
        resolution="daily",
        agg="count",
        **window,
    )
    assert static_by_id.json()["data"]["points"] == []


# Retention -------------------------------------------------------------------------------


async def test_retention_clamps_and_refuses(
    client: AsyncTestClient, pool: asyncpg.Pool, setup: Setup
) -> None:
    temp = setup.field_nums["temperature"]
    old = NOW - timedelta(days=RETENTION_DAYS + 5)
    await record(pool, setup.device_num, old, {temp: 1.0})
    await record(pool, setup.device_num, NOW - timedelta(days=RETENTION_DAYS - 1), {temp: 2.0})
    before = datetime.now(UTC)
    for resolution in ("raw", "P1D"):
        response = await own(
            client,
            setup,
            field="temperature",
            resolution=resolution,
            **{
                "from": iso(old - timedelta(days=1)),
                "to": iso(NOW - timedelta(days=RETENTION_DAYS - 2)),
            },
        )
        assert response.status_code == 200, response.text
        data = response.json()["data"]
        assert data["clamped"] is True
        cutoff = parse(data["retentionCutoff"])
        assert (
            before - timedelta(days=RETENTION_DAYS)
            <= cutoff
            <= datetime.now(UTC) - timedelta(days=RETENTION_DAYS)
        )
        assert data["from"] == data["retentionCutoff"]
        assert [p["value"] for p in data["points"]] == [2.0]
    outside = await between(
        client, setup, iso(old - timedelta(days=1)), iso(old + timedelta(days=1))
    )
    assert_error(outside, 403, "outside_retention")
    inside = await between(client, setup, iso(NOW - timedelta(days=2)), iso(NOW))
    assert "clamped" not in inside.json()["data"] and "retentionCutoff" not in inside.json()["data"]


async def test_retention_job_drops_only_what_no_plan_may_read(
    pool: asyncpg.Pool, database_url: str, setup: Setup
) -> None:
    longest = await pool.fetchval("SELECT max(retention_days) FROM partners")
    ancient = datetime.now(UTC) - timedelta(days=longest + 200)
    device_num = 2_000_000_000
    await record(pool, device_num, ancient, {1: 1.0}, others={2: "x"})
    await record(pool, device_num, datetime.now(UTC) - timedelta(days=1), {1: 2.0})

    async with pool.acquire() as holder, holder.transaction():
        await holder.execute("SELECT pg_advisory_xact_lock(7301994212)")
        assert await pool.fetchval("SELECT history_retention_run()") is None

    env = {**os.environ, "DATABASE_URL": database_url}
    process = await asyncio.create_subprocess_exec(
        str(Path(sys.executable).parent / "telemetry"),
        "retention",
        "run",
        "--pack",
        "--compact",
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode == 0, err.decode()
    lines = out.decode().splitlines()
    assert lines[0].startswith("chunks packed: ") and int(lines[0].split(":")[1]) >= 1
    assert lines[1].startswith("chunks dropped: ") and int(lines[1].split(":")[1]) >= 1
    assert lines[2].startswith("chunks compacted: ")
    left = await pool.fetch(
        "SELECT value FROM readings_num_in($1, 1, $2, now()) ORDER BY time",
        device_num,
        ancient - timedelta(days=1),
    )
    assert [r["value"] for r in left] == [2.0]
    # The ancient week was packed, then its packed chunk dropped.
    for kind, field in (("num", 1), ("other", 2)):
        assert not await pool.fetchval(
            f"SELECT count(*) FROM readings_{kind}_in($1, $2, $3, $4)",
            device_num,
            field,
            ancient - timedelta(days=7),
            ancient + timedelta(days=7),
        ), kind
    assert await pool.fetchval("SELECT history_retention_run()") == 0


async def test_packing_and_compaction_keep_every_answer(
    client: AsyncTestClient, pool: asyncpg.Pool, setup: Setup
) -> None:
    temp = setup.field_nums["temperature"]
    base = (NOW - timedelta(days=50)).replace(hour=0)
    for i in range(48):
        value = float(i % 7)
        await record(pool, setup.device_num, base + timedelta(minutes=37 * i), {temp: value})
    window = {"from": iso(base), "to": iso(base + timedelta(days=2))}

    async def answers() -> list[Any]:
        out = []
        for resolution, agg in (
            ("raw", None),
            ("hourly", "avg"),
            ("daily", "last"),
            ("PT7M", "max"),
        ):
            params: dict[str, Any] = {"field": "temperature", "resolution": resolution, **window}
            if agg:
                params["agg"] = agg
            response = await get(client, setup.partner_key, setup.device["id"], **params)
            assert response.status_code == 200, response.text
            out.append(response.json())
        return out

    before = await answers()
    assert await pack_closed_weeks(pool, 0) >= 1
    assert not await pool.fetchval(
        "SELECT count(*) FROM readings_num WHERE device_num = $1 AND time >= $2 AND time < $3",
        setup.device_num,
        base,
        base + timedelta(days=2),
    )
    assert await answers() == before
    # The packed chunks, clustered (compaction takes closed chunks; this one is forced).
    async with pool.acquire() as connection, connection.transaction():
        compacted = await connection.fetchval("SELECT history_compact_next('-400 days')")
    assert compacted is not None
    assert await answers() == before


# Errors and their order ------------------------------------------------------------------


# Days for the ranges below; `field` and the rest of the query come from the test's base.
JAN1, JAN2, JAN3 = (f"2026-01-0{day}T00:00:00Z" for day in (1, 2, 3))


@pytest.mark.parametrize(
    ("params", "name"),
    [
        ({"from": "yesterday", "to": JAN2}, "from"),
        ({"from": JAN1, "to": "2026-13-02"}, "to"),
        ({"from": JAN2, "to": JAN2}, "from"),
        ({"from": JAN3, "to": JAN2}, "from"),
        ({"resolution": "weekly"}, "resolution"),
        ({"resolution": "PT0S"}, "resolution"),
        ({"resolution": "PT0.5S"}, "resolution"),
        ({"resolution": "P1M1D"}, "resolution"),
        ({"resolution": "P"}, "resolution"),
        ({"resolution": "PT1S", "from": JAN1, "to": JAN2}, "resolution"),
        ({"resolution": "P200000000Y"}, "resolution"),
        ({"resolution": "PT3000000000H"}, "resolution"),
        ({"resolution": "P101Y"}, "resolution"),
        ({"resolution": "P36526D"}, "resolution"),
        ({"resolution": "P" + "9" * 5000 + "D"}, "resolution"),
        ({"resolution": "P0.5M"}, "resolution"),
        ({"resolution": "P1.5Y"}, "resolution"),
        ({"resolution": "PT1.5H30M"}, "resolution"),
        ({"from": "0001-01-01T00:00:00+01:00"}, "from"),
        ({"to": "0001-01-01T00:30:00+01:00"}, "to"),
        ({"from": JAN1, "to": "9999-12-31T23:59:59-01:00"}, "to"),
        ({"field": "\x00x"}, "field"),
        ({"siteId": "\x00"}, "siteId"),
        ({"resolution": "PT1H", "agg": "median"}, "agg"),
        ({"agg": "avg"}, "agg"),
        ({"resolution": "raw", "agg": "last"}, "agg"),
        ({"field": "pressure"}, "field"),
        ({"field": str(uuid.uuid4())}, "field"),
        ({"siteId": "not-a-uuid"}, "siteId"),
    ],
)
async def test_bad_parameters_are_400_naming_them(
    client: AsyncTestClient, setup: Setup, params: dict[str, str], name: str
) -> None:
    base = {"field": "temperature", "from": iso(NOW - timedelta(days=1)), "to": iso(NOW)}
    response = await own(client, setup, **{**base, **params})
    assert_error(response, 400, "invalid_parameter", name)


async def test_missing_parameters_name_the_parameter(client: AsyncTestClient, setup: Setup) -> None:
    for missing in ("field", "from", "to"):
        params = {"field": "temperature", "from": iso(NOW - timedelta(days=1)), "to": iso(NOW)}
        del params[missing]
        response = await own(client, setup, **params)
        assert_error(response, 400, "invalid_parameter", missing)


async def test_ten_thousand_buckets_is_the_limit(client: AsyncTestClient, setup: Setup) -> None:
    start = NOW - timedelta(days=2)
    ok = await between(
        client, setup, iso(start), iso(start + timedelta(minutes=10_000)), resolution="PT1M"
    )
    assert ok.status_code == 200, ok.text
    over = await between(
        client,
        setup,
        iso(start),
        iso(start + timedelta(minutes=10_000, seconds=1)),
        resolution="PT1M",
    )
    assert_error(over, 400, "invalid_parameter", "resolution")


async def test_scope_feature_and_tenancy(client: AsyncTestClient, setup: Setup) -> None:
    window = {"field": "temperature", "from": iso(NOW - timedelta(days=1)), "to": iso(NOW)}
    assert_error(
        await get(client, setup.no_scope_key, setup.device["id"], **window),
        403,
        "insufficient_scope",
    )
    # Feature switch before parameter validation and resolution (D3).
    assert_error(
        await get(client, setup.single_site_key, setup.single_site_device["id"], siteId="x"),
        403,
        "multi_site_disabled",
    )
    assert_error(
        await get(
            client, setup.single_site_key, str(uuid.uuid4()), siteId=str(uuid.uuid4()), **window
        ),
        403,
        "multi_site_disabled",
    )
    without_site = await get(
        client, setup.single_site_key, setup.single_site_device["id"], **window
    )
    assert without_site.status_code == 200
    # Parameters before resolution: a bad parameter on an unknown device is 400.
    assert_error(
        await get(client, setup.partner_key, str(uuid.uuid4()), resolution="bad", **window),
        400,
        "invalid_parameter",
        "resolution",
    )
    # Raw and bucketed reads: each reads the device with its points in one statement
    # (app/history/service.py points_with_context), which must hide them alike.
    for key, device in [
        (setup.foreign_key, setup.device["id"]),
        (setup.partner_key, setup.foreign["id"]),
        (setup.partner_key, setup.inventory["id"]),
        (setup.partner_key, setup.archived["id"]),
        (setup.other_sub_key, setup.device["id"]),
        (setup.sub_key, setup.other_device["id"]),
        (setup.partner_key, str(uuid.uuid4())),
        (setup.partner_key, "0000000000000000"),
        (setup.partner_key, "nonsense"),
    ]:
        for bucketing in ({}, {"resolution": "daily"}, {"resolution": "PT1H", "agg": "max"}):
            answer = await get(client, key, device, **window, **bucketing)
            assert_error(answer, 404, "not_found")
    # Resolution before the retention rule: an unknown device far in the past is 404.
    past = {"field": "temperature", "from": "2001-01-01T00:00:00Z", "to": "2001-01-02T00:00:00Z"}
    assert_error(await get(client, setup.partner_key, str(uuid.uuid4()), **past), 404, "not_found")
    assert_error(await own(client, setup, **past), 403, "outside_retention")


async def test_site_ids_read_null_without_multi_site(
    client: AsyncTestClient, pool: asyncpg.Pool, setup: Setup
) -> None:
    field_num = await pool.fetchval(
        "SELECT f.num FROM profile_fields f JOIN devices d ON d.profile_id = f.profile_id"
        " WHERE d.id = $1",
        setup.single_site_device["id"],
    )
    at = NOW - timedelta(days=1)
    await record(pool, setup.single_site_num, at, {field_num: 1.0}, site_num=setup.site_nums[0])
    data = (
        await get(
            client,
            setup.single_site_key,
            setup.single_site_device["id"],
            field="temperature",
            **{"from": iso(at), "to": iso(NOW)},
        )
    ).json()["data"]
    assert data["points"] == [{"time": iso(at), "value": 1.0, "siteId": None}]


# Limits of the input ----------------------------------------------------------------------


async def test_calendar_limits_answer_without_error(client: AsyncTestClient, setup: Setup) -> None:
    # The next hour or day boundary after 9999-12-31T23:30 is past the last datetime.
    for resolution in ("hourly", "daily", "P1M", "PT7M"):
        response = await between(
            client, setup, "9999-12-31T23:30:00Z", "9999-12-31T23:59:00Z", resolution=resolution
        )
        assert response.status_code == 200, (resolution, response.text)
        assert response.json()["data"]["points"] == []
    # A range from year 1 is clamped to the retention.
    clamped = await between(
        client, setup, "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", resolution="P100Y"
    )
    assert clamped.status_code == 200, clamped.text
    assert clamped.json()["data"]["clamped"] is True


async def test_timestamp_without_offset_is_utc(
    client: AsyncTestClient, pool: asyncpg.Pool, setup: Setup
) -> None:
    level = setup.field_nums["level"]
    base = NOW - timedelta(days=5)
    await record(pool, setup.device_num, base + timedelta(minutes=1), {level: 1.0})
    await record(pool, setup.device_num, base + timedelta(minutes=59), {level: 2.0})
    naive = base.replace(tzinfo=None)
    plain = await between(
        client, setup, naive.isoformat(), (naive + timedelta(minutes=30)).isoformat(), field="level"
    )
    assert plain.status_code == 200, plain.text
    data = plain.json()["data"]
    assert data["from"] == iso(base) and data["to"] == iso(base + timedelta(minutes=30))
    assert [p["value"] for p in data["points"]] == [1.0]
    # The same instant with another offset.
    shifted = await own(
        client,
        setup,
        field="level",
        **{
            "from": (naive + timedelta(hours=2)).isoformat() + "+02:00",
            "to": (naive + timedelta(hours=3)).isoformat() + "+02:00",
        },
    )
    assert shifted.json()["data"]["from"] == iso(base)
    assert [p["value"] for p in shifted.json()["data"]["points"]] == [2.0, 1.0]


async def test_fractional_durations(
    client: AsyncTestClient, pool: asyncpg.Pool, setup: Setup
) -> None:
    level = setup.field_nums["level"]
    day = (NOW - timedelta(days=8)).replace(hour=0)
    for minutes, value in ((10, 1.0), (40, 2.0), (100, 3.0), (13 * 60, 4.0)):
        await record(pool, setup.device_num, day + timedelta(minutes=minutes), {level: value})
    window = {"from": iso(day), "to": iso(day + timedelta(days=1))}

    async def points(resolution: str) -> Any:
        response = await own(
            client, setup, field="level", resolution=resolution, agg="sum", **window
        )
        assert response.status_code == 200, response.text
        assert response.json()["data"]["resolution"] == resolution
        return response.json()["data"]["points"]

    assert await points("PT0.5H") == await points("PT30M")
    assert await points("PT1.5H") == await points("PT90M")
    assert await points("PT1,5H") == await points("PT90M")
    assert await points("P0.5D") == await points("PT12H")
    assert [p["value"] for p in await points("P0.5D")] == [4.0, 6.0]


# Retention and the bucket limit -----------------------------------------------------------


async def test_bucket_limit_counts_the_clamped_range(client: AsyncTestClient, setup: Setup) -> None:
    to = iso(datetime.now(UTC))
    # ~2,160 hourly buckets once clamped to 90 days; ~13 weeks; ~4 months.
    for resolution in ("hourly", "P1W", "P1M", "PT15M"):
        response = await between(client, setup, "2000-01-01T00:00:00Z", to, resolution=resolution)
        assert response.status_code == 200, (resolution, response.text)
        assert response.json()["data"]["clamped"] is True
    # 129,600 minutes in 90 days: still over the limit after clamping.
    over = await between(client, setup, "2000-01-01T00:00:00Z", to, resolution="PT1M")
    assert_error(over, 400, "invalid_parameter", "resolution")
    # Entirely outside the retention: the 400 comes before the 403 (D3).
    outside = {"from": "2000-01-01T00:00:00Z", "to": "2001-01-01T00:00:00Z"}
    refused = await own(client, setup, field="temperature", resolution="PT1M", **outside)
    assert_error(refused, 400, "invalid_parameter", "resolution")
    for resolution in ("P1W", "P1M"):
        refused = await own(client, setup, field="temperature", resolution=resolution, **outside)
        assert_error(refused, 403, "outside_retention")
    # P1W over 200 years is 10,436 weeks, but the range ends inside retention: only the
    # clamped weeks count.
    weeks = await between(client, setup, "1826-01-01T00:00:00Z", to, resolution="P1W")
    assert weeks.status_code == 200, weeks.text
    # P1M entirely outside over 900 years (10,800 months): 400 before 403.
    refused = await between(
        client, setup, "1000-01-01T00:00:00Z", "1900-01-01T00:00:00Z", resolution="P1M"
    )
    assert_error(refused, 400, "invalid_parameter", "resolution")


async def test_readings_before_the_cutoff_never_leak_through_rollups(
    client: AsyncTestClient, pool: asyncpg.Pool, setup: Setup
) -> None:
    level = setup.field_nums["level"]
    cutoff = datetime.now(UTC) - timedelta(days=RETENTION_DAYS)
    # Same hour and day as the cutoff (unless it is right on a boundary), just before it.
    await record(pool, setup.device_num, cutoff - timedelta(seconds=1), {level: 1000.0})
    await record(pool, setup.device_num, cutoff - timedelta(hours=2), {level: 2000.0})
    inside = cutoff + timedelta(minutes=90)
    await record(pool, setup.device_num, inside, {level: 1.0})
    window = {"from": iso(cutoff - timedelta(days=3)), "to": iso(cutoff + timedelta(hours=3))}
    raw = await own(client, setup, field="level", **window)
    assert [p["value"] for p in raw.json()["data"]["points"]] == [1.0]
    for resolution in ("hourly", "daily", "P1M", "PT2H", "P1W"):
        for agg, expected in (("max", 1.0), ("sum", 1.0), ("count", 1), ("last", 1.0)):
            response = await own(
                client, setup, field="level", resolution=resolution, agg=agg, **window
            )
            assert response.status_code == 200, response.text
            data = response.json()["data"]
            assert data["clamped"] is True
            assert [p["value"] for p in data["points"]] == [expected], (resolution, agg)


# Value types ------------------------------------------------------------------------------


async def test_signal_quality_values_are_integers(
    client: AsyncTestClient, pool: asyncpg.Pool, setup: Setup
) -> None:
    base = NOW - timedelta(days=45)
    for minutes, quality in ((0, 80.0), (20, 61.0), (40, 70.0)):
        await record(pool, setup.device_num, base + timedelta(minutes=minutes), {0: quality})
    window = {"from": iso(base), "to": iso(base + timedelta(hours=1))}
    raw = await own(client, setup, field="signal_quality", **window)
    values = [p["value"] for p in raw.json()["data"]["points"]]
    assert values == [70, 61, 80] and all(type(v) is int for v in values)
    expected = {"min": 61, "max": 80, "last": 70, "sum": 211, "count": 3}
    for resolution in ("hourly", "PT30M"):
        for agg in ("min", "max", "last", "sum", "count"):
            response = await own(
                client, setup, field="signal_quality", resolution=resolution, agg=agg, **window
            )
            values = [p["value"] for p in response.json()["data"]["points"]]
            assert all(type(v) is int for v in values), (resolution, agg, values)
            if resolution == "hourly":
                assert values == [expected[agg]]
    avg = await own(client, setup, field="signal_quality", resolution="hourly", **window)
    assert avg.json()["data"]["points"] == [{"time": iso(base), "value": 211 / 3}]
    assert type(avg.json()["data"]["points"][0]["value"]) is float


async def test_boolean_location_and_date_fields(
    client: AsyncTestClient, pool: asyncpg.Pool, setup: Setup
) -> None:
    f = setup.field_nums
    base = (NOW - timedelta(days=33)).replace(hour=0)
    place = {"latitude": 1.5, "longitude": 2.5, "altitude": 3.0}
    await record(pool, setup.device_num, base + timedelta(minutes=5), others={f["open"]: True})
    await record(pool, setup.device_num, base + timedelta(minutes=65), others={f["open"]: True})
    await record(
        pool,
        setup.device_num,
        base + timedelta(minutes=70),
        others={f["open"]: False, f["where"]: place, f["seen"]: "2026-02-03"},
    )
    window = {"from": iso(base), "to": iso(base + timedelta(hours=3))}

    async def points(field: str, resolution: str, agg: str) -> Any:
        response = await own(client, setup, field=field, resolution=resolution, agg=agg, **window)
        assert response.status_code == 200, response.text
        return [(p["time"], p["value"]) for p in response.json()["data"]["points"]]

    h = lambda hours: iso(base + timedelta(hours=hours))  # noqa: E731
    assert await points("open", "hourly", "count") == [(h(1), 2), (h(0), 1)]
    assert await points("open", "hourly", "last") == [(h(1), False), (h(0), True)]
    assert await points("open", "P1D", "count") == [(h(0), 3)]
    assert await points("where", "PT2H", "last") == [(h(0), place)]
    assert await points("seen", "hourly", "last") == [(h(1), "2026-02-03")]
    for field in ("open", "where", "seen", "installed"):
        for agg in ("avg", "min", "max", "sum"):
            refused = await own(client, setup, field=field, resolution="hourly", agg=agg, **window)
            assert_error(refused, 400, "invalid_parameter", "agg")
        # Non-numeric fields have no default agg.
        refused = await own(client, setup, field=field, resolution="PT1H", **window)
        assert_error(refused, 400, "invalid_parameter", "agg")


async def test_aggregates_other_than_sum_survive_a_sum_overflow(
    client: AsyncTestClient, pool: asyncpg.Pool, setup: Setup
) -> None:
    level = setup.field_nums["level"]
    base = NOW - timedelta(days=12)
    # Straight into the raw table: ingest bounds values, and the rollups would overflow.
    await pool.executemany(
        "INSERT INTO readings_num (device_num, field_num, time, value) VALUES ($1, $2, $3, $4)",
        [(setup.device_num, level, base + timedelta(seconds=s), 1.5e308) for s in (1, 2)],
    )
    window = {"from": iso(base), "to": iso(base + timedelta(minutes=5))}
    for agg, expected in (("max", 1.5e308), ("min", 1.5e308), ("last", 1.5e308), ("count", 2)):
        response = await own(client, setup, field="level", resolution="PT1M", agg=agg, **window)
        assert response.status_code == 200, response.text
        assert [p["value"] for p in response.json()["data"]["points"]] == [expected]


async def test_derived_fields_have_their_stored_values(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    w = World()
    partner = w.partner(plan={"retentionDays": RETENTION_DAYS})
    sub = w.sub_account(partner)
    profile = w.profile(
        partner,
        fields=[
            w.field("temperature"),
            w.formula("double", "temperature * 2"),
            w.mapping("band", "temperature", {"10": "ten"}, "other"),
            w.formula("warm", "temperature > 20", dataType="boolean"),
        ],
    )
    device = w.device(sub, profile, calibration={"temperature": {"scale": 2, "offset": 1}})
    key = w.key(sub, scopes=["telemetry:read"])
    w.uplink(device, at="now-PT2H", values={"temperature": 10})
    w.uplink(device, at="now-PT1H", values={"temperature": 4.5})
    await load(pool, w)
    window = {"from": iso(datetime.now(UTC) - timedelta(days=1)), "to": iso(datetime.now(UTC))}

    async def values(field: str) -> list[Any]:
        response = await get(client, key, device["id"], field=field, **window)
        assert response.status_code == 200, response.text
        return [p["value"] for p in response.json()["data"]["points"]]

    # Calibrated: 10 * 2 + 1 = 21 and 4.5 * 2 + 1 = 10; formulas and mappings read them.
    assert await values("temperature") == [10.0, 21.0]
    assert await values("double") == [20.0, 42.0]
    assert await values("band") == ["ten", "other"]
    assert await values("warm") == [False, True]


async def test_hourly_avg_of_subnormal_readings_rounds_as_division_does(
    client: AsyncTestClient, pool: asyncpg.Pool, setup: Setup
) -> None:
    """Readings of the least subnormal, 5e-324: their hourly average is the float8
    division sum / n, rounded (5e-324 / 2 is 0, 3 x 5e-324 / 3 is 5e-324), not a 500
    (PostgreSQL's float8 division refused the underflow)."""
    level = setup.field_nums["level"]
    base = NOW.replace(minute=0, second=0, microsecond=0) - timedelta(days=13)
    for minute, value in ((1, 5e-324), (2, 0.0)):
        await record(pool, setup.device_num, base + timedelta(minutes=minute), {level: value})
    later = base + timedelta(hours=1)
    for minute in (1, 2, 3):
        await record(pool, setup.device_num, later + timedelta(minutes=minute), {level: 5e-324})
    window = {"from": iso(base), "to": iso(base + timedelta(hours=2))}
    response = await own(client, setup, field="level", resolution="hourly", agg="avg", **window)
    assert response.status_code == 200, response.text
    points = response.json()["data"]["points"]
    assert [(p["time"], p["value"]) for p in points] == [
        (iso(later), 5e-324),
        (iso(base), (5e-324 + 0.0) / 2),
    ]
