"""GET /devices/{id}/export and GET /export: every rule of integrations.md section 4."""

from __future__ import annotations

import asyncio
import csv
import io
import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import httpx
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from litestar.testing import AsyncTestClient

from app.core.config import Settings
from app.main import create_app
from testkit.factories import ReadDevices, World, load, telemetry_keys
from tests.support.helpers import assert_error, bearer
from tests.support.history import iso, nums, parse
from tests.support.servers import LiveServer, start_server

DEVICE_EXPORT = "/api/v1/devices/{}/export"
FLEET_EXPORT = "/api/v1/export"
HISTORY = "/api/v1/devices/{}/history"
NOW = datetime.now(UTC).replace(second=0, microsecond=0)
# 1,500 minutes of readings, two days back: three history pages per field.
START = NOW - timedelta(days=2)
MINUTES = 1_500
RANGE = {"from": iso(START - timedelta(hours=1)), "to": iso(START + timedelta(days=1, hours=2))}
STRINGS = ["=SUM(A1)", "+1", "-x", "@cmd", "\tTab", "plain", 'say "hi", then\nleave', ""]


@dataclass
class Setup(ReadDevices):
    short_key: str
    second: dict[str, Any]
    short_device: dict[str, Any]
    sub: dict[str, Any]
    profile: dict[str, Any]


async def lone_device(pool: asyncpg.Pool, **partner: Any) -> tuple[dict[str, Any], str, int, int]:
    """A partner of its own (ten years kept) with one device of the default profile, loaded:
    (device, a telemetry:read key of the partner, the device's num, its field's num)."""
    w = World()
    made = w.partner(plan={"retentionDays": 3650}, **partner)
    profile = w.profile(made)
    device = w.device(w.sub_account(made), profile)
    key = w.key(made, scopes=["telemetry:read"])
    await load(pool, w)
    [num] = await nums(pool, "devices", [device["id"]])
    [field] = await nums(pool, "profile_fields", [profile["fields"][0]["id"]])
    return device, key, num, field


async def record_many(pool: asyncpg.Pool, rows: list[tuple[Any, ...]]) -> None:
    """(device_num, time, {field_num: number}, {field_num: other}) through record_readings."""
    await pool.executemany(
        "SELECT record_readings($1, 0, $2, $3, $4, $5, $6)",
        [
            (device, at, list(numbers), list(numbers.values()), list(others), list(others.values()))
            for device, at, numbers, others in rows
        ],
    )


@pytest.fixture(scope="module")
async def setup(pool: asyncpg.Pool) -> Setup:
    w = World()
    tier = {"perMinute": 100_000, "perDay": 10_000_000}
    partner = w.partner(plan={"retentionDays": 3650}, features={"multiSite": True}, tier=tier)
    sub, other_sub = w.sub_account(partner), w.sub_account(partner)
    fields = [
        *w.fields(temperature="number", label="string", open="boolean", where="location"),
        w.field("installed", dataType="date", kind="static", default="2026-01-01"),
    ]
    profile = w.profile(partner, fields=fields)
    device = w.device(sub, profile)
    second = w.device(sub, profile)
    other_device = w.device(other_sub, profile)
    inventory = w.device(partner, profile)
    archived = w.device(sub, profile, status="archived")
    foreign_partner, _, foreign = w.tenancy_with_device(tier=tier)
    _, short_sub, short_device = w.tenancy_with_device(plan={"retentionDays": 1}, tier=tier)
    setup = Setup(
        **telemetry_keys(w, partner, sub, other_sub, foreign_partner),
        short_key=w.key(short_sub, scopes=["telemetry:read"]),
        device=device,
        second=second,
        other_device=other_device,
        inventory=inventory,
        archived=archived,
        foreign=foreign,
        short_device=short_device,
        sub=sub,
        profile=profile,
    )
    await load(pool, w)
    temp, label, is_open, where = await nums(pool, "profile_fields", [f["id"] for f in fields[:4]])
    d1, d2, d3, d4 = await nums(
        pool, "devices", [device["id"], second["id"], other_device["id"], short_device["id"]]
    )
    rows: list[tuple[Any, ...]] = []
    for i in range(MINUTES):
        at = START + timedelta(minutes=i, microseconds=250 if i % 7 == 0 else 0)
        others: dict[int, Any] = {label: STRINGS[i % len(STRINGS)]}
        if i % 3 == 0:
            others[is_open] = i % 2 == 0
        if i % 100 == 0:
            others[where] = {"latitude": 52.5 + i / 1000, "longitude": 13.4, "altitude": None}
        rows.append((d1, at, {temp: round(20 + i / 8 - (i % 5) * 1.5, 3)}, others))
        if i % 10 == 0:
            rows.append((d2, at, {temp: -float(i)}, {}))
            rows.append((d3, at, {temp: float(i)}, {}))
    # The foreign tenant and the short-retention device get readings too: never exported.
    rows.append((d4, NOW - timedelta(days=2), {}, {}))
    await record_many(pool, rows)
    return setup


