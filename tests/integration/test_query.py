"""POST /query (analytics.md section 2): selection, series, equality with /history,
keyset cursors (under ingest and packing), and the errors of the body."""

from __future__ import annotations

import base64
import time
from datetime import datetime, timedelta
from typing import Any

import asyncpg
import msgspec
import pytest
from litestar.testing import AsyncTestClient

from app.query import cursor as cursors
from testkit.factories import World, load
from tests.support.helpers import bearer
from tests.support.query import HISTORY, NOW, START, Setup, ask, follow, history, iso, record, setup

__all__ = ["setup"]  # the module fixture (tests/support/query.py)


async def test_raw_series_by_ids_equal_history_oldest_first(
    client: AsyncTestClient, setup: Setup
) -> None:
    a, b, c = setup.devices
    start, end = START + timedelta(days=5), START + timedelta(days=9)
    body = {
        "devices": {
            "ids": [c["devEui"].upper(), a["id"], b["id"], a["devEui"], setup.foreign_device["id"]]
        },
        "fields": ["label", "temperature"],
        "from": iso(start),
        "to": iso(end),
    }
    response = await ask(client, setup.key, body)
    assert response.status_code == 200, response.text
    page = response.json()
    assert page["nextCursor"] is None
    data = page["data"]
    assert data["resolution"] == "raw" and data["from"] == iso(start) and data["to"] == iso(end)
    ordered = sorted([a, b, c], key=lambda d: d["id"])
    want = [
        (d["id"], field)
        for d in ordered
        for field in ("label", "temperature")
        if not (d is c and field == "label")
    ]
    assert [(s["deviceId"], s["field"]) for s in data["series"]] == want
    for series in data["series"]:
        device = next(d for d in ordered if d["id"] == series["deviceId"])
        assert series["devEui"] == device["devEui"] and "agg" not in series
        expected = await history(
            client,
            setup.key,
            device["id"],
            field=series["field"],
            **{"from": iso(start), "to": iso(end)},
        )
        assert series["points"] == expected
        assert series["points"], series
    site_points = next(
        s for s in data["series"] if s["deviceId"] == a["id"] and s["field"] == "temperature"
    )["points"]
    assert {p["siteId"] for p in site_points} == {setup.site["id"], None}


async def test_downsampled_series_keep_their_sites_over_packed_and_raw_weeks(
    client: AsyncTestClient, setup: Setup
) -> None:
    """maxPoints over the four weeks (two packed, two raw, repeated readings): the points
    are /history's, each with the site it was recorded at (multi-site on)."""
    a = setup.devices[0]
    window = {"from": iso(START), "to": iso(NOW)}
    for method in ("lttb", "minmax"):
        body = {
            "devices": {"ids": [a["id"]]},
            "fields": ["temperature"],
            **window,
            "maxPoints": 20,
            "downsample": method,
            "limit": 6,
        }
        series, pages = await follow(client, setup.key, body)
        assert pages == 4
        (one,) = series
        response = await client.get(
            HISTORY.format(a["id"]),
            params={"field": "temperature", **window, "maxPoints": "20", "downsample": method},
            headers=bearer(setup.key),
        )
        data = response.json()["data"]
        assert one["points"] == list(reversed(data["points"]))
        assert one["downsampled"] == data["downsampled"]
        assert data["downsampled"]["readings"] > 28 * 4
        # Its readings at the site, and the repeated ones recorded at none.
        assert setup.site["id"] in {p["siteId"] for p in one["points"]}
        assert {p["siteId"] for p in one["points"]} <= {setup.site["id"], None}


async def test_bucketed_series_per_agg_equal_history(client: AsyncTestClient, setup: Setup) -> None:
    body: dict[str, Any] = {
        "devices": {"siteId": setup.site["id"]},
        "fields": ["temperature", "label", "signal_quality"],
        "from": iso(START - timedelta(days=2)),
        "to": iso(NOW),
        "resolution": "daily",
        "agg": {"temperature": ["max", "avg", "count"], "label": "last", "signal_quality": "avg"},
        "tz": "Europe/Berlin",
    }
    response = await ask(client, setup.key, body)
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    a = setup.devices[0]
    assert [(s["deviceId"], s["field"], s["agg"]) for s in data["series"]] == [
        (a["id"], "temperature", "max"),
        (a["id"], "temperature", "avg"),
        (a["id"], "temperature", "count"),
        (a["id"], "label", "last"),
        (a["id"], "signal_quality", "avg"),
    ]
    assert data["tz"] == "Europe/Berlin"
    for series in data["series"]:
        expected = await history(
            client, setup.key, a["id"], field=series["field"], resolution="daily",
            agg=series["agg"], tz="Europe/Berlin", **{"from": body["from"], "to": body["to"]},
        )  # fmt: skip
        assert series["points"] == expected, series["field"]
    assert len(data["series"][0]["points"]) >= 28  # 28 days, local days straddle UTC ones


