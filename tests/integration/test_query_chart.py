"""Chart-ready series in POST /query (analytics.md sections 2 and 3): fill, maxPoints with
lttb and minmax, and the increase, twa, integral and duration aggregates, each series equal
to /history's for the same parameters (oldest first), through cursors that resume inside
filled and reduced series; and their rules as 400 `invalid_body` naming the member."""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import pytest
from litestar.testing import AsyncTestClient

from testkit.factories import World, load
from tests.support.helpers import bearer
from tests.support.history import iso, nums, record
from tests.support.query import ask, follow, history

NOW = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
# Readings every 37 minutes (and a few seconds) from START for about five days, with a
# day-long gap, resets of the counter and repeated readings (same time, same value).
START = NOW - timedelta(days=10)
READINGS = 200
GAP = range(60, 100)
FROM, TO = START - timedelta(hours=6), START + timedelta(days=3)


@dataclass
class Setup:
    key: str
    devices: list[dict[str, Any]]


@pytest.fixture(scope="module")
async def setup(pool: asyncpg.Pool) -> Setup:
    w = World()
    tier = {"perMinute": 1_000_000, "perDay": 100_000_000}
    partner = w.partner(plan={"retentionDays": 60}, tier=tier)
    sub = w.sub_account(partner)
    fields = [
        w.field("temperature"),
        w.field("water", measurement="counter"),
        *w.fields(door="string", open="boolean", label="string"),
    ]
    profile = w.profile(partner, fields=fields)
    devices = [w.device(sub, profile) for _ in range(3)]
    key = w.key(sub, scopes=["telemetry:read"])
    await load(pool, w)
    device_nums = await nums(pool, "devices", [d["id"] for d in devices])
    field_nums = dict(
        zip(
            [f["identifier"] for f in fields],
            await nums(pool, "profile_fields", [f["id"] for f in fields]),
            strict=True,
        )
    )
    for index, num in enumerate(device_nums):
        water = 1000.0 * index
        for k in range(READINGS):
            if k in GAP:
                continue
            at = START + timedelta(minutes=37 * k, seconds=(k * 7) % 50)
            water = 3.0 if k == 130 + index else water + (k % 4) * 1.5
            temperature = round(20 + 5 * math.sin(k / 9) + index + (k % 7) / 10, 3)
            state = "open" if (k // 5 + index) % 2 else "closed"
            await record(
                pool,
                num,
                at,
                {field_nums["temperature"]: temperature, field_nums["water"]: water},
                {
                    field_nums["door"]: state,
                    field_nums["open"]: state == "open",
                    field_nums["label"]: f"k{k}",
                },
            )
            if k % 25 == 0:  # a repeated reading, and another value at the same time
                await record(pool, num, at, {field_nums["temperature"]: temperature})
                await record(pool, num, at, {field_nums["temperature"]: temperature - 1})
    # The first days packed, the rest raw.
    async with pool.acquire() as connection, connection.transaction():
        await connection.execute(
            "SELECT pack_closed_chunks($1::interval)", NOW - (START + timedelta(days=3))
        )
    return Setup(key, devices)


def history_params(agg: str | None, body: dict[str, Any]) -> dict[str, str]:
    """/history's query parameters for one series of `body`."""
    params = {"from": body["from"], "to": body["to"]}
    for member in ("resolution", "tz", "fill", "fillMaxGap", "downsample"):
        if member in body:
            params[member] = body[member]
    if "maxPoints" in body:
        params["maxPoints"] = str(body["maxPoints"])
    if agg is not None:
        name, _, state = agg.partition(":")
        params["agg"] = name
        if state:
            params["state"] = state
    return params


async def assert_series_equal_history(
    client: AsyncTestClient, setup: Setup, body: dict[str, Any], series: list[dict[str, Any]]
) -> int:
    """Each series equals /history's for its parameters; the number of points compared."""
    compared = 0
    for one in series:
        params = history_params(one.get("agg"), body)
        response = await client.get(
            f"/api/v1/devices/{one['deviceId']}/history",
            params={"field": one["field"], **params},
            headers=bearer(setup.key),
        )
        assert response.status_code == 200, response.text
        data = response.json()["data"]
        assert one["points"] == list(reversed(data["points"])), (one["field"], params)
        assert one.get("downsampled") == data.get("downsampled"), params
        compared += len(one["points"])
    return compared


AGGS = {
    "temperature": ["avg", "twa", "integral"],
    "water": ["increase", "sum"],
    "door": ["duration:open", "count"],
    "open": ["duration:true"],
}


@pytest.mark.parametrize(
    "fill",
    [
        {"fill": "previous"},
        {"fill": "previous", "fillMaxGap": "PT2H"},
        {"fill": "null"},
        {"fill": "linear"},
        {},
    ],
)
async def test_filled_series_with_new_aggregates_equal_history_through_cursors(
    client: AsyncTestClient, setup: Setup, fill: dict[str, str]
) -> None:
    body = {
        "devices": {"ids": [d["id"] for d in setup.devices]},
        "fields": list(AGGS),
        "from": iso(FROM),
        "to": iso(TO),
        "resolution": "PT3H",
        "tz": "Asia/Kolkata",
        "agg": AGGS,
        "limit": 37,
        **fill,
    }
    series, pages = await follow(client, setup.key, body)
    # Every (device, field, agg) once, in the contract's order, every bucket of the range.
    order = [(d["id"], f, a) for d in sorted(setup.devices, key=lambda d: d["id"])
             for f, aggs in AGGS.items() for a in aggs]  # fmt: skip
    assert [(s["deviceId"], s["field"], s["agg"]) for s in series] == order
    assert pages > 10
    compared = await assert_series_equal_history(client, setup, body, series)
    assert compared > 500
    if fill:
        # Every bucket starting in [the bucket of from, to): Kolkata's 3-hour buckets
        # start half an hour off UTC's, so the range cuts one more.
        buckets = (TO - FROM) // timedelta(hours=3) + 1
        assert all(len(s["points"]) == buckets for s in series)
        flags = [p["filled"] for s in series for p in s["points"]]
        assert True in flags and False in flags
    else:
        assert all("filled" not in p for s in series for p in s["points"])


@pytest.mark.parametrize("method", ["lttb", "minmax"])
@pytest.mark.parametrize("max_points", [2, 7, 40, 10_000])
async def test_downsampled_series_equal_history_through_cursors(
    client: AsyncTestClient, setup: Setup, method: str, max_points: int
) -> None:
    body = {
        "devices": {"ids": [d["id"] for d in setup.devices]},
        "fields": ["temperature", "water"],
        "from": iso(FROM),
        "to": iso(NOW),
        "maxPoints": max_points,
        "downsample": method,
        "limit": 3,
    }
    series, _ = await follow(client, setup.key, body)
    assert len(series) == 6
    await assert_series_equal_history(client, setup, body, series)
    readings = READINGS - len(GAP)
    for one in series:
        assert len(one["points"]) <= max_points
        if max_points < readings:
            # The temperature's repeated readings count as readings.
            assert one["downsampled"]["method"] == method
            assert one["downsampled"]["points"] == len(one["points"])
            assert one["downsampled"]["readings"] >= readings
        else:
            assert "downsampled" not in one
            assert len(one["points"]) >= readings


async def test_a_reduced_series_carries_downsampled_on_each_of_its_pages(
    client: AsyncTestClient, setup: Setup
) -> None:
    body = {
        "devices": {"ids": [setup.devices[0]["id"]]},
        "fields": ["temperature"],
        "from": iso(FROM),
        "to": iso(NOW),
        "maxPoints": 30,
        "limit": 4,
    }
    cursor, seen = None, []
    while True:
        response = await ask(client, setup.key, {**body, **({"cursor": cursor} if cursor else {})})
        assert response.status_code == 200, response.text
        page = response.json()
        (one,) = page["data"]["series"]
        assert one["downsampled"]["method"] == "lttb"
        assert one["downsampled"]["points"] == 30
        assert one["downsampled"]["readings"] > 160
        seen += one["points"]
        cursor = page["nextCursor"]
        if cursor is None:
            break
    params = {"from": str(body["from"]), "to": str(body["to"]), "maxPoints": "30"}
    assert seen == await history(client, setup.key, setup.devices[0]["id"], field="temperature",
                                 **params)  # fmt: skip


BODY = {"devices": {"ids": []}, "fields": ["temperature"], "from": iso(FROM), "to": iso(TO)}


@pytest.mark.parametrize(
    ("body", "member", "words"),
    [
        ({"fill": "previous"}, "fill", "bucketed"),
        ({"resolution": "hourly", "fill": "sometimes"}, "fill", "must be one of"),
        ({"resolution": "hourly", "fillMaxGap": "PT1H"}, "fillMaxGap", "fill=previous"),
        (
            {"resolution": "hourly", "fill": "null", "fillMaxGap": "PT1H"},
            "fillMaxGap",
            "fill=previous",
        ),
        (
            {"resolution": "hourly", "fill": "previous", "fillMaxGap": "soon"},
            "fillMaxGap",
            "ISO 8601",
        ),
        ({"resolution": "hourly", "fill": "zero"}, "fill", "count or sum"),
        ({"resolution": "hourly", "maxPoints": 10}, "maxPoints", "raw"),
        ({"maxPoints": 1}, "maxPoints", "2 to 10000"),
        ({"maxPoints": 10_001}, "maxPoints", "2 to 10000"),
        ({"downsample": "lttb"}, "downsample", "maxPoints"),
        ({"maxPoints": 10, "downsample": "median"}, "downsample", "lttb or minmax"),
        ({"fields": ["label"], "maxPoints": 10}, "maxPoints", "number fields"),
        ({"resolution": "hourly", "agg": "increase"}, "agg", "counter fields only"),
        ({"fields": ["door"], "resolution": "hourly", "agg": "twa"}, "agg", "number fields"),
        ({"resolution": "hourly", "agg": "duration"}, "agg", "duration:<value>"),
        ({"resolution": "hourly", "agg": "duration:on"}, "agg", "state fields only"),
        ({"resolution": "hourly", "agg": "avg:on"}, "agg", "matching"),
        (
            {"fields": ["open"], "resolution": "hourly", "agg": {"open": ["count", "duration:x"]}},
            "agg.open",
            "true or false",
        ),
        (
            {
                "fields": ["label", "temperature"],
                "resolution": "hourly",
                "agg": {"label": "duration:k1", "temperature": "duration:k1"},
            },
            "agg.temperature",
            "measurement gauge",
        ),
    ],
)
async def test_section_3_rules_are_invalid_body_naming_the_member(
    client: AsyncTestClient, setup: Setup, body: dict[str, Any], member: str, words: str
) -> None:
    asked = {**BODY, "devices": {"ids": [setup.devices[0]["id"]]}, **body}
    response = await ask(client, setup.key, asked)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_body", error
    assert error["message"].startswith(member + ":"), error
    assert words in error["message"], error


# Exports ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "params"),
    [
        ("temperature", {"agg": "twa", "fill": "previous", "fillMaxGap": "PT4H"}),
        ("temperature", {"agg": "integral"}),
        ("temperature", {"agg": "avg", "fill": "linear"}),
        ("water", {"agg": "increase", "fill": "null"}),
        ("water", {"agg": "sum", "fill": "zero"}),
        ("door", {"agg": "duration", "state": "open", "fill": "previous"}),
        ("open", {"agg": "duration", "state": "false"}),
    ],
)
async def test_bucketed_exports_with_fill_and_new_aggregates_equal_the_query(
    client: AsyncTestClient, setup: Setup, field: str, params: dict[str, str]
) -> None:
    common = {"from": iso(FROM), "to": iso(TO), "resolution": "PT3H", "tz": "Europe/Berlin"}
    agg = params["agg"] + (":" + params["state"] if "state" in params else "")
    body = {
        "devices": {"ids": [d["id"] for d in setup.devices]},
        "fields": [field],
        **common,
        "agg": agg,
        **{k: v for k, v in params.items() if k not in ("agg", "state")},
    }
    series, _ = await follow(client, setup.key, {**body, "limit": 100_000})
    want = [
        (one["deviceId"], point["time"], point["value"])
        for one in series
        for point in one["points"]
    ]
    assert any(value is not None for _, _, value in want)
    response = await client.get(
        "/api/v1/export",
        params={**common, **params, "fields": field, "format": "ndjson"},
        headers=bearer(setup.key),
    )
    assert response.status_code == 200, response.text
    rows = [json.loads(line) for line in response.text.splitlines()]
    # Every bucket of the query is a row (a filled one too), by device id, then time.
    assert [(r["deviceId"], r["time"], r[field]) for r in rows] == want
    device = setup.devices[1]
    response = await client.get(
        f"/api/v1/devices/{device['devEui']}/export",
        params={**common, **params, "fields": field, "layout": "long", "format": "csv"},
        headers=bearer(setup.key),
    )
    assert response.status_code == 200, response.text
    cells = [(r["time"], r["value"]) for r in csv.DictReader(io.StringIO(response.text))]
    assert cells == [
        (time, "" if value is None else json.dumps(value))
        for device_id, time, value in want
        if device_id == device["id"]
    ]