async def export(
    client: AsyncTestClient | httpx.AsyncClient,
    key: str,
    device: str | None = None,
    **params: Any,
) -> httpx.Response:
    path = FLEET_EXPORT if device is None else DEVICE_EXPORT.format(device)
    return await client.get(path, params={**RANGE, **params}, headers=bearer(key))


async def raw_history(client: AsyncTestClient, key: str, device: str, field: str) -> list[Any]:
    """Every raw reading of a field, oldest first, paged back 500 at a time."""
    points: list[Any] = []
    end = RANGE["to"]
    while True:
        response = await client.get(
            HISTORY.format(device),
            params={"field": field, "from": RANGE["from"], "to": end},
            headers=bearer(key),
        )
        assert response.status_code == 200, response.text
        data = response.json()["data"]
        points.extend(data["points"])
        if not data.get("truncated"):
            return [(parse(p["time"]), p["value"]) for p in reversed(points)]
        end = data["points"][-1]["time"]


def csv_rows(response: httpx.Response) -> list[list[str]]:
    assert response.status_code == 200, response.text
    text = response.content.decode()
    assert text.endswith("\r\n")
    return list(csv.reader(io.StringIO(text, newline="")))


def csv_value(cell: str, data_type: str) -> Any:
    """A CSV cell read back: numbers are bare numbers, strings may carry the ' guard."""
    if cell == "" and data_type != "string":
        return None
    if data_type == "number":
        return float(cell)
    if data_type == "boolean":
        return {"true": True, "false": False}[cell]
    if data_type == "location":
        return json.loads(cell)
    return cell[1:] if cell[:1] == "'" and cell[1:2] in ("=", "+", "-", "@", "\t") else cell


TYPES = {"temperature": "number", "label": "string", "open": "boolean", "where": "location"}


# Equal to raw history, reading by reading ------------------------------------------------


