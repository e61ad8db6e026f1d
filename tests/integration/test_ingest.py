"""POST /ingest/chirpstack and the ingest pipeline, with real ChirpStack JSON."""

from __future__ import annotations

import asyncio
import threading
import time
from datetime import timedelta
from typing import Any

import asyncpg
import pytest
from litestar.testing import AsyncTestClient

from app.core.config import Settings
from app.core.db import connect
from app.ingest.pipeline import Uplink, store_uplink
from app.ops.admin import set_device_status
from testkit.factories import load
from tests.support import chirpstack as cs
from tests.support.chirpstack import (
    INGEST,
    device_num,
    latest,
    post,
    readings,
    th_loaded,
    th_world,
    up,
)
from tests.support.helpers import assert_error, ingest_context


async def test_uplink_computes_and_stores_every_kind_of_value(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    w, t = th_world()
    t["device"]["calibration"] = {"temperature": {"scale": 1.0, "offset": -0.5}}
    await load(pool, w)
    when = cs.at(5)
    body = cs.uplink(
        t["device"]["devEui"],
        {
            "temperature": 21.5,
            "humidity": "40",  # coerced to a number
            "battery": 87.5,
            "door_raw": 1,
            "moving": "true",
            "note": 12,
            "position": {"latitude": 52.1, "longitude": 4.3},
            "unknown_thing": 5,  # not in the catalog: ignored
            "temp_f": 1000,  # a formula field is computed, never taken from the payload
        },
        time=when,
        rx=[(-85, -13.1, "0016c001ff10a235")],
    )
    assert await post(client, t["token"], "up", body) == 204

    data = await latest(client, t["key"], t["device"])
    assert data == {
        "deviceId": t["device"]["id"],
        "time": cs.iso(when),
        "values": {
            "temperature": 21.0,
            "humidity": 40,
            "battery": 87.5,
            "door_raw": 1,
            "temp_f": 69.8,
            "door": "open",
            "installed": "2026-01-01",
            "label": "Room 1",
            "ratio": 40.0,
            "moving": True,
            "note": "12",
            "position": {"latitude": 52.1, "longitude": 4.3, "altitude": None},
        },
        # rssi -85 -> 0.5, snr -13.1 -> 0.23: 36.5 rounds half up to 37 (D15, D17).
        "signalQuality": 37,
        "derived": {"temperature": 21.0, "temp_f": 69.8, "door": "open", "ratio": 40.0},
    }
    stored = await readings(pool, t["device"])
    by_name = {name: value for name, _, value in stored}
    assert by_name == {
        "signal_quality": 37.0,
        "temperature": 21.0,
        "humidity": 40.0,
        "battery": 87.5,
        "door_raw": 1.0,
        "temp_f": 69.8,
        "ratio": 40.0,
        "door": "open",
        "moving": True,
        "note": "12",
        "position": {"latitude": 52.1, "longitude": 4.3, "altitude": None},
    }
    assert {time for _, time, _ in stored} == {when}
    site_nums = await pool.fetch(
        "SELECT DISTINCT r.site_num FROM readings_num r JOIN devices d ON d.num = r.device_num"
        " WHERE d.id = $1",
        t["device"]["id"],
    )
    site_num = await pool.fetchval("SELECT num FROM sites WHERE id = $1", t["site"]["id"])
    assert [r["site_num"] for r in site_nums] == [site_num]
    state = await pool.fetchrow(
        "SELECT s.* FROM device_state s JOIN devices d ON d.num = s.device_num WHERE d.id = $1",
        t["device"]["id"],
    )
    assert state["last_seen_at"] == when and state["last_uplink_at"] == when
    assert state["battery"] == {"state": "pct", "value": 88, "at": cs.iso(when), "source": "field"}
    gateway_seen = await pool.fetchval(
        "SELECT last_seen_at FROM gateways WHERE id = $1", t["gateway"]["id"]
    )
    assert gateway_seen == when


async def test_uncoercible_values_are_skipped_and_failing_formulas_left_out(
    client: AsyncTestClient, pool: asyncpg.Pool, th: dict[str, Any]
) -> None:
    when = cs.at(3)
    body = cs.uplink(
        th["device"]["devEui"],
        {
            "temperature": "warm",  # not a number: skipped
            "humidity": 50,
            "door_raw": 0,  # ratio = humidity / 0 fails
            "moving": "perhaps",  # not a boolean: skipped
            "position": {"latitude": "x"},  # not a location: skipped
        },
        time=when,
    )
    assert await post(client, th["token"], "up", body) == 204
    data = await latest(client, th["key"], th["device"])
    assert data["values"] == {
        "humidity": 50,
        "door_raw": 0,
        "door": "closed",
        "installed": "2026-01-01",
        "label": "Room 1",
    }
    assert data["derived"] == {"door": "closed"}
    names = {name for name, _, _ in await readings(pool, th["device"])}
    assert names == {"signal_quality", "humidity", "door_raw", "door"}


async def test_mapping_default_and_string_form_of_numbers(
    client: AsyncTestClient, th: dict[str, Any]
) -> None:
    dev_eui = th["device"]["devEui"]
    assert await up(client, th, {"door_raw": 7}) == 204
    assert (await latest(client, th["key"], th["device"]))["values"]["door"] == "unknown"
    # 1.0 is keyed as "1".
    body = cs.uplink(dev_eui, {"door_raw": 1.0}, time=cs.at(0, 1))
    assert await post(client, th["token"], "up", body) == 204
    assert (await latest(client, th["key"], th["device"]))["values"]["door"] == "open"


async def test_retain_last_value_carries_fields_with_their_time(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    t = await th_loaded(pool, retain=True)
    first, second = cs.at(10), cs.at(5)
    await up(client, t, {"temperature": 20, "humidity": 30}, time=first)
    await up(client, t, {"temperature": 22}, time=second)
    data = await latest(client, t["key"], t["device"])
    assert data["time"] == cs.iso(second)
    assert data["values"]["temperature"] == 22
    assert data["values"]["humidity"] == 30
    assert data["values"]["temp_f"] == 71.6
    assert data["retained"] == {"humidity": cs.iso(first)}
    assert data["derived"] == {"temp_f": 71.6}


async def test_without_retain_only_the_newest_uplink_counts(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    t = await th_loaded(pool, retain=False)
    await up(client, t, {"temperature": 20, "humidity": 30}, time=cs.at(10))
    await up(client, t, {"humidity": 31}, time=cs.at(5))
    data = await latest(client, t["key"], t["device"])
    assert data["values"] == {
        "humidity": 31,
        "installed": "2026-01-01",
        "label": "Room 1",
    }
    assert "retained" not in data
    assert data["derived"] == {}


async def test_out_of_order_uplinks_are_stored_but_never_move_latest_back(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    t = await th_loaded(pool, retain=True)
    new, old = cs.at(2), cs.at(20)
    await up(client, t, {"temperature": 25}, time=new, rx=[(-50, 10, "0016c001ff10a235")])
    before = await latest(client, t["key"], t["device"])
    await up(
        client,
        t,
        {"temperature": 5, "humidity": 80},
        time=old,
        rx=[(-120, -20, "0016c001ff10a235")],
    )
    after = await latest(client, t["key"], t["device"])
    assert after["time"] == cs.iso(new)
    assert after["values"]["temperature"] == 25
    assert after["signalQuality"] == before["signalQuality"] == 100
    # The late uplink fills in a field the newer one lacked (it is the newest of that field).
    assert after["values"]["humidity"] == 80
    assert after["retained"] == {"humidity": cs.iso(old)}
    temps = [
        (time, v) for name, time, v in await readings(pool, t["device"]) if name == "temperature"
    ]
    assert temps == [(old, 5.0), (new, 25.0)]
    state = await pool.fetchrow(
        "SELECT s.last_uplink_at, s.last_seen_at FROM device_state s"
        " JOIN devices d ON d.num = s.device_num WHERE d.id = $1",
        t["device"]["id"],
    )
    assert state["last_uplink_at"] == new and state["last_seen_at"] == new


async def test_signal_quality_from_the_best_gateway(
    client: AsyncTestClient, pool: asyncpg.Pool, th: dict[str, Any]
) -> None:
    rx = [
        (-110, -10.0, "0016c001ff10a235"),  # 7 + 17 -> 24
        (-90, 0.0, "00000000000000aa"),  # 21 + 33 -> 55 (unknown gateway: ignored)
        (-100, 5.0, "00000000000000bb"),  # 14 + 42 -> 56
    ]
    body = cs.uplink(th["device"]["devEui"], {"temperature": 1}, rx=rx)
    assert await post(client, th["token"], "up", body) == 204
    assert (await latest(client, th["key"], th["device"]))["signalQuality"] == 56
    # Clamped at both ends.
    body = cs.uplink(
        th["device"]["devEui"],
        {"temperature": 1},
        time=cs.at(0, 5),
        rx=[(-30, 40, "0016c001ff10a235")],
    )
    await post(client, th["token"], "up", body)
    assert (await latest(client, th["key"], th["device"]))["signalQuality"] == 100
    series = [v for name, _, v in await readings(pool, th["device"]) if name == "signal_quality"]
    assert series == [56.0, 100.0]


async def test_battery_from_field_and_status_newest_wins_status_on_ties(
    client: AsyncTestClient, pool: asyncpg.Pool, th: dict[str, Any]
) -> None:
    dev_eui = th["device"]["devEui"]

    async def battery() -> Any:
        return await pool.fetchval(
            "SELECT s.battery FROM device_state s JOIN devices d ON d.num = s.device_num"
            " WHERE d.id = $1",
            th["device"]["id"],
        )

    t1, t2, t3, t4 = cs.at(40), cs.at(30), cs.at(20), cs.at(10)
    assert await post(client, th["token"], "status", cs.status(dev_eui, level=55.5, time=t2)) == 204
    assert await battery() == {"state": "pct", "value": 56, "at": cs.iso(t2), "source": "status"}
    # An older battery field does not replace a newer status reading.
    await up(client, th, {"battery": 10}, time=t1)
    assert (await battery())["value"] == 56
    # Equal times: the status source wins, whichever arrives first.
    await up(client, th, {"battery": 101}, time=t2)
    assert (await battery())["source"] == "status"
    await up(client, th, {"battery": 140.2}, time=t3)
    assert await battery() == {"state": "pct", "value": 100, "at": cs.iso(t3), "source": "field"}
    await post(client, th["token"], "status", cs.status(dev_eui, external=True, time=t3))
    assert await battery() == {
        "state": "external",
        "value": None,
        "at": cs.iso(t3),
        "source": "status",
    }
    await up(client, th, {"battery": -3}, time=t4)
    assert await battery() == {"state": "pct", "value": 0, "at": cs.iso(t4), "source": "field"}
    # A newer uplink without a battery field keeps the battery.
    await up(client, th, {"temperature": 3}, time=cs.at(5))
    assert (await battery())["at"] == cs.iso(t4)
    await post(client, th["token"], "status", cs.status(dev_eui, unavailable=True, time=cs.at(1)))
    assert (await battery())["state"] == "unavailable"
    # A half percent rounds up.
    await up(client, th, {"battery": 42.5}, time=cs.at(0))
    assert (await battery())["value"] == 43


async def test_replayed_deduplication_id_is_stored_once(
    client: AsyncTestClient, pool: asyncpg.Pool, th: dict[str, Any]
) -> None:
    body = cs.uplink(th["device"]["devEui"], {"temperature": 20}, dedup="d-1")
    assert await post(client, th["token"], "up", body) == 204
    assert await post(client, th["token"], "up", body) == 204
    # The status event carried by that uplink shares its deduplicationId, and is stored.
    assert (
        await post(
            client, th["token"], "status", cs.status(th["device"]["devEui"], level=50, dedup="d-1")
        )
        == 204
    )
    names = [name for name, _, _ in await readings(pool, th["device"])]
    assert sorted(names) == ["signal_quality", "temp_f", "temperature"]
    battery = await pool.fetchval(
        "SELECT s.battery->>'value' FROM device_state s JOIN devices d ON d.num = s.device_num"
        " WHERE d.id = $1",
        th["device"]["id"],
    )
    assert battery == "50"


async def test_each_answer_carries_its_own_request_id_and_nothing_of_earlier_answers(
    client: AsyncTestClient, th: dict[str, Any]
) -> None:
    """The ingest routes are answered below the framework (app/ingest/receive.py); their
    answers are built anew per request (a shared answer grew by one header per request)."""
    ids = []
    for n in range(3):
        body = cs.uplink(th["device"]["devEui"], {"temperature": n}, dedup=f"own-{n}")
        response = await client.post(
            f"{INGEST}?event=up", content=body, headers={"Authorization": f"Bearer {th['token']}"}
        )
        assert response.status_code == 204 and response.content == b""
        assert len(response.headers.get_list("x-request-id")) == 1
        assert sorted(response.headers.keys()) == ["x-request-id"]
        ids.append(response.headers["x-request-id"])
    assert len(set(ids)) == 3


async def test_alerts_follow_the_newest_reading_of_their_field(
    client: AsyncTestClient, pool: asyncpg.Pool, th: dict[str, Any]
) -> None:

    async def alerts() -> list[tuple[str, Any]]:
        rows = await pool.fetch(
            "SELECT a.level, a.since FROM device_alerts a JOIN devices d ON d.num = a.device_num"
            " WHERE d.id = $1",
            th["device"]["id"],
        )
        return [(r["level"], r["since"]) for r in rows]

    hot = cs.at(30)
    await up(client, th, {"temperature": 31}, time=hot)
    assert await alerts() == [("warning", hot)]
    await up(client, th, {"temperature": 35}, time=cs.at(25))
    await up(client, th, {"humidity": 1}, time=cs.at(20))
    assert await alerts() == [("warning", hot)]
    # An older cool reading does not clear it; a newer one does.
    await up(client, th, {"temperature": 10}, time=cs.at(40))
    assert await alerts() == [("warning", hot)]
    await up(client, th, {"temperature": 29}, time=cs.at(10))
    assert await alerts() == []


async def test_status_join_and_location_events(
    client: AsyncTestClient, pool: asyncpg.Pool, th: dict[str, Any]
) -> None:
    dev_eui = th["device"]["devEui"]
    when = cs.at(7)
    assert await post(client, th["token"], "join", cs.join(dev_eui, time=when)) == 204
    query = "SELECT s.* FROM device_state s JOIN devices d ON d.num = s.device_num WHERE d.id = $1"
    state = await pool.fetchrow(query, th["device"]["id"])
    assert state["last_seen_at"] == when and state["last_uplink_at"] is None
    assert (
        await post(client, th["token"], "location", cs.location(dev_eui, 52.5, 4.25, time=cs.at(6)))
        == 204
    )
    state = await pool.fetchrow(query, th["device"]["id"])
    assert state["reported_location"] == {"latitude": 52.5, "longitude": 4.25, "altitude": None}
    await post(client, th["token"], "location", cs.location(dev_eui, 1.0, 2.0, 30.0, time=cs.at(8)))
    state = await pool.fetchrow(query, th["device"]["id"])
    assert state["reported_location"]["latitude"] == 52.5  # an older fix does not win
    # /latest still shows only the static values: status messages do not move `time`.
    data = await latest(client, th["key"], th["device"])
    assert data["time"] is None and data["signalQuality"] is None
    # Other event types are accepted and ignored (txack, ack and log move downlinks).
    assert await post(client, th["token"], "integration", "{}") == 204


async def test_gateways_of_the_same_partner_only(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    w, t = th_world()
    _, other_sa = w.tenancy({})
    foreign = w.gateway(other_sa, gatewayEui="00000000000000cc")
    mine = w.gateway(t["sa"], gatewayEui="00000000000000dd")
    await load(pool, w)
    when = cs.at(1)
    body = cs.uplink(
        t["device"]["devEui"],
        {"temperature": 1},
        time=when,
        rx=[(-80, 5, "00000000000000cc"), (-80, 5, "00-00-00-00-00-00-00-DD")],
    )
    assert await post(client, t["token"], "up", body) == 204
    seen = {
        r["id"]: r["last_seen_at"]
        for r in await pool.fetch(
            "SELECT id::text, last_seen_at FROM gateways WHERE id = ANY($1::uuid[])",
            [foreign["id"], mine["id"]],
        )
    }
    assert seen == {foreign["id"]: None, mine["id"]: when}


async def test_refusals(client: AsyncTestClient, pool: asyncpg.Pool) -> None:
    w, t = th_world()
    inventory = w.device(t["partner"], t["profile"])
    _, _, foreign = w.tenancy_with_device()
    await load(pool, w)
    good = cs.uplink(t["device"]["devEui"], {"temperature": 1})

    response = await client.post(f"{INGEST}?event=up", content=good)
    assert_error(response, 401, "unauthorized")
    assert response.headers["www-authenticate"] == "Bearer"
    assert await post(client, "not-a-token", "up", good) == 401
    assert await post(client, "not-a-token", "txack", "{}") == 401
    assert await post(client, t["token"], "up", "{not json") == 400
    assert await post(client, t["token"], "up", '{"object": {}}') == 400  # no deviceInfo
    assert await post(client, t["token"], "up", '{"deviceInfo": {"devEui": 5}}') == 400
    assert await post(client, t["token"], "up", cs.uplink("ffffffffffffffff", {})) == 404
    assert await post(client, t["token"], "up", cs.uplink(inventory["devEui"], {})) == 404
    assert await post(client, t["token"], "up", cs.uplink(foreign["devEui"], {})) == 404
    assert await post(client, t["token"], "status", cs.status(inventory["devEui"], level=3)) == 404
    assert await post(client, t["token"], "up", cs.uplink("nonsense", {})) == 404
    assert await readings(pool, inventory) == []
    assert await readings(pool, foreign) == []
    assert await readings(pool, t["device"]) == []


async def test_event_without_time_takes_the_time_received(
    client: AsyncTestClient, pool: asyncpg.Pool, th: dict[str, Any]
) -> None:
    before = cs.at(0, -1)
    assert await up(client, th, {"temperature": 4}) == 204
    stored = await readings(pool, th["device"])
    assert stored and all(time >= before for _, time, _ in stored)


async def test_moving_to_inventory_after_ingest_makes_it_404(
    client: AsyncTestClient, pool: asyncpg.Pool, th: dict[str, Any]
) -> None:
    dev_eui = th["device"]["devEui"]
    assert await up(client, th, {"temperature": 1}) == 204
    num = await device_num(pool, th["device"])
    async with pool.acquire() as connection, connection.transaction():
        await connection.execute(
            "UPDATE devices SET status = 'inventory', sub_account_id = NULL, site_id = NULL"
            " WHERE num = $1",
            num,
        )
        await connection.execute("SELECT delete_device_telemetry($1)", num)
    # The cached device context must not let the next uplink in.
    body = cs.uplink(dev_eui, {"temperature": 2}, time=cs.at(0, 1))
    assert await post(client, th["token"], "up", body) == 404
    assert await readings(pool, th["device"]) == []


async def state_of(pool: asyncpg.Pool, device: dict[str, Any]) -> Any:
    return await pool.fetchrow(
        "SELECT s.* FROM device_state s JOIN devices d ON d.num = s.device_num WHERE d.id = $1",
        device["id"],
    )


async def test_huge_numbers_are_skipped_never_a_500(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    w, t = th_world()
    t["device"]["calibration"] = {"humidity": {"scale": 1e308, "offset": 0}}
    await load(pool, w)
    dev_eui = t["device"]["devEui"]
    huge = "9" * 309
    # A JSON integer of 309 digits (decoded as int), a numeric string of that size and a
    # float literal beyond float8; the protobuf builder cannot write them, so the text is
    # edited in.
    body = cs.uplink(dev_eui, {"temperature": 0, "door_raw": 0, "battery": 0}, time=cs.at(5))
    body = body.replace('"temperature": 0.0', f'"temperature": {huge}')
    body = body.replace('"door_raw": 0.0', '"door_raw": 1e400')
    body = body.replace('"battery": 0.0', f'"battery": "{huge}"')
    assert huge in body and "1e400" in body
    assert await post(client, t["token"], "up", body) == 204
    # Calibration overflowing to inf (10 * 1e308) is left out of the reading.
    body = cs.uplink(dev_eui, {"humidity": 10, "note": "n"}, time=cs.at(4))
    assert await post(client, t["token"], "up", body) == 204
    data = await latest(client, t["key"], t["device"])
    assert data["values"] == {"note": "n", "installed": "2026-01-01", "label": "Room 1"}
    stored = await readings(pool, t["device"])
    assert sorted(name for name, _, _ in stored) == ["note", "signal_quality", "signal_quality"]
    # Nothing infinite anywhere: the rollups still sum.
    infinite = await pool.fetchval(
        "SELECT count(*) FROM readings_num WHERE value = 'Infinity' OR value = '-Infinity'"
        " OR value = 'NaN'"
    )
    assert infinite == 0
    # Within the limit the same uplink is stored.
    body = cs.uplink(dev_eui, {"humidity": 1e-300, "temperature": 1e300}, time=cs.at(3))
    assert await post(client, t["token"], "up", body) == 204
    data = await latest(client, t["key"], t["device"])
    assert float(data["values"]["temperature"]) == 1e300  # jsonb prints all 301 digits
    assert data["values"]["humidity"] == pytest.approx(1e8)


async def test_strings_with_nul_are_skipped_and_the_device_keeps_working(
    client: AsyncTestClient, pool: asyncpg.Pool, th: dict[str, Any]
) -> None:
    dev_eui = th["device"]["devEui"]
    body = cs.uplink(
        dev_eui, {"note": "a\u0000b", "humidity": 5}, time=cs.at(5), dedup="id-\u0000-1"
    )
    assert "\\u0000" in body
    assert await post(client, th["token"], "up", body) == 204
    data = await latest(client, th["key"], th["device"])
    assert "note" not in data["values"] and data["values"]["humidity"] == 5
    # A NUL in the deduplicationId is dropped: the replay is still recognised.
    assert await post(client, th["token"], "up", body) == 204
    assert len([n for n, _, _ in await readings(pool, th["device"]) if n == "humidity"]) == 1
    body = cs.uplink(dev_eui, {"note": "fine"}, time=cs.at(4))
    assert await post(client, th["token"], "up", body) == 204
    assert (await latest(client, th["key"], th["device"]))["values"]["note"] == "fine"


async def test_proto3_nulls_and_numbers_as_strings_are_accepted(
    client: AsyncTestClient, pool: asyncpg.Pool, th: dict[str, Any]
) -> None:
    dev_eui = th["device"]["devEui"]
    when = cs.at(5)
    body = cs.uplink(dev_eui, {"humidity": 5}, time=when, rx=[(-80, 7.5, "0016c001ff10a235")])
    assert (
        await post(client, th["token"], "up", body.replace('"rssi": -80', '"rssi": "-80"')) == 204
    )
    assert (await latest(client, th["key"], th["device"]))["signalQuality"] == 74
    body = cs.uplink(dev_eui, {"humidity": 6}, time=cs.at(4), rx=[])
    body = body.replace('"deviceInfo"', '"rxInfo": null, "deviceInfo"')
    assert await post(client, th["token"], "up", body) == 204
    data = await latest(client, th["key"], th["device"])
    assert data["values"]["humidity"] == 6 and data["signalQuality"] == 74
    # A status event whose level is NaN keeps the battery as it was; lastSeenAt moves.
    third = cs.at(3)
    body = cs.status(dev_eui, level=float("nan"), time=third)
    assert '"NaN"' in body
    assert await post(client, th["token"], "status", body) == 204
    state = await state_of(pool, th["device"])
    assert state["battery"] is None and state["last_seen_at"] == third


async def test_archived_device_is_404(client: AsyncTestClient, pool: asyncpg.Pool) -> None:
    w, t = th_world()
    archived = w.device(t["sa"], t["profile"], status="archived")
    await load(pool, w)
    for event, body in (
        ("up", cs.uplink(archived["devEui"], {"temperature": 1})),
        ("status", cs.status(archived["devEui"], level=5)),
        ("join", cs.join(archived["devEui"])),
        ("location", cs.location(archived["devEui"], 1.0, 2.0)),
    ):
        assert await post(client, t["token"], event, body) == 404, event
    assert await readings(pool, archived) == []
    assert await state_of(pool, archived) is None
    # Archived after it reported: the cached context does not let the next uplink in.
    dev_eui = t["device"]["devEui"]
    assert await up(client, t, {"temperature": 1}) == 204
    async with pool.acquire() as connection:
        await set_device_status(connection, t["device"]["id"], "archived", None)
    body = cs.uplink(dev_eui, {"temperature": 2}, time=cs.at(0, 1))
    assert await post(client, t["token"], "up", body) == 404
    assert [v for n, _, v in await readings(pool, t["device"]) if n == "temperature"] == [1]


async def test_replayed_status_join_and_location_events_are_stored_once(
    client: AsyncTestClient, pool: asyncpg.Pool, th: dict[str, Any]
) -> None:
    dev_eui = th["device"]["devEui"]
    token = th["token"]
    nine, eight, seven = cs.at(9), cs.at(8), cs.at(7)
    assert await post(client, token, "join", cs.join(dev_eui, time=nine, dedup="j")) == 204
    # Replays carry a newer time and other content: only the first is stored.
    assert await post(client, token, "join", cs.join(dev_eui, time=cs.at(1), dedup="j")) == 204
    assert (await state_of(pool, th["device"]))["last_seen_at"] == nine
    body = cs.status(dev_eui, level=40, time=eight, dedup="s")
    assert await post(client, token, "status", body) == 204
    body = cs.status(dev_eui, level=90, time=cs.at(1), dedup="s")
    assert await post(client, token, "status", body) == 204
    state = await state_of(pool, th["device"])
    assert state["battery"]["value"] == 40 and state["last_seen_at"] == eight
    body = cs.location(dev_eui, 10.0, 20.0, time=seven, dedup="l")
    assert await post(client, token, "location", body) == 204
    body = cs.location(dev_eui, 30.0, 40.0, time=cs.at(1), dedup="l")
    assert await post(client, token, "location", body) == 204
    state = await state_of(pool, th["device"])
    assert state["reported_location"]["latitude"] == 10.0
    assert state["last_seen_at"] == seven
    # One dedup row per event type.
    keys = await pool.fetch(
        "SELECT deduplication_id FROM ingest_dedup WHERE partner_id = $1 ORDER BY 1",
        th["partner"]["id"],
    )
    assert [r["deduplication_id"] for r in keys] == ["join:j", "location:l", "status:s"]


async def test_status_join_and_location_without_time_take_the_time_received(
    client: AsyncTestClient, pool: asyncpg.Pool, th: dict[str, Any]
) -> None:
    dev_eui = th["device"]["devEui"]
    for event, body in (
        ("status", cs.status(dev_eui, level=33)),
        ("join", cs.join(dev_eui)),
        ("location", cs.location(dev_eui, 5.0, 6.0)),
    ):
        assert '"time"' not in body
        before = cs.at(0, -1)
        assert await post(client, th["token"], event, body) == 204
        state = await state_of(pool, th["device"])
        assert before <= state["last_seen_at"] <= cs.at(0, 2), event
    state = await state_of(pool, th["device"])
    assert state["battery"]["value"] == 33
    assert state["reported_location"]["latitude"] == 5.0
    assert state["reported_location_at"] >= cs.at(0, -3)


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        ({"unavailable": True}, {"state": "unavailable", "value": None}),
        ({"external": True}, {"state": "external", "value": None}),
        ({"external": True, "unavailable": True}, {"state": "external", "value": None}),
        ({"level": 55.5}, {"state": "pct", "value": 56}),
    ],
)
async def test_status_battery_states(
    client: AsyncTestClient,
    pool: asyncpg.Pool,
    th: dict[str, Any],
    flags: dict[str, Any],
    expected: Any,
) -> None:
    body = cs.status(th["device"]["devEui"], time=cs.at(2), **flags)
    assert await post(client, th["token"], "status", body) == 204
    battery = (await state_of(pool, th["device"]))["battery"]
    assert {"state": battery["state"], "value": battery["value"]} == expected
    assert battery["source"] == "status"


async def test_calibration_defaults_and_a_mapping_over_a_calibrated_source(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    w, t = th_world()
    # scale only (offset 0), offset only (scale 1); door reads the calibrated door_raw.
    t["device"]["calibration"] = {"humidity": {"scale": 2}, "door_raw": {"offset": 1}}
    await load(pool, w)
    body = cs.uplink(
        t["device"]["devEui"], {"humidity": 21, "door_raw": 0, "temperature": 5}, time=cs.at(2)
    )
    assert await post(client, t["token"], "up", body) == 204
    data = await latest(client, t["key"], t["device"])
    assert data["values"]["humidity"] == 42
    assert data["values"]["door_raw"] == 1
    assert data["values"]["door"] == "open"  # mapped from the calibrated 1, not the raw 0
    assert data["values"]["ratio"] == 42
    assert {"humidity", "door_raw", "door", "ratio"} <= set(data["derived"])
    assert "temperature" not in data["derived"]


async def test_a_carried_derived_value_stays_in_derived(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    t = await th_loaded(pool, retain=True)
    dev_eui = t["device"]["devEui"]
    first = cs.at(10)
    body = cs.uplink(dev_eui, {"temperature": 10, "door_raw": 1}, time=first)
    assert await post(client, t["token"], "up", body) == 204
    body = cs.uplink(dev_eui, {"humidity": 50}, time=cs.at(5))
    assert await post(client, t["token"], "up", body) == 204
    data = await latest(client, t["key"], t["device"])
    assert data["values"]["temp_f"] == 50 and data["values"]["door"] == "open"
    assert data["retained"]["temp_f"] == cs.iso(first)
    # Formulas are computed over an uplink's own values: ratio needs both, so it has none.
    assert data["derived"] == {"temp_f": 50, "door": "open"}


async def test_alert_operators_and_levels_through_ingest(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    w, t = th_world()
    w.alert_rule(t["profile"], "humidity", "<", 10, "alert")
    w.alert_rule(t["profile"], "humidity", ">=", 90, "info")
    w.alert_rule(t["profile"], "door", "==", "open", "alert")
    w.alert_rule(t["profile"], "note", "!=", "ok", "info")
    w.alert_rule(t["profile"], "battery", "<=", 20, "warning")
    await load(pool, w)
    dev_eui = t["device"]["devEui"]

    async def alerts() -> list[tuple[str, str, Any]]:
        rows = await pool.fetch(
            "SELECT r.field, a.level, a.since FROM device_alerts a"
            " JOIN alert_rules r ON r.id = a.rule_id"
            " JOIN devices d ON d.num = a.device_num WHERE d.id = $1 ORDER BY 1, 2",
            t["device"]["id"],
        )
        return [(r["field"], r["level"], r["since"]) for r in rows]

    first = cs.at(20)
    body = cs.uplink(
        dev_eui, {"humidity": 5, "door_raw": 1, "note": "bad", "battery": 20}, time=first
    )
    assert await post(client, t["token"], "up", body) == 204
    assert await alerts() == [
        ("battery", "warning", first),
        ("door", "alert", first),
        ("humidity", "alert", first),
        ("note", "info", first),
    ]
    second = cs.at(10)
    body = cs.uplink(
        dev_eui, {"humidity": 95, "door_raw": 0, "note": "ok", "battery": 21}, time=second
    )
    assert await post(client, t["token"], "up", body) == 204
    # Each newer non-breaking reading cleared its alert; humidity now breaks the other rule.
    assert await alerts() == [("humidity", "info", second)]
    body = cs.uplink(dev_eui, {"humidity": 50}, time=cs.at(5))
    assert await post(client, t["token"], "up", body) == 204
    assert await alerts() == []


async def test_a_late_uplink_never_moves_a_gateways_last_seen_back(
    client: AsyncTestClient, pool: asyncpg.Pool, th: dict[str, Any]
) -> None:
    dev_eui = th["device"]["devEui"]
    query = "SELECT last_seen_at FROM gateways WHERE id = $1"
    newest = cs.at(2)
    assert await up(client, th, {"humidity": 1}, time=newest)
    assert await pool.fetchval(query, th["gateway"]["id"]) == newest
    body = cs.uplink(dev_eui, {"humidity": 2}, time=cs.at(30))
    assert await post(client, th["token"], "up", body) == 204
    assert await pool.fetchval(query, th["gateway"]["id"]) == newest


async def test_concurrent_uplinks_leave_each_gateway_at_its_newest_uplink(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    w, t = th_world()
    gateways = ["0016c001ff10a235"] + [w.gateway(t["sa"])["gatewayEui"] for _ in range(3)]
    devices = [t["device"]] + [w.device(t["sa"], t["profile"]) for _ in range(7)]
    await load(pool, w)
    base = cs.at(120)
    newest: dict[str, Any] = {}
    bodies = []
    for index in range(160):
        # Every uplink is relayed by two gateways, in varying order, at shuffled times.
        when = base + timedelta(seconds=(index * 53) % 7200)
        pair = [gateways[index % 4], gateways[(index * 3 + 1) % 4]]
        for eui in pair:
            newest[eui] = max(newest.get(eui, when), when)
        device = devices[index % len(devices)]
        rx = [(-80, 5.0, eui) for eui in pair]
        bodies.append(cs.uplink(device["devEui"], {"humidity": index}, time=when, rx=rx))

    async def send(body: str) -> int:
        return await post(client, t["token"], "up", body)

    assert await asyncio.gather(*(send(b) for b in bodies)) == [204] * len(bodies)
    rows = await pool.fetch(
        "SELECT gateway_eui, last_seen_at FROM gateways WHERE partner_id = $1",
        t["partner"]["id"],
    )
    assert {r["gateway_eui"]: r["last_seen_at"] for r in rows} == newest


async def test_an_uplink_waits_for_a_gateway_row_held_by_an_older_one(
    client: AsyncTestClient, pool: asyncpg.Pool, settings: Settings
) -> None:
    """A concurrent transaction holding the gateway row (an older uplink) must not make a
    newer uplink skip the gateway: lastSeenAt ends at the newest relayed uplink (D17)."""
    w, t = th_world()
    other = w.device(t["sa"], t["profile"])
    await load(pool, w)
    gateway = "0016c001ff10a235"
    context = await ingest_context(pool, t["device"]["id"])
    older, newer = cs.at(10), cs.at(5)
    # Committed first, so that the hypertable chunks of these times exist: creating one
    # would make the second transaction wait for the first whatever the gateway does.
    warm = cs.uplink(other["devEui"], {"humidity": 0}, time=cs.at(15), rx=[])
    assert await post(client, t["token"], "up", warm) == 204
    locked, release = threading.Event(), threading.Event()
    uplink = Uplink(time=older, values={"humidity": 1}, gateways=[gateway])

    async def hold() -> None:
        # In a thread of its own: the test client blocks this loop while it serves a request.
        connection = await connect(settings)
        try:
            async with connection.transaction():
                assert await store_uplink(connection, context, uplink) == "stored"
                locked.set()
                await asyncio.get_running_loop().run_in_executor(None, release.wait, 10)
        finally:
            await connection.close()

    holder = threading.Thread(target=asyncio.run, args=(hold(),))
    holder.start()
    assert locked.wait(10)
    threading.Timer(0.5, release.set).start()
    started = time.monotonic()
    body = cs.uplink(other["devEui"], {"humidity": 2}, time=newer, rx=[(-80, 5, gateway)])
    assert await post(client, t["token"], "up", body) == 204
    waited = time.monotonic() - started
    holder.join(10)
    assert waited >= 0.4  # it waited for the gateway row instead of skipping it
    seen = await pool.fetchval(
        "SELECT last_seen_at FROM gateways WHERE id = $1", t["gateway"]["id"]
    )
    assert seen == newer