async def test_cursors_return_every_point_once_in_small_pages(
    client: AsyncTestClient, setup: Setup
) -> None:
    for resolution, agg in (("raw", None), ("PT6H", ["min", "last"])):
        body: dict[str, Any] = {
            "devices": {"ids": [d["id"] for d in setup.devices]},
            "fields": ["temperature", "label"] if resolution == "raw" else ["temperature"],
            "from": iso(START),
            "to": iso(NOW),
            "resolution": resolution,
        }
        if agg:
            body["agg"] = {"temperature": agg}
        whole = await ask(client, setup.key, {**body, "limit": 100_000})
        assert whole.status_code == 200 and whole.json()["nextCursor"] is None
        expected = whole.json()["data"]["series"]
        # 7 splits the repeated readings (three at each second day's first time) apart.
        for limit in (7, 100, 331):
            merged, pages = await follow(client, setup.key, {**body, "limit": limit})
            total = sum(len(s["points"]) for s in expected)
            assert pages >= total // limit
            assert merged == expected, (resolution, limit)


async def test_a_week_packed_between_pages_neither_vanishes_nor_repeats(
    client: AsyncTestClient, pool: asyncpg.Pool, setup: Setup
) -> None:
    """Pages read a raw week, then the packing job packs it, then the next pages read it
    packed; and readings arriving meanwhile appear at most once."""
    w = World()
    partner = w.partner(
        plan={"retentionDays": 60}, tier={"perMinute": 1_000_000, "perDay": 100_000_000}
    )
    sub = w.sub_account(partner)
    device = w.device(sub, w.profile(partner))
    key = w.key(sub, scopes=["telemetry:read"])
    await load(pool, w)
    num = await pool.fetchval("SELECT num FROM devices WHERE id = $1", device["id"])
    field = await pool.fetchval(
        "SELECT num FROM profile_fields WHERE profile_id = $1", device["deviceProfileId"]
    )
    weeks_ago = NOW - timedelta(days=20)
    for minute in range(0, 3 * 24 * 60, 30):
        at = weeks_ago + timedelta(minutes=minute)
        await record(pool, num, at, {field: float(minute)})
        if minute % 300 == 0:
            await record(pool, num, at, {field: float(minute)})
    assert await pool.fetchval("SELECT count(*) FROM readings_num WHERE device_num = $1", num) > 0
    body = {
        "devices": {"ids": [device["id"]]},
        "fields": ["temperature"],
        "from": iso(weeks_ago - timedelta(days=1)),
        "to": iso(NOW),
        "limit": 25,
    }
    whole = (await ask(client, key, {**body, "limit": 100_000})).json()["data"]["series"][0][
        "points"
    ]
    late: list[datetime] = []

    async def between(pages: int) -> None:
        if pages == 2:
            async with pool.acquire() as connection, connection.transaction():
                packed = await connection.fetchval("SELECT pack_closed_chunks(interval '0')")
            assert packed >= 1
            assert not await pool.fetchval(
                "SELECT count(*) FROM readings_num WHERE device_num = $1", num
            )
        if pages in (3, 5):
            # A reading before the cursor (never shown) and one after it (shown once).
            early, fresh = weeks_ago + timedelta(minutes=1), NOW - timedelta(hours=1, minutes=pages)
            await record(pool, num, early, {field: -1.0})
            await record(pool, num, fresh, {field: -2.0})
            late.append(fresh)

    merged, pages = await follow(client, key, body, between)
    assert pages > 5
    points = merged[0]["points"]
    assert points[: len(whole)] == whole
    assert [p["time"] for p in points[len(whole) :]] == [iso(t) for t in sorted(late)]