@pytest.mark.parametrize("fmt", ["csv", "ndjson", "parquet"])
@pytest.mark.parametrize("layout", ["wide", "long"])
async def test_export_equals_raw_history(
    client: AsyncTestClient, setup: Setup, fmt: str, layout: str
) -> None:
    response = await export(client, setup.sub_key, setup.device["id"], format=fmt, layout=layout)
    assert response.status_code == 200, response.text
    got: dict[str, list[tuple[datetime, Any]]] = {f: [] for f in TYPES}
    times: list[datetime] = []
    if fmt == "parquet":
        table = pq.read_table(io.BytesIO(response.content))
        records = table.to_pylist()
        for record in records:
            times.append(record["time"])
            if layout == "long":
                value = record["value"] if record["value"] is not None else record["valueText"]
                if record["field"] == "open":
                    value = {"true": True, "false": False}[value]
                elif record["field"] == "where":
                    value = json.loads(value)
                got[record["field"]].append((record["time"], value))
            else:
                for name in TYPES:
                    value = record[name]
                    if value is not None:
                        got[name].append(
                            (record["time"], json.loads(value) if name == "where" else value)
                        )
    elif fmt == "ndjson":
        lines = response.content.decode().split("\n")
        assert lines[-1] == ""
        for line in lines[:-1]:
            record = json.loads(line)
            at = parse(record["time"])
            times.append(at)
            if layout == "long":
                got[record["field"]].append((at, record["value"]))
            else:
                assert list(record) == ["time", *TYPES]
                for name in TYPES:
                    if record[name] is not None:
                        got[name].append((at, record[name]))
    else:
        rows = csv_rows(response)
        head, body = rows[0], rows[1:]
        for row in body:
            at = parse(row[0])
            times.append(at)
            if layout == "long":
                assert head == ["time", "field", "value"]
                got[row[1]].append((at, csv_value(row[2], TYPES[row[1]])))
            else:
                assert head == ["time", *TYPES]
                for name, cell in zip(head[1:], row[1:], strict=True):
                    # Python's csv reader reads "" (an empty string) like an absent cell;
                    # every reading time of this device has a label.
                    if cell != "" or name == "label":
                        got[name].append((at, csv_value(cell, TYPES[name])))
    assert times == sorted(times), "oldest first"
    if layout == "wide":
        assert len(times) == MINUTES  # one row per reading time
    for name in TYPES:
        want = await raw_history(client, setup.sub_key, setup.device["id"], name)
        assert len(want) > 10
        assert got[name] == want, name
    assert len(got["temperature"]) == MINUTES > 500


async def test_default_fields_skip_static_and_fields_pick_columns_in_order(
    client: AsyncTestClient, setup: Setup
) -> None:
    rows = csv_rows(await export(client, setup.sub_key, setup.device["id"]))
    assert rows[0] == ["time", "temperature", "label", "open", "where"]  # no static field
    rows = csv_rows(
        await export(
            client, setup.sub_key, setup.device["id"], fields="open,signal_quality,temperature"
        )
    )
    assert rows[0] == ["time", "open", "signal_quality", "temperature"]
    assert rows[1][1:] == ["true", "", "20"]  # no signal quality without uplinks


async def test_static_fields_only_give_a_header(client: AsyncTestClient, setup: Setup) -> None:
    device = setup.device["id"]
    assert csv_rows(await export(client, setup.sub_key, device, fields="installed")) == [
        ["time", "installed"]
    ]
    ndjson = await export(client, setup.sub_key, device, fields="installed", format="ndjson")
    assert ndjson.status_code == 200 and ndjson.content == b""
    parquet = await export(client, setup.sub_key, device, fields="installed", format="parquet")
    table = pq.read_table(io.BytesIO(parquet.content))
    assert table.num_rows == 0 and table.schema.names == ["time", "installed"]


# Formats -----------------------------------------------------------------------------------


async def test_csv_neutralises_formulas_and_writes_numbers_as_numbers(
    client: AsyncTestClient, setup: Setup
) -> None:
    response = await export(client, setup.sub_key, setup.device["id"], fields="temperature,label")
    rows = csv_rows(response)
    labels = [row[2] for row in rows[1 : 1 + len(STRINGS)]]
    assert labels == [
        "'=SUM(A1)",
        "'+1",
        "'-x",
        "'@cmd",
        "'\tTab",
        "plain",
        'say "hi", then\nleave',
        "",
    ]
    # The empty string is written "" (present, empty); an absent cell is bare.
    assert b',""\r\n' in response.content
    negatives = csv_rows(
        await export(client, setup.sub_key, setup.second["id"], fields="temperature")
    )
    assert [row[1] for row in negatives[1:4]] == ["-0", "-10", "-20"]  # no ' on numbers
    assert response.headers["content-type"].startswith("text/csv")