@pytest.mark.parametrize(
    ("params", "name", "words"),
    [
        ({"fill": "previous"}, "fill", "bucketed"),
        ({"resolution": "hourly", "fill": "zero"}, "fill", "count or sum"),
        ({"resolution": "hourly", "fill": "null", "fillMaxGap": "PT1H"}, "fillMaxGap", "previous"),
        ({"resolution": "hourly", "agg": "increase"}, "agg", "counter fields only"),
        ({"resolution": "hourly", "agg": "twa", "fields": "door"}, "agg", "number fields only"),
        ({"resolution": "hourly", "agg": "duration", "fields": "door"}, "state", "state=<value>"),
        (
            {"resolution": "hourly", "agg": "duration", "state": "x", "fields": "open"},
            "state",
            "true or false",
        ),
        ({"resolution": "hourly", "agg": "count", "state": "x"}, "state", "agg=duration"),
    ],
)
async def test_export_section_3_errors(
    client: AsyncTestClient, setup: Setup, params: dict[str, str], name: str, words: str
) -> None:
    response = await client.get(
        f"/api/v1/devices/{setup.devices[0]['id']}/export",
        params={"from": iso(FROM), "to": iso(TO), "fields": "temperature", **params},
        headers=bearer(setup.key),
    )
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_parameter", error
    assert error["message"].startswith(name + ":") and words in error["message"], error


