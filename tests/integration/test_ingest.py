"""POST /ingest/chirpstack and the ingest pipeline, with real ChirpStack JSON."""

from __future__ import annotations

from typing import Any

import asyncpg
from litestar.testing import AsyncTestClient

from tests.factories import World, load
from tests.integration import test_ingest_helpers as cs

INGEST = "/ingest/chirpstack"


def th_world(retain: bool = False) -> tuple[World, dict[str, Any]]:
    """A partner with a TH-100-like profile (operations.md's example) and one device."""
    w = World()
    p = w.partner(plan={"apiWrite": True, "retentionDays": 90})
    sa = w.sub_account(p)
    prof = w.profile(
        p,
        retainLastValue=retain,
        fields=[
            w.field("temperature"),
            w.field("humidity"),
            w.field("battery", role="battery_pct"),
            w.field("door_raw"),
            w.field("temp_f", kind="formula", formula="temperature * 9 / 5 + 32"),
            w.field(
                "door",
                kind="mapping",
                dataType="string",
                source="door_raw",
                map={"0": "closed", "1": "open"},
                default="unknown",
            ),
            w.field("installed", kind="static", dataType="date", default="2026-01-01"),
            w.field("label", kind="static", dataType="string"),
            w.field("ratio", kind="formula", formula="humidity / door_raw"),
            w.field("moving", dataType="boolean"),
            w.field("note", dataType="string"),
            w.field("position", dataType="location"),
        ],
    )
    w.alert_rule(prof, "temperature", ">", 30, "warning")
    site = w.site(sa)
    dev = w.device(sa, prof, site=site, static={"label": "Room 1"})
    gw = w.gateway(sa, gatewayEui="0016c001ff10a235")
    token = w.integration(p)
    key = w.key(sa, scopes=["devices:read", "telemetry:read"])
    return w, {
        "partner": p,
        "sa": sa,
        "profile": prof,
        "site": site,
        "device": dev,
        "gateway": gw,
        "token": token,
        "key": key,
    }