async def test_parquet_has_typed_columns(client: AsyncTestClient, setup: Setup) -> None:
    response = await export(client, setup.sub_key, setup.device["id"], format="parquet", tz="UTC")
    assert response.status_code == 200
    parquet = pq.ParquetFile(io.BytesIO(response.content))
    schema = parquet.schema_arrow
    assert schema.field("time").type == pa.timestamp("us", tz="UTC")
    assert schema.field("localTime").type == pa.string()
    assert schema.field("temperature").type == pa.float64()
    assert schema.field("label").type == pa.string()
    assert schema.field("open").type == pa.bool_()
    assert parquet.metadata.num_rows == MINUTES
    long = pq.read_table(
        io.BytesIO(
            (
                await export(
                    client, setup.sub_key, setup.device["id"], format="parquet", layout="long"
                )
            ).content
        )
    )
    assert long.schema.names == ["time", "field", "value", "valueText"]
    assert long.schema.field("value").type == pa.float64()


async def test_headers_attachment_and_one_request(client: AsyncTestClient, setup: Setup) -> None:
    for fmt, media in [
        ("csv", "text/csv"),
        ("ndjson", "application/x-ndjson"),
        ("parquet", "application/vnd.apache.parquet"),
    ]:
        response = await export(client, setup.sub_key, setup.device["id"], format=fmt)
        assert response.headers["content-type"].startswith(media)
        disposition = response.headers["content-disposition"]
        assert disposition.startswith("attachment; filename=")
        assert disposition.endswith(f'.{fmt}"')
        assert setup.device["devEui"] in disposition
    first = await export(client, setup.sub_key, setup.device["id"])
    second = await export(client, setup.sub_key, setup.device["id"])
    remaining = [int(r.headers["x-ratelimit-remaining"]) for r in (first, second)]
    assert remaining[0] - remaining[1] == 1  # a 1,500-row export counts as one request


async def test_tz_adds_local_time_with_the_offset_of_the_moment(
    client: AsyncTestClient, pool: asyncpg.Pool, setup: Setup
) -> None:
    rows = csv_rows(await export(client, setup.sub_key, setup.device["id"], tz="Asia/Kathmandu"))
    assert rows[0][:2] == ["time", "localTime"]
    for row in rows[1:50]:
        at, local = parse(row[0]), datetime.fromisoformat(row[1])
        assert local == at and local.utcoffset() == timedelta(hours=5, minutes=45)
    # Across a DST change: Berlin's clocks went back on 2026-10-25 at 01:00 UTC.
    device, key, num, temp = await lone_device(pool)
    changes = [datetime(2026, 10, 25, 0, 30, tzinfo=UTC), datetime(2026, 10, 25, 1, 30, tzinfo=UTC)]
    await record_many(pool, [(num, at, {temp: 1.0}, {}) for at in changes])
    response = await client.get(
        DEVICE_EXPORT.format(device["id"]),
        params={
            "from": "2026-10-24T00:00:00Z",
            "to": "2026-10-26T00:00:00Z",
            "tz": "Europe/Berlin",
            "format": "ndjson",
        },
        headers=bearer(key),
    )
    lines = [json.loads(line) for line in response.content.decode().splitlines()]
    assert [line["localTime"] for line in lines] == [
        "2026-10-25T02:30:00+02:00",
        "2026-10-25T02:30:00+01:00",
    ]
    assert [line["time"] for line in lines] == ["2026-10-25T00:30:00Z", "2026-10-25T01:30:00Z"]


# Fleet ---------------------------------------------------------------------------------------


async def test_fleet_rows_by_device_id_then_time_with_device_columns(
    client: AsyncTestClient, setup: Setup
) -> None:
    rows = csv_rows(await export(client, setup.partner_key, fields="temperature"))
    assert rows[0] == ["time", "deviceId", "devEui", "temperature"]
    body = rows[1:]
    ids = sorted([setup.device["id"], setup.second["id"], setup.other_device["id"]])
    assert [row[1] for row in body] == sorted(row[1] for row in body)
    assert {row[1] for row in body} == set(ids)  # no inventory, archived or foreign device
    eui = {
        setup.device["id"]: setup.device["devEui"],
        setup.second["id"]: setup.second["devEui"],
        setup.other_device["id"]: setup.other_device["devEui"],
    }
    assert all(row[2] == eui[row[1]] for row in body)
    for device_id in ids:
        times = [parse(row[0]) for row in body if row[1] == device_id]
        assert times == sorted(times)
    counts = {i: sum(1 for row in body if row[1] == i) for i in ids}
    assert counts == {
        setup.device["id"]: MINUTES,
        setup.second["id"]: MINUTES // 10,
        setup.other_device["id"]: MINUTES // 10,
    }