async def test_cursor_refusals(client: AsyncTestClient, pool: asyncpg.Pool, setup: Setup) -> None:
    body = {
        "devices": {"ids": [d["id"] for d in setup.devices]},
        "fields": ["temperature"],
        "from": iso(START),
        "to": iso(NOW),
        "limit": 10,
    }
    first = (await ask(client, setup.key, body)).json()
    cursor = first["nextCursor"]
    assert cursor
    # Only limit may change.
    again = await ask(client, setup.key, {**body, "limit": 3, "cursor": cursor})
    assert again.status_code == 200, again.text
    payload, _, signature = cursor.partition(".")
    altered = payload[:-2] + ("A" if payload[-2] != "A" else "B") + payload[-1] + "." + signature
    # The same position signed with the server's own secret an hour and a second ago.
    secret = await pool.fetchval("SELECT secret FROM server_secrets WHERE name = 'query_cursor'")
    decoded = msgspec.json.decode(
        base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)), type=cursors.CursorPayload
    )
    stale = cursors.sign(
        cursors.derive_key(secret), decoded.key_id, decoded.query, decoded.start_us,
        decoded.end_us, decoded.position, now=time.time() - cursors.LIFETIME_S - 1,
    )  # fmt: skip
    fresh = cursors.sign(
        cursors.derive_key(secret), decoded.key_id, decoded.query, decoded.start_us,
        decoded.end_us, decoded.position,
    )  # fmt: skip
    assert (await ask(client, setup.key, {**body, "cursor": fresh})).status_code == 200
    for key, sent, problem in (
        (setup.key, {**body, "cursor": altered}, "altered"),
        (setup.key, {**body, "cursor": "not-a-cursor"}, "garbage"),
        (setup.other_key, {**body, "cursor": cursor}, "another key"),
        (
            setup.key,
            {**body, "fields": ["temperature", "label"], "cursor": cursor},
            "another query",
        ),
        (
            setup.key,
            {**body, "to": iso(NOW - timedelta(hours=1)), "cursor": cursor},
            "another range",
        ),
        (setup.key, {**body, "cursor": stale}, "expired"),
    ):
        response = await ask(client, key, sent)
        assert response.status_code == 400, (problem, response.text)
        assert response.json()["error"]["code"] == "invalid_cursor", problem


BASE: dict[str, Any] = {
    "devices": {"ids": []},
    "fields": ["temperature"],
    "from": "now-P1D",
    "to": "now",
}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({**BASE, "extra": 1}, "extra"),
        ({**BASE, "devices": {"ids": [], "colour": "red"}}, "devices.colour"),
        ({k: v for k, v in BASE.items() if k != "fields"}, "fields"),
        ({k: v for k, v in BASE.items() if k != "devices"}, "devices"),
        ({**BASE, "fields": "temperature"}, "fields"),
        ({**BASE, "fields": []}, "fields"),
        ({**BASE, "fields": [f"f{i}" for i in range(21)]}, "fields"),
        ({**BASE, "fields": ["temperature", "temperature"]}, "fields"),
        ({**BASE, "devices": {"ids": ["nope"]}}, "devices.ids[0]"),
        ({**BASE, "devices": {"ids": ["0" * 16] * 1001}}, "devices.ids"),
        ({**BASE, "devices": {"ids": [], "online": True}}, "devices"),
        ({**BASE, "devices": {"online": "maybe"}}, "devices.online"),
        ({**BASE, "devices": {"siteId": "x"}}, "devices.siteId"),
        ({**BASE, "from": "yesterday"}, "from"),
        ({**BASE, "from": "now", "to": "now-P1D"}, "from"),
        ({**BASE, "resolution": "PT0S"}, "resolution"),
        ({**BASE, "resolution": "PT1S", "from": "now-P30D"}, "resolution"),
        ({**BASE, "agg": "max"}, "agg"),
        ({**BASE, "resolution": "hourly", "agg": "median"}, "agg"),
        ({**BASE, "resolution": "hourly", "agg": {"label": "last"}}, "agg.label"),
        ({**BASE, "resolution": "hourly", "agg": {}}, "agg.temperature"),
        ({**BASE, "resolution": "hourly", "agg": {"temperature": []}}, "agg.temperature"),
        (
            {**BASE, "resolution": "hourly", "agg": {"temperature": ["min", "min"]}},
            "agg.temperature",
        ),
        ({**BASE, "tz": "Mars/Olympus"}, "tz"),
        ({**BASE, "limit": 0}, "limit"),
        ({**BASE, "limit": 100_001}, "limit"),
        ({**BASE, "limit": "10"}, "limit"),
        ({**BASE, "fill": "previous"}, "fill"),
        ({**BASE, "resolution": "hourly", "maxPoints": 100}, "maxPoints"),
    ],
)
async def test_body_errors_name_the_field(
    client: AsyncTestClient, setup: Setup, body: dict[str, Any], field: str
) -> None:
    response = await ask(client, setup.key, body)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_body", error
    assert error["message"].startswith(field + ":"), error