async def latest(client: AsyncTestClient, key: str, device: dict[str, Any]) -> dict[str, Any]:
    response = await client.get(
        f"/api/v1/devices/{device['id']}/latest", headers={"Authorization": f"Bearer {key}"}
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()["data"]
    return body


async def post(client: AsyncTestClient, token: str, event: str, body: str) -> int:
    response = await client.post(f"{INGEST}?event={event}", content=body, headers=cs.bearer(token))
    assert response.status_code in (204, 400, 401, 404), response.text
    if response.status_code != 204:
        assert response.json()["error"]["code"]
    return response.status_code


async def device_num(pool: asyncpg.Pool, device: dict[str, Any]) -> int:
    num: int = await pool.fetchval("SELECT num FROM devices WHERE id = $1", device["id"])
    return num


async def readings(pool: asyncpg.Pool, device: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    rows = await pool.fetch(
        """SELECT COALESCE(f.identifier, 'signal_quality') AS identifier, r.time,
                  to_jsonb(r.value) AS value
             FROM readings_num r JOIN devices d ON d.num = r.device_num
             LEFT JOIN profile_fields f ON f.num = r.field_num
            WHERE d.id = $1
           UNION ALL
           SELECT f.identifier, r.time, r.value
             FROM readings_other r JOIN devices d ON d.num = r.device_num
             JOIN profile_fields f ON f.num = r.field_num
            WHERE d.id = $1
            ORDER BY 2, 1""",
        device["id"],
    )
    return [(r["identifier"], r["time"], r["value"]) for r in rows]


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
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    w, t = th_world()
    await load(pool, w)
    when = cs.at(3)
    body = cs.uplink(
        t["device"]["devEui"],
        {
            "temperature": "warm",  # not a number: skipped
            "humidity": 50,
            "door_raw": 0,  # ratio = humidity / 0 fails
            "moving": "perhaps",  # not a boolean: skipped
            "position": {"latitude": "x"},  # not a location: skipped
        },
        time=when,
    )
    assert await post(client, t["token"], "up", body) == 204
    data = await latest(client, t["key"], t["device"])
    assert data["values"] == {
        "humidity": 50,
        "door_raw": 0,
        "door": "closed",
        "installed": "2026-01-01",
        "label": "Room 1",
    }
    assert data["derived"] == {"door": "closed"}
    names = {name for name, _, _ in await readings(pool, t["device"])}
    assert names == {"signal_quality", "humidity", "door_raw", "door"}


async def test_mapping_default_and_string_form_of_numbers(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    w, t = th_world()
    await load(pool, w)
    dev_eui = t["device"]["devEui"]
    assert await post(client, t["token"], "up", cs.uplink(dev_eui, {"door_raw": 7})) == 204
    assert (await latest(client, t["key"], t["device"]))["values"]["door"] == "unknown"
    # 1.0 is keyed as "1".
    body = cs.uplink(dev_eui, {"door_raw": 1.0}, time=cs.at(0, 1))
    assert await post(client, t["token"], "up", body) == 204
    assert (await latest(client, t["key"], t["device"]))["values"]["door"] == "open"


async def test_retain_last_value_carries_fields_with_their_time(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    w, t = th_world(retain=True)
    await load(pool, w)
    dev_eui = t["device"]["devEui"]
    first, second = cs.at(10), cs.at(5)
    await post(
        client,
        t["token"],
        "up",
        cs.uplink(dev_eui, {"temperature": 20, "humidity": 30}, time=first),
    )
    await post(client, t["token"], "up", cs.uplink(dev_eui, {"temperature": 22}, time=second))
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
    w, t = th_world(retain=False)
    await load(pool, w)
    dev_eui = t["device"]["devEui"]
    await post(
        client,
        t["token"],
        "up",
        cs.uplink(dev_eui, {"temperature": 20, "humidity": 30}, time=cs.at(10)),
    )
    await post(client, t["token"], "up", cs.uplink(dev_eui, {"humidity": 31}, time=cs.at(5)))
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
    w, t = th_world(retain=True)
    await load(pool, w)
    dev_eui = t["device"]["devEui"]
    new, old = cs.at(2), cs.at(20)
    await post(
        client,
        t["token"],
        "up",
        cs.uplink(dev_eui, {"temperature": 25}, time=new, rx=[(-50, 10, "0016c001ff10a235")]),
    )
    before = await latest(client, t["key"], t["device"])
    await post(
        client,
        t["token"],
        "up",
        cs.uplink(
            dev_eui,
            {"temperature": 5, "humidity": 80},
            time=old,
            rx=[(-120, -20, "0016c001ff10a235")],
        ),
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
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    w, t = th_world()
    await load(pool, w)
    rx = [
        (-110, -10.0, "0016c001ff10a235"),  # 7 + 17 -> 24
        (-90, 0.0, "00000000000000aa"),  # 21 + 33 -> 55 (unknown gateway: ignored)
        (-100, 5.0, "00000000000000bb"),  # 14 + 42 -> 56
    ]
    body = cs.uplink(t["device"]["devEui"], {"temperature": 1}, rx=rx)
    assert await post(client, t["token"], "up", body) == 204
    assert (await latest(client, t["key"], t["device"]))["signalQuality"] == 56
    # Clamped at both ends.
    body = cs.uplink(
        t["device"]["devEui"],
        {"temperature": 1},
        time=cs.at(0, 5),
        rx=[(-30, 40, "0016c001ff10a235")],
    )
    await post(client, t["token"], "up", body)
    assert (await latest(client, t["key"], t["device"]))["signalQuality"] == 100
    series = [v for name, _, v in await readings(pool, t["device"]) if name == "signal_quality"]
    assert series == [56.0, 100.0]


async def test_battery_from_field_and_status_newest_wins_status_on_ties(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    w, t = th_world()
    await load(pool, w)
    dev_eui = t["device"]["devEui"]

    async def battery() -> Any:
        return await pool.fetchval(
            "SELECT s.battery FROM device_state s JOIN devices d ON d.num = s.device_num"
            " WHERE d.id = $1",
            t["device"]["id"],
        )

    t1, t2, t3, t4 = cs.at(40), cs.at(30), cs.at(20), cs.at(10)
    assert await post(client, t["token"], "status", cs.status(dev_eui, level=55.5, time=t2)) == 204
    assert await battery() == {"state": "pct", "value": 56, "at": cs.iso(t2), "source": "status"}
    # An older battery field does not replace a newer status reading.
    await post(client, t["token"], "up", cs.uplink(dev_eui, {"battery": 10}, time=t1))
    assert (await battery())["value"] == 56
    # Equal times: the status source wins, whichever arrives first.
    await post(client, t["token"], "up", cs.uplink(dev_eui, {"battery": 101}, time=t2))
    assert (await battery())["source"] == "status"
    await post(client, t["token"], "up", cs.uplink(dev_eui, {"battery": 140.2}, time=t3))
    assert await battery() == {"state": "pct", "value": 100, "at": cs.iso(t3), "source": "field"}
    await post(client, t["token"], "status", cs.status(dev_eui, external=True, time=t3))
    assert await battery() == {
        "state": "external",
        "value": None,
        "at": cs.iso(t3),
        "source": "status",
    }
    await post(client, t["token"], "up", cs.uplink(dev_eui, {"battery": -3}, time=t4))
    assert await battery() == {"state": "pct", "value": 0, "at": cs.iso(t4), "source": "field"}
    # A newer uplink without a battery field keeps the battery.
    await post(client, t["token"], "up", cs.uplink(dev_eui, {"temperature": 3}, time=cs.at(5)))
    assert (await battery())["at"] == cs.iso(t4)
    await post(client, t["token"], "status", cs.status(dev_eui, unavailable=True, time=cs.at(1)))
    assert (await battery())["state"] == "unavailable"
    # A half percent rounds up.
    await post(client, t["token"], "up", cs.uplink(dev_eui, {"battery": 42.5}, time=cs.at(0)))
    assert (await battery())["value"] == 43


async def test_replayed_deduplication_id_is_stored_once(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    w, t = th_world()
    await load(pool, w)
    body = cs.uplink(t["device"]["devEui"], {"temperature": 20}, dedup="d-1")
    assert await post(client, t["token"], "up", body) == 204
    assert await post(client, t["token"], "up", body) == 204
    # The status event carried by that uplink shares its deduplicationId, and is stored.
    assert (
        await post(
            client, t["token"], "status", cs.status(t["device"]["devEui"], level=50, dedup="d-1")
        )
        == 204
    )
    names = [name for name, _, _ in await readings(pool, t["device"])]
    assert sorted(names) == ["signal_quality", "temp_f", "temperature"]
    battery = await pool.fetchval(
        "SELECT s.battery->>'value' FROM device_state s JOIN devices d ON d.num = s.device_num"
        " WHERE d.id = $1",
        t["device"]["id"],
    )
    assert battery == "50"


async def test_alerts_follow_the_newest_reading_of_their_field(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    w, t = th_world()
    await load(pool, w)
    dev_eui = t["device"]["devEui"]

    async def alerts() -> list[tuple[str, Any]]:
        rows = await pool.fetch(
            "SELECT a.level, a.since FROM device_alerts a JOIN devices d ON d.num = a.device_num"
            " WHERE d.id = $1",
            t["device"]["id"],
        )
        return [(r["level"], r["since"]) for r in rows]

    hot = cs.at(30)
    await post(client, t["token"], "up", cs.uplink(dev_eui, {"temperature": 31}, time=hot))
    assert await alerts() == [("warning", hot)]
    await post(client, t["token"], "up", cs.uplink(dev_eui, {"temperature": 35}, time=cs.at(25)))
    await post(client, t["token"], "up", cs.uplink(dev_eui, {"humidity": 1}, time=cs.at(20)))
    assert await alerts() == [("warning", hot)]
    # An older cool reading does not clear it; a newer one does.
    await post(client, t["token"], "up", cs.uplink(dev_eui, {"temperature": 10}, time=cs.at(40)))
    assert await alerts() == [("warning", hot)]
    await post(client, t["token"], "up", cs.uplink(dev_eui, {"temperature": 29}, time=cs.at(10)))
    assert await alerts() == []


async def test_status_join_and_location_events(client: AsyncTestClient, pool: asyncpg.Pool) -> None:
    w, t = th_world()
    await load(pool, w)
    dev_eui = t["device"]["devEui"]
    when = cs.at(7)
    assert await post(client, t["token"], "join", cs.join(dev_eui, time=when)) == 204
    query = "SELECT s.* FROM device_state s JOIN devices d ON d.num = s.device_num WHERE d.id = $1"
    state = await pool.fetchrow(query, t["device"]["id"])
    assert state["last_seen_at"] == when and state["last_uplink_at"] is None
    assert (
        await post(client, t["token"], "location", cs.location(dev_eui, 52.5, 4.25, time=cs.at(6)))
        == 204
    )
    state = await pool.fetchrow(query, t["device"]["id"])
    assert state["reported_location"] == {"latitude": 52.5, "longitude": 4.25, "altitude": None}
    await post(client, t["token"], "location", cs.location(dev_eui, 1.0, 2.0, 30.0, time=cs.at(8)))
    state = await pool.fetchrow(query, t["device"]["id"])
    assert state["reported_location"]["latitude"] == 52.5  # an older fix does not win
    # /latest still shows only the static values: status messages do not move `time`.
    data = await latest(client, t["key"], t["device"])
    assert data["time"] is None and data["signalQuality"] is None
    # Other event types are accepted and ignored.
    assert await post(client, t["token"], "txack", "{}") == 204


async def test_gateways_of_the_same_partner_only(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    w, t = th_world()
    other = w.partner()
    other_sa = w.sub_account(other)
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
    other = w.partner()
    other_sa = w.sub_account(other)
    other_profile = w.profile(other)
    foreign = w.device(other_sa, other_profile)
    await load(pool, w)
    good = cs.uplink(t["device"]["devEui"], {"temperature": 1})

    response = await client.post(f"{INGEST}?event=up", content=good)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthorized"
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
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    w, t = th_world()
    await load(pool, w)
    before = cs.at(0, -1)
    assert (
        await post(client, t["token"], "up", cs.uplink(t["device"]["devEui"], {"temperature": 4}))
        == 204
    )
    stored = await readings(pool, t["device"])
    assert stored and all(time >= before for _, time, _ in stored)


async def test_moving_to_inventory_after_ingest_makes_it_404(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    w, t = th_world()
    await load(pool, w)
    dev_eui = t["device"]["devEui"]
    assert await post(client, t["token"], "up", cs.uplink(dev_eui, {"temperature": 1})) == 204
    num = await device_num(pool, t["device"])
    async with pool.acquire() as connection, connection.transaction():
        await connection.execute(
            "UPDATE devices SET status = 'inventory', sub_account_id = NULL, site_id = NULL"
            " WHERE num = $1",
            num,
        )
        await connection.execute("SELECT delete_device_telemetry($1)", num)
    # The cached device context must not let the next uplink in.
    body = cs.uplink(dev_eui, {"temperature": 2}, time=cs.at(0, 1))
    assert await post(client, t["token"], "up", body) == 404
    assert await readings(pool, t["device"]) == []