async def test_fleet_tenancy_and_filters(client: AsyncTestClient, setup: Setup) -> None:
    def devices(response: httpx.Response) -> set[str]:
        return {
            line["deviceId"] for line in map(json.loads, response.content.decode().splitlines())
        }

    async def temperatures_of(key: str, **filters: Any) -> set[str]:
        """The devices of a temperature export in NDJSON with that key and those filters."""
        return devices(await export(client, key, fields="temperature", format="ndjson", **filters))

    sub = await temperatures_of(setup.sub_key)
    assert sub == {setup.device["id"], setup.second["id"]}
    other = await temperatures_of(setup.other_sub_key)
    assert other == {setup.other_device["id"]}
    foreign = await export(client, setup.foreign_key, format="ndjson")
    assert foreign.status_code == 200 and foreign.content == b""
    search = setup.second["devEui"][2:12]
    filtered = await temperatures_of(setup.partner_key, subAccountId=setup.sub["id"], search=search)
    assert filtered == {setup.second["id"]}
    by_profile = await temperatures_of(setup.partner_key, deviceProfileId=setup.profile["id"])
    assert by_profile == {setup.device["id"], setup.second["id"], setup.other_device["id"]}
    bad = await export(client, setup.partner_key, subAccountId="nope")
    assert_error(bad, 400, "invalid_parameter", "subAccountId")
    networks_off = await export(client, setup.partner_key, networkId="none")
    assert_error(networks_off, 403, "networks_disabled")


# Tenancy, scope, retention ---------------------------------------------------------------------


async def test_device_route_tenancy(client: AsyncTestClient, setup: Setup) -> None:
    for key, device in [
        (setup.other_sub_key, setup.device),  # another sub-account's device
        (setup.foreign_key, setup.device),  # another partner's device
        (setup.partner_key, setup.foreign),
        (setup.partner_key, setup.inventory),
        (setup.partner_key, setup.archived),
        (setup.sub_key, {"id": "0000000000000000"}),
    ]:
        assert_error(await export(client, key, device["id"]), 404, "not_found")
    by_eui = await export(client, setup.partner_key, setup.device["devEui"].upper(), fields="open")
    assert len(csv_rows(by_eui)) == 1 + MINUTES // 3


async def test_scope(client: AsyncTestClient, setup: Setup) -> None:
    assert_error(
        await export(client, setup.no_scope_key, setup.device["id"]), 403, "insufficient_scope"
    )
    assert_error(await export(client, setup.no_scope_key), 403, "insufficient_scope")
    response = await client.get(FLEET_EXPORT, params=RANGE)
    assert_error(response, 401, "unauthorized")


async def test_retention_clamps_and_refuses(client: AsyncTestClient, setup: Setup) -> None:
    device = setup.short_device["id"]
    old = {"from": iso(NOW - timedelta(days=10)), "to": iso(NOW - timedelta(days=3))}
    assert_error(await export(client, setup.short_key, device, **old), 403, "outside_retention")
    assert_error(await export(client, setup.short_key, **old), 403, "outside_retention")
    # The reading two days back is before the 1-day cutoff: a clamped range leaves it out.
    clamped = {"from": iso(NOW - timedelta(days=10)), "to": iso(NOW + timedelta(hours=1))}
    rows = csv_rows(
        await export(client, setup.short_key, device, fields="signal_quality", **clamped)
    )
    assert rows == [["time", "signal_quality"]]
    disposition = (await export(client, setup.short_key, device, **clamped)).headers[
        "content-disposition"
    ]
    cutoff_day = (NOW - timedelta(days=1)).strftime("%Y%m%d")
    assert f"telemetry-{setup.short_device['devEui']}-{cutoff_day}T" in disposition