async def test_fields_and_aggs_checked_against_the_devices(
    client: AsyncTestClient, setup: Setup
) -> None:
    ids = [d["id"] for d in setup.devices]
    cases: list[tuple[dict[str, Any], str]] = [
        ({"fields": ["humidity"]}, "fields"),
        ({"fields": ["label"], "resolution": "daily"}, "agg"),
        (
            {
                "fields": ["temperature", "label"],
                "resolution": "daily",
                "agg": {"temperature": "avg", "label": ["last", "sum"]},
            },
            "agg.label",
        ),
    ]
    for extra, field in cases:
        response = await ask(client, setup.key, {**BASE, "devices": {"ids": ids}, **extra})
        assert response.status_code == 400, response.text
        assert response.json()["error"]["message"].startswith(field + ":"), response.text
    # No device selected at all: an answer with no series, whatever the fields.
    nothing_selected: list[dict[str, Any]] = [
        {"ids": []},
        {"ids": [setup.foreign_device["id"]]},
        {"search": "no such device"},
    ]
    for devices in nothing_selected:
        response = await ask(
            client, setup.key, {**BASE, "devices": devices, "fields": ["humidity"]}
        )
        assert response.status_code == 200, response.text
        assert response.json() == {
            "data": {**response.json()["data"], "series": []},
            "nextCursor": None,
        }


async def test_static_fields_give_empty_series_and_retention_clamps(
    client: AsyncTestClient, setup: Setup
) -> None:
    a = setup.devices[0]
    body = {
        "devices": {"ids": [a["id"]]},
        "fields": ["serial", "temperature"],
        "from": iso(NOW - timedelta(days=400)),
        "to": iso(NOW - timedelta(days=27)),
    }
    response = await ask(client, setup.key, body)
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert data["clamped"] is True and data["from"] == data["retentionCutoff"]
    assert [(s["field"], bool(s["points"])) for s in data["series"]] == [
        ("serial", False),
        ("temperature", True),
    ]
    outside = await ask(client, setup.key, {**body, "to": iso(NOW - timedelta(days=300))})
    assert outside.status_code == 403, outside.text
    assert outside.json()["error"]["code"] == "outside_retention"


async def test_filters_follow_get_devices(client: AsyncTestClient, setup: Setup) -> None:
    profile = setup.devices[2]["deviceProfileId"]
    response = await ask(
        client,
        setup.key,
        {**BASE, "devices": {"deviceProfileId": profile, "includeDescendants": "false"}},
    )
    assert response.status_code == 200, response.text
    assert [s["deviceId"] for s in response.json()["data"]["series"]] == [setup.devices[2]["id"]]
    # Another tenant sees none of them, by id or by filters.
    for devices in ({"ids": [d["id"] for d in setup.devices]}, {}):
        response = await ask(client, setup.foreign_key, {**BASE, "devices": devices})
        assert response.status_code == 200, response.text
        ids = {s["deviceId"] for s in response.json()["data"]["series"]}
        assert not ids & {d["id"] for d in setup.devices}


async def test_feature_switches_come_before_body_errors(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    w = World()
    partner = w.partner(features={"networks": False, "multiSite": False})
    key = w.key(w.sub_account(partner), scopes=["telemetry:read"])
    await load(pool, w)
    for devices, code in (
        ({"networkId": "none"}, "networks_disabled"),
        ({"siteId": "none"}, "multi_site_disabled"),
    ):
        # fields is wrong too: the 403 of the switch comes first (D3).
        response = await ask(client, key, {**BASE, "devices": devices, "fields": []})
        assert response.status_code == 403, response.text
        assert response.json()["error"]["code"] == code


async def test_series_and_device_bounds_are_named(
    client: AsyncTestClient, setup: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bounds of 1,000 devices (by filters) and 20,000 series, lowered here to what the
    module's world reaches (the same checks, with the message naming each bound)."""
    from app.query import service

    ids = [d["id"] for d in setup.devices]
    monkeypatch.setattr(service, "MAX_SERIES", 6)
    body = {**BASE, "devices": {"ids": ids}, "resolution": "daily"}
    fine = await ask(client, setup.key, {**body, "agg": {"temperature": ["min", "max"]}})
    assert fine.status_code == 200, fine.text  # 3 devices x 2 aggs: 6 series
    response = await ask(client, setup.key, {**body, "agg": {"temperature": ["min", "max", "avg"]}})
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_body" and "6 series" in error["message"], error
    monkeypatch.setattr(service, "MAX_DEVICES", 2)
    response = await ask(client, setup.key, {**BASE, "devices": {"search": ""}})
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["message"].startswith("devices:") and "2 devices" in error["message"], error