@pytest.mark.parametrize("method", ["lttb", "minmax"])
async def test_exports_with_max_points_give_history_readings(
    client: AsyncTestClient, setup: Setup, method: str
) -> None:
    window = {"from": iso(FROM), "to": iso(NOW)}
    want = []
    for device in sorted(setup.devices, key=lambda d: d["id"]):
        points = await history(
            client, setup.key, device["id"], field="temperature", **window, maxPoints="15",
            downsample=method,
        )  # fmt: skip
        assert len(points) == 15 or method == "minmax"
        want += [(device["id"], p["time"], p["value"]) for p in points]
    response = await client.get(
        "/api/v1/export",
        params={**window, "fields": "temperature", "format": "ndjson", "maxPoints": "15",
                "downsample": method},
        headers=bearer(setup.key),
    )  # fmt: skip
    assert response.status_code == 200, response.text
    rows = [json.loads(line) for line in response.text.splitlines()]
    assert [(r["deviceId"], r["time"], r["temperature"]) for r in rows] == want
    response = await client.get(
        f"/api/v1/devices/{setup.devices[0]['id']}/export",
        params={**window, "fields": "temperature,label", "maxPoints": "15"},
        headers=bearer(setup.key),
    )
    assert response.status_code == 400, response.text
    assert response.json()["error"]["message"].startswith("maxPoints: applies to number fields")