# Bad input and bounds -------------------------------------------------------------------------


async def test_bad_parameters(client: AsyncTestClient, setup: Setup) -> None:
    device = setup.device["id"]
    cases = [
        ({"format": "xlsx"}, "format"),
        ({"layout": "tall"}, "layout"),
        ({"tz": "Mars/Olympus"}, "tz"),
        ({"tz": "europe/berlin"}, "tz"),
        ({"fields": "temperature,,label"}, "fields"),
        ({"fields": "temperature,temperature"}, "fields"),
        ({"fields": "nope"}, "fields"),
        ({"from": "yesterday"}, "from"),
        ({"from": RANGE["to"], "to": RANGE["from"]}, "from"),
    ]
    for params, name in cases:
        response = await export(client, setup.sub_key, device, **params)
        assert_error(response, 400, "invalid_parameter", name)
    missing = await client.get(
        DEVICE_EXPORT.format(device), params={"to": RANGE["to"]}, headers=bearer(setup.sub_key)
    )
    assert_error(missing, 400, "invalid_parameter", "from")


async def test_bounds_name_the_bound(settings: Settings, migrated: str, setup: Setup) -> None:
    small = msgspec_replace(settings, export_max_devices=2, export_max_readings=MINUTES * 2)
    async with AsyncTestClient(app=create_app(small)) as bounded:
        too_many = await export(bounded, setup.partner_key, fields="temperature")
        assert_error(too_many, 400, "invalid_parameter", "more than 2 devices")
        sub = await export(bounded, setup.sub_key, fields="temperature")  # 2 devices: fine
        assert len(csv_rows(sub)) == 1 + MINUTES + MINUTES // 10
        # temperature + label + open of one device: 1,500 + 1,500 + 500 readings > 3,000.
        readings = await export(
            bounded, setup.sub_key, setup.device["id"], fields="temperature,label,open"
        )
        assert_error(readings, 400, "invalid_parameter", "more than 3,000")
        exact = await export(bounded, setup.sub_key, setup.device["id"], fields="temperature,label")
        assert exact.status_code == 200  # exactly 3,000


async def test_busy_server_answers_503_before_streaming(
    settings: Settings, migrated: str, setup: Setup
) -> None:
    busy = msgspec_replace(settings, export_concurrency=0)
    async with AsyncTestClient(app=create_app(busy)) as client:
        response = await export(client, setup.sub_key, setup.device["id"])
        assert_error(response, 503, "unavailable", "exports")
        assert response.headers["retry-after"] == "5"


def msgspec_replace(settings: Settings, **changes: Any) -> Settings:
    import msgspec

    return msgspec.structs.replace(settings, **changes)


async def test_wide_rows_with_sparse_fields_and_two_readings_of_a_field_at_one_time(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    """A wide row per reading time whatever fields were read then (a field without
    readings an empty cell), across packed weeks; a time with two readings of one field
    gives two rows, the second with that field alone."""
    w = World()
    partner = w.partner(plan={"retentionDays": 3650})
    fields = w.fields(temperature="number", label="string", humidity="number", open="boolean")
    profile = w.profile(partner, fields=fields)
    sub = w.sub_account(partner)
    devices = sorted((w.device(sub, profile) for _ in range(3)), key=lambda d: d["id"])
    key = w.key(partner, scopes=["telemetry:read"])
    await load(pool, w)
    temp, label, humidity, is_open = await nums(pool, "profile_fields", [f["id"] for f in fields])
    device_nums = await nums(pool, "devices", [d["id"] for d in devices])
    start = NOW.replace(hour=0, minute=0) - timedelta(days=70)
    # Device 0: every field at every time; device 1: never humidity; device 2: humidity
    # every other time, open every third.
    rows: list[tuple[Any, ...]] = []
    expected: list[list[str]] = []
    for order, (device, num) in enumerate(zip(devices, device_nums, strict=True)):
        for i in range(70 * 4):
            at = start + timedelta(hours=6 * i)
            numbers = {temp: i * 0.5 - 20.25}
            others: dict[int, Any] = {label: f"l{i % 13}"}
            if order == 0 or (order == 2 and i % 2 == 0):
                numbers[humidity] = 40 + i % 9 + 0.125
            if order == 0 or (order == 2 and i % 3 == 0):
                others[is_open] = i % 2 == 0
            rows.append((num, at, numbers, others))
            cells = [f"{numbers[temp]:g}", f"l{i % 13}", f"{numbers.get(humidity, '')}"]
            cells.append({True: "true", False: "false", None: ""}[others.get(is_open)])
            expected.append([at.strftime("%Y-%m-%dT%H:%M:%SZ"), device["id"], *cells])
    await record_many(pool, rows)
    twice = start + timedelta(hours=6 * 5)
    async with pool.acquire() as connection, connection.transaction():
        await connection.execute("SET LOCAL statement_timeout = 0")
        await connection.execute("SELECT pack_closed_chunks(interval '0')")
        # A late second reading of device 2's temperature at a packed time.
        await connection.execute(
            "INSERT INTO readings_num (device_num, field_num, time, value)"
            " VALUES ($1, $2, $3, 99.5)",
            device_nums[2],
            temp,
            twice,
        )
    window = {"from": iso(start - timedelta(hours=1)), "to": iso(NOW)}
    response = await export(client, key, **window)
    assert response.status_code == 200, response.text
    got = csv_rows(response)
    assert got[0] == ["time", "deviceId", "devEui", "temperature", "label", "humidity", "open"]
    body = [[r[0], r[1], *r[3:]] for r in got[1:]]
    stamp = twice.strftime("%Y-%m-%dT%H:%M:%SZ")
    [once] = [e for e in expected if e[:2] == [stamp, devices[2]["id"]]]
    both = [r for r in body if r[:2] == [stamp, devices[2]["id"]]]
    # Which of the two readings shares the row with the other fields is not defined.
    assert sorted(r[2] for r in both) == sorted([once[2], "99.5"])
    assert sorted(r[3:] for r in both) == sorted([once[3:], ["", "", ""]])
    assert [r for r in body if r not in both] == [e for e in expected if e != once]
    # NDJSON and Parquet rows agree with the CSV's (but for the order of the two rows).
    lines = (await export(client, key, format="ndjson", **window)).content.decode().split("\n")
    records = [json.loads(line) for line in lines[:-1]]
    table = pq.read_table(
        io.BytesIO((await export(client, key, format="parquet", **window)).content)
    )
    parquet = table.to_pylist()
    assert len(records) == len(parquet) == len(body)
    for index, row in enumerate(body):
        if row in both:
            continue
        record = records[index]
        assert record["humidity"] == (None if row[4] == "" else float(row[4]))
        assert record["open"] == {"": None, "true": True, "false": False}[row[5]]
        assert parquet[index]["open"] == record["open"]
        assert parquet[index]["temperature"] == record["temperature"] == float(row[2])


# Streaming and failure ------------------------------------------------------------------------


@pytest.fixture(scope="module")
async def big(pool: asyncpg.Pool) -> tuple[str, dict[str, Any]]:
    """One device with 300,000 readings (about 16 MB of CSV), far more than socket buffers."""
    device, key, num, field = await lone_device(
        pool, tier={"perMinute": 100_000, "perDay": 10_000_000}
    )
    start = NOW - timedelta(days=30)
    async with pool.acquire() as connection, connection.transaction():
        await connection.execute(
            "INSERT INTO readings_num (device_num, field_num, time, value)"
            " SELECT $1, $2, $3::timestamptz + i * interval '5 seconds', i * 0.25"
            "   FROM generate_series(0, 299999) i",
            num,
            field,
            start,
        )
        # Packing 300,000 readings outlasts the pool's statement timeout on a busy box.
        await connection.execute("SET LOCAL statement_timeout = 0")
        await connection.execute("SELECT pack_closed_chunks(interval '0')")
    return key, device


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
async def test_mid_stream_failure_aborts_the_connection(
    live_server: LiveServer, pool: asyncpg.Pool, big: tuple[str, dict[str, Any]], fmt: str
) -> None:
    key, device = big
    params = {"from": iso(NOW - timedelta(days=31)), "to": iso(NOW), "format": fmt}
    path = DEVICE_EXPORT.format(device["id"])
    async with (
        live_server.client() as http,
        http.stream("GET", path, params=params, headers=bearer(key)) as response,
    ):
        assert response.status_code == 200
        chunks = response.aiter_raw()
        received = 0
        while received < 256 * 1024:  # rows, not only the header
            received += len(await anext(chunks))
        # The first bytes left while the export's reads still run (the query of the SQL
        # path, or the transaction of app/export/wide.py's): its backend is there to be killed.
        killed = 0
        for _ in range(50):
            killed = await pool.fetchval(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                "   AND state <> 'idle' AND query LIKE '%$2::integer[], $3::uuid[]%'"
            )
            if killed:
                break
            await asyncio.sleep(0.1)
        assert killed == 1
        with pytest.raises(httpx.RemoteProtocolError):
            async for chunk in chunks:
                received += len(chunk)
        assert received < 16_000_000


async def test_whole_big_export_streams(
    live_server: LiveServer, big: tuple[str, dict[str, Any]]
) -> None:
    key, device = big
    params = {"from": iso(NOW - timedelta(days=31)), "to": iso(NOW), "format": "ndjson"}
    lines = 0
    path = DEVICE_EXPORT.format(device["id"])
    async with (
        live_server.client() as http,
        http.stream("GET", path, params=params, headers=bearer(key)) as response,
    ):
        async for line in response.aiter_lines():
            lines += 1
            if lines == 299_999:
                assert json.loads(line)["temperature"] == 299_998 * 0.25
    assert lines == 300_000


async def test_an_export_is_not_cut_by_the_statement_bound_of_other_routes(
    migrated: str, big: tuple[str, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An export's statements are bounded by its own timeouts, not by the pool's
    DB_COMMAND_TIMEOUT_S for every other statement (a stream longer than that was a 500)."""
    key, device = big
    monkeypatch.setenv("DB_COMMAND_TIMEOUT_S", "0.25")
    server = start_server(migrated)
    try:
        path = DEVICE_EXPORT.format(device["id"])
        async with server.client() as http:
            for format in ("ndjson", "parquet"):
                params = {"from": iso(NOW - timedelta(days=31)), "to": iso(NOW), "format": format}
                response = await http.get(path, params=params, headers=bearer(key))
                assert response.status_code == 200, response.text
                if format == "ndjson":
                    assert response.content.count(b"\n") == 300_000
                else:
                    parquet = pq.ParquetFile(io.BytesIO(response.content))
                    assert parquet.metadata.num_rows == 300_000
    finally:
        server.process.terminate()
        server.process.wait(timeout=15)


async def test_parquet_is_written_row_group_by_row_group(
    live_server: LiveServer, big: tuple[str, dict[str, Any]]
) -> None:
    key, device = big
    params = {"from": iso(NOW - timedelta(days=31)), "to": iso(NOW), "format": "parquet"}
    async with live_server.client() as http:
        response = await http.get(
            DEVICE_EXPORT.format(device["id"]), params=params, headers=bearer(key)
        )
    assert response.status_code == 200
    parquet = pq.ParquetFile(io.BytesIO(response.content))
    assert parquet.metadata.num_rows == 300_000
    assert parquet.metadata.num_row_groups == 5  # 65,536 rows per fetch from the cursor
    last = parquet.read_row_group(4).to_pylist()[-1]
    assert last["temperature"] == 299_999 * 0.25
