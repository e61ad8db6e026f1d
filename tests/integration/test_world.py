"""World files: a rich world lands row by row; every refusal names its path and writes
nothing; JSON and YAML; relative times; ids are never loaded twice."""

from __future__ import annotations

import copy
import hashlib
import json
import re
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import pytest
import yaml
from litestar.testing import AsyncTestClient

from app.world.errors import WorldError
from app.world.loader import load_world
from testkit.factories import World, load

NOW = datetime(2026, 3, 31, 12, 0, tzinfo=UTC)
TABLES = (
    "partners",
    "sub_accounts",
    "api_keys",
    "api_key_usage",
    "audit_log",
    "integrations",
    "users",
    "sites",
    "memberships",
    "networks",
    "device_profiles",
    "profile_fields",
    "downlink_templates",
    "alert_rules",
    "gateways",
    "devices",
    "multicast_groups",
    "multicast_members",
)


async def table_counts(pool: asyncpg.Pool) -> dict[str, int]:
    async with pool.acquire() as connection:
        return {t: await connection.fetchval(f"SELECT count(*) FROM {t}") for t in TABLES}


def rich_world() -> tuple[World, dict[str, Any]]:
    w = World()
    p = w.partner(
        plan={"apiWrite": True, "retentionDays": 90},
        tier={"perMinute": 300, "perDay": 5000},
        features={"networks": True, "multiSite": True},
    )
    sa = w.sub_account(p, tier={"perMinute": 60}, features={"networks": False}, memberLimit=5)
    fields = [
        w.field("temperature", unit="°C"),
        w.field("battery", role="battery_pct", unit="%"),
        w.field("door_raw"),
        w.formula("temp_f", "temperature * 9 / 5 + 32"),
        w.mapping("door", "door_raw", {"0": "closed", "1": "open"}, "unknown"),
        w.field("installed", dataType="date", kind="static", default="2026-01-01"),
    ]
    prof = w.profile(p, fields=fields, retainLastValue=True)
    w.downlink_template(prof, key="set_interval")
    w.alert_rule(prof, "temperature", ">", 30)
    campus = w.site(sa)
    building = w.site(sa, parent=campus)
    floor = w.site(sa, parent=building)
    net = w.network(sa, site=campus)
    dev = w.device(
        sa,
        prof,
        network=net,
        site=floor,
        devEui="70:B3:D5:7E:D0:00:00:01",
        location={"latitude": 52.1, "longitude": 4.3},
        static={"installed": "2026-03-01"},
        calibration={"temperature": {"offset": -0.5}},
    )
    other = w.device(sa, prof, status="archived")
    spare = w.device(p, prof)
    gw = w.gateway(sa, network=net, site=campus, gatewayEui="0016C001FF10A235")
    spare_gw = w.gateway(p)
    ana = w.user(p, email="  Ana@Example.com ", password="correct horse battery")
    bob = w.user(p, password=None, status="pending_invite")
    w.member(sa, ana, role="subaccount_admin")
    w.member(sa, bob, site=building)
    grp = w.multicast_group(sa, [dev, other])
    partner_key = w.key(p, scopes=["devices:read", "telemetry:read"])
    sub_key = w.key(sa, expiresAt="now+P30D")
    token = w.integration(p)
    refs = {
        "p": p,
        "sa": sa,
        "prof": prof,
        "sites": (campus, building, floor),
        "net": net,
        "dev": dev,
        "other": other,
        "spare": spare,
        "gw": gw,
        "spare_gw": spare_gw,
        "ana": ana,
        "bob": bob,
        "grp": grp,
        "partner_key": partner_key,
        "sub_key": sub_key,
        "token": token,
    }
    return w, refs


async def test_rich_world_lands_row_by_row(pool: asyncpg.Pool, client: AsyncTestClient) -> None:
    w, r = rich_world()
    summary = await load(pool, w, now=NOW)
    assert str(summary).startswith("loaded 1 partner, 1 sub-account, 1 profile, 3 devices,")
    p, sa = r["p"], r["sa"]
    async with pool.acquire() as c:
        partner = await c.fetchrow("SELECT * FROM partners WHERE id = $1", uuid.UUID(p["id"]))
        assert (partner["api_write"], partner["retention_days"]) == (True, 90)
        assert (partner["tier_per_minute"], partner["tier_per_day"]) == (300, 5000)
        assert (partner["networks_enabled"], partner["multi_site_enabled"]) == (True, True)

        sub = await c.fetchrow("SELECT * FROM sub_accounts WHERE id = $1", uuid.UUID(sa["id"]))
        assert (sub["tier_per_minute"], sub["tier_per_day"]) == (60, None)
        assert (sub["networks_enabled"], sub["multi_site_enabled"]) == (False, None)
        assert (sub["member_limit"], sub["status"]) == (5, "active")

        key = await c.fetchrow("SELECT * FROM api_keys WHERE id = $1", uuid.UUID(r["sub_key"].id))
        assert bytes(key["key_hash"]) == hashlib.sha256(r["sub_key"].encode()).digest()
        assert key["sub_account_id"] == uuid.UUID(sa["id"])
        assert key["expires_at"] == NOW + timedelta(days=30)
        assert key["revoked_at"] is None
        assert (
            await c.fetchval("SELECT count(*) FROM api_key_usage WHERE key_id = $1", key["id"]) == 1
        )
        audit = await c.fetch(
            "SELECT action, detail FROM audit_log WHERE partner_id = $1 ORDER BY id",
            uuid.UUID(p["id"]),
        )
        assert [a["action"] for a in audit] == ["key.created", "key.created"]
        assert r["sub_key"] not in json.dumps([a["detail"] for a in audit])

        token_hash = await c.fetchval(
            "SELECT token_hash FROM integrations WHERE id = $1", uuid.UUID(r["token"].id)
        )
        assert bytes(token_hash) == hashlib.sha256(r["token"].encode()).digest()

        ana = await c.fetchrow("SELECT * FROM users WHERE id = $1", uuid.UUID(r["ana"]["id"]))
        assert ana["email"] == "  Ana@Example.com "
        assert ana["email_key"] == "ana@example.com"
        assert ana["password_hash"].startswith("$argon2id$")
        bob = await c.fetchrow("SELECT * FROM users WHERE id = $1", uuid.UUID(r["bob"]["id"]))
        assert bob["password_hash"] is None
        assert bob["status"] == "pending_invite"

        depths = [
            await c.fetchval("SELECT depth FROM sites WHERE id = $1", uuid.UUID(s["id"]))
            for s in r["sites"]
        ]
        assert depths == [1, 2, 3]

        fields = await c.fetch(
            "SELECT * FROM profile_fields WHERE profile_id = $1 ORDER BY position",
            uuid.UUID(r["prof"]["id"]),
        )
        assert [f["identifier"] for f in fields] == [
            "temperature", "battery", "door_raw", "temp_f", "door", "installed",
        ]  # fmt: skip
        assert [f["position"] for f in fields] == [0, 1, 2, 3, 4, 5]
        assert fields[1]["role"] == "battery_pct"
        assert fields[3]["formula"] == "temperature * 9 / 5 + 32"
        assert (fields[4]["source"], fields[4]["mapping"]) == (
            "door_raw",
            {"0": "closed", "1": "open"},
        )
        assert fields[4]["default_value"] == "unknown"
        assert fields[5]["default_value"] == "2026-01-01"
        assert await c.fetchval(
            "SELECT retain_last_value FROM device_profiles WHERE id = $1",
            uuid.UUID(r["prof"]["id"]),
        )
        template = await c.fetchrow(
            "SELECT * FROM downlink_templates WHERE profile_id = $1", uuid.UUID(r["prof"]["id"])
        )
        assert template["layout"] == [{"field": "minutes", "type": "uint16be"}]
        assert template["sample_data"] == {"minutes": 15}
        rule = await c.fetchrow(
            "SELECT field, op, value, level FROM alert_rules WHERE profile_id = $1",
            uuid.UUID(r["prof"]["id"]),
        )
        assert dict(rule) == {"field": "temperature", "op": ">", "value": 30, "level": "warning"}

        dev = await c.fetchrow("SELECT * FROM devices WHERE id = $1", uuid.UUID(r["dev"]["id"]))
        assert dev["dev_eui"] == "70b3d57ed0000001"
        assert (dev["status"], dev["sub_account_id"]) == ("assigned", uuid.UUID(sa["id"]))
        assert dev["network_id"] == uuid.UUID(r["net"]["id"])
        assert dev["site_id"] == uuid.UUID(r["sites"][2]["id"])
        assert dev["manual_location"] == {"latitude": 52.1, "longitude": 4.3, "altitude": None}
        assert dev["manual_location_at"] == NOW
        assert dev["static_values"] == {"installed": "2026-03-01"}
        assert dev["calibration"] == {"temperature": {"scale": 1.0, "offset": -0.5}}
        assert (dev["offline_threshold_minutes"], dev["downlink_rate_per_hour"]) == (30, 30)
        archived = await c.fetchrow(
            "SELECT status, sub_account_id FROM devices WHERE id = $1", uuid.UUID(r["other"]["id"])
        )
        assert tuple(archived) == ("archived", uuid.UUID(sa["id"]))
        spare = await c.fetchrow(
            "SELECT status, sub_account_id FROM devices WHERE id = $1", uuid.UUID(r["spare"]["id"])
        )
        assert tuple(spare) == ("inventory", None)

        gw = await c.fetchrow("SELECT * FROM gateways WHERE id = $1", uuid.UUID(r["gw"]["id"]))
        assert gw["gateway_eui"] == "0016c001ff10a235"
        spare_gw = await c.fetchrow(
            "SELECT status, sub_account_id FROM gateways WHERE id = $1",
            uuid.UUID(r["spare_gw"]["id"]),
        )
        assert tuple(spare_gw) == ("inventory", None)

        members = await c.fetch(
            "SELECT user_id, role, site_id FROM memberships WHERE sub_account_id = $1",
            uuid.UUID(sa["id"]),
        )
        assert {(m["user_id"], m["role"], m["site_id"]) for m in members} == {
            (uuid.UUID(r["ana"]["id"]), "subaccount_admin", None),
            (uuid.UUID(r["bob"]["id"]), "subaccount_viewer", uuid.UUID(r["sites"][1]["id"])),
        }
        group_members = await c.fetchval(
            "SELECT count(*) FROM multicast_members WHERE group_id = $1",
            uuid.UUID(r["grp"]["id"]),
        )
        assert group_members == 2

    response = await client.get(
        "/api/v1/me", headers={"Authorization": f"Bearer {r['partner_key']}"}
    )
    assert response.status_code == 200, response.text


# A case name, how the valid world is made wrong, and the start of the message it gets.
Refusal = tuple[str, Callable[[dict[str, Any]], None], str]


def valid_world() -> dict[str, Any]:
    w, _ = rich_world()
    return w.to_dict()


def sub(world: dict[str, Any]) -> dict[str, Any]:
    return world["partners"][0]["subAccounts"][0]


def set_at(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """Sets `value` at `path` as the loader names a place (`partners[0].keys[0].secret`)."""
    steps: list[Any] = [
        int(index) if index else name for name, index in re.findall(r"(\w+)|\[(\d+)\]", path)
    ]

    def mutate(world: dict[str, Any]) -> None:
        target: Any = world
        for step in steps[:-1]:
            target = target[step]
        target[steps[-1]] = value

    return mutate


def wrong(name: str, path: str, value: Any, reason: str) -> Refusal:
    """A refusal of `value` at `path`, whose message names that path and `reason`."""
    return (name, set_at(path, value), f"{path}: {reason}")


def deeper_site(world: dict[str, Any]) -> None:
    sites = sub(world)["sites"]
    sites.append({"id": str(uuid.uuid4()), "name": "Room", "parentSiteId": sites[2]["id"]})


def duplicate_device_id(world: dict[str, Any]) -> None:
    sub(world)["devices"][1]["id"] = sub(world)["devices"][0]["id"]


def foreign_network(world: dict[str, Any]) -> None:
    partner = world["partners"][0]
    other: dict[str, Any] = {"id": str(uuid.uuid4()), "name": "Other", "networks": [
        {"id": str(uuid.uuid4()), "name": "Elsewhere"}
    ]}  # fmt: skip
    partner["subAccounts"].append(other)
    sub(world)["devices"][0]["networkId"] = other["networks"][0]["id"]


def inventory_with_site(world: dict[str, Any]) -> None:
    inventory = world["partners"][0]["inventory"]
    inventory["devices"][0]["siteId"] = sub(world)["sites"][0]["id"]


def foreign_profile(world: dict[str, Any]) -> None:
    sub(world)["devices"][0]["deviceProfileId"] = str(uuid.uuid4())


SA = "partners[0].subAccounts[0]"
PROFILE = "partners[0].profiles[0]"
REFUSALS: list[Refusal] = [
    wrong("bad DevEUI", f"{SA}.devices[1].devEui", "70b3d57ed00000zz", "not 16 hex characters"),
    wrong("bad GatewayEUI", f"{SA}.gateways[0].gatewayEui", "12", "not 16 hex characters"),
    wrong("wrong type", f"{SA}.memberLimit", "five", "expected `int`, got `str`"),
    (
        "missing field",
        lambda w: sub(w)["devices"][0].pop("name"),
        f"{SA}.devices[0].name: required",
    ),
    wrong("bad uuid", f"{SA}.sites[0].id", "not-a-uuid", "invalid UUID"),
    ("duplicate id", duplicate_device_id, f"{SA}.devices[1].id: duplicate id"),
    ("profile of nobody", foreign_profile, f"{SA}.devices[0].deviceProfileId: not a device"),
    ("foreign network", foreign_network, f"{SA}.devices[0].networkId: not a network of this"),
    ("site too deep", deeper_site, f"{SA}.sites[3].parentSiteId: sites nest at most 3"),
    (
        "inventory device with a site",
        inventory_with_site,
        "partners[0].inventory.devices[0].siteId: an inventory item has no site",
    ),
    wrong(
        "member of another workspace",
        f"{SA}.members[0].userId",
        str(uuid.uuid4()),
        "not a user of this partner",
    ),
    (
        "multicast device elsewhere",
        lambda w: sub(w)["multicastGroups"][0]["deviceIds"].append(str(uuid.uuid4())),
        f"{SA}.multicastGroups[0].deviceIds[2]: not a device of this sub-account"
        " or of the partner's inventory",
    ),
    wrong("weak key secret", "partners[0].keys[0].secret", "svc_live_short", "must be svc_live_"),
    (
        "unknown scope",
        set_at("partners[0].keys[0].scopes", ["devices:read", "devices:write"]),
        "partners[0].keys[0].scopes[1]: unknown scope 'devices:write'",
    ),
    wrong("bad field kind", f"{PROFILE}.fields[0].kind", "magic", "invalid enum value 'magic'"),
    wrong("bad data type", f"{PROFILE}.fields[0].dataType", "float", "invalid enum value"),
    wrong("bad measurement", f"{PROFILE}.fields[0].measurement", "rate", "invalid enum value"),
    wrong(
        "state on a number field",
        f"{PROFILE}.fields[0].measurement",
        "state",
        "a number field takes gauge or counter",
    ),
    wrong(
        "measurement on a date field",
        f"{PROFILE}.fields[5].measurement",
        "gauge",
        "a date field takes no measurement",
    ),
    (
        "formula without formula",
        lambda w: w["partners"][0]["profiles"][0]["fields"][3].pop("formula"),
        f"{PROFILE}.fields[3].formula: required for a formula field",
    ),
    (
        "mapping without map",
        lambda w: w["partners"][0]["profiles"][0]["fields"][4].pop("map"),
        f"{PROFILE}.fields[4].map: required for a mapping field",
    ),
    wrong(
        "bad layout type",
        f"{PROFILE}.downlinkTemplates[0].layout[0].type",
        "uint64",
        "invalid enum value",
    ),
    wrong("bad time", "partners[0].keys[0].expiresAt", "yesterday", "not a time"),
    wrong(
        "bad relative time", "partners[0].keys[0].expiresAt", "now-40D", "not a valid relative time"
    ),
    (
        "bad uplink time",
        set_at("uplinks", [{"device": "x", "at": "later", "values": {}}]),
        "uplinks[0].at: not a time",
    ),
    (
        "static value of a decoded field",
        set_at(f"{SA}.devices[0].static", {"temperature": 1}),
        f"{SA}.devices[0].static.temperature: not a static field",
    ),
    (
        "not an object",
        lambda w: w.update(partners={"id": "x"}),
        "partners: expected `array`, got `object`",
    ),
]


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [pytest.param(m, e, id=name) for name, m, e in REFUSALS],
)
async def test_refusal_names_the_path_and_writes_nothing(
    pool: asyncpg.Pool, mutate: Callable[[dict[str, Any]], None], expected: str
) -> None:
    world = valid_world()
    mutate(world)
    before = await table_counts(pool)
    with pytest.raises(WorldError) as raised:
        await load_world(pool, world, now=NOW)
    assert raised.value.message.startswith(expected), raised.value.message
    assert await table_counts(pool) == before


async def test_database_refusal_rolls_back_everything(pool: asyncpg.Pool) -> None:
    """An id already in the database is found after earlier tables were checked: still
    nothing of the file is written."""
    first = valid_world()
    await load_world(pool, first, now=NOW)
    second = valid_world()
    sub(second)["gateways"][0]["id"] = sub(first)["gateways"][0]["id"]
    before = await table_counts(pool)
    with pytest.raises(WorldError) as raised:
        await load_world(pool, second, now=NOW)
    assert raised.value.message.startswith(f"{SA}.gateways[0].id: a gateway with id ")
    assert raised.value.message.endswith("already exists")
    assert await table_counts(pool) == before


async def test_reloading_the_same_world_is_refused(pool: asyncpg.Pool) -> None:
    world = valid_world()
    await load_world(pool, copy.deepcopy(world), now=NOW)
    before = await table_counts(pool)
    with pytest.raises(WorldError) as raised:
        await load_world(pool, world, now=NOW)
    assert raised.value.message.startswith("partners[0].id: a partner with id ")
    assert await table_counts(pool) == before


async def test_a_key_secret_in_use_is_refused(pool: asyncpg.Pool) -> None:
    first = valid_world()
    await load_world(pool, first, now=NOW)
    second = valid_world()
    second["partners"][0]["keys"][0]["secret"] = first["partners"][0]["keys"][0]["secret"]
    with pytest.raises(WorldError) as raised:
        await load_world(pool, second, now=NOW)
    assert raised.value.message == (
        "partners[0].keys[0].secret: another key already uses this secret"
    )


async def test_yaml_and_json_text(pool: asyncpg.Pool) -> None:
    as_yaml = valid_world()
    text = yaml.safe_dump(as_yaml, allow_unicode=True)
    summary = await load_world(pool, text, now=NOW)
    assert summary.devices == 3
    as_json = valid_world()
    summary = await load_world(pool, json.dumps(as_json).encode(), now=NOW)
    assert summary.partners == 1
    async with pool.acquire() as c:
        for world in (as_yaml, as_json):
            assert (
                await c.fetchval(
                    "SELECT name FROM partners WHERE id = $1", uuid.UUID(world["partners"][0]["id"])
                )
                == world["partners"][0]["name"]
            )


async def test_yaml_keeps_dates_and_numeric_map_keys_as_text(pool: asyncpg.Pool) -> None:
    partner_id, profile_id, field_id, device_id, sub_id = (uuid.uuid4() for _ in range(5))
    text = f"""
partners:
  - id: {partner_id}
    name: Yaml Partner
    keys:
      - {{ id: {uuid.uuid4()}, name: ops, secret: svc_live_{"a" * 40}, scopes: [devices:read],
          expiresAt: 2030-01-01T00:00:00Z }}
    profiles:
      - id: {profile_id}
        name: Door
        fields:
          - {{ id: {uuid.uuid4()}, identifier: raw, dataType: number }}
          - {{ id: {field_id}, identifier: door, dataType: string, kind: mapping, source: raw,
              map: {{ 0: closed, 1: open }} }}
          - {{ id: {uuid.uuid4()}, identifier: installed, dataType: date, kind: static }}
    subAccounts:
      - id: {sub_id}
        name: Y
        devices:
          - {{ id: {device_id}, devEui: 70-B3-D5-7E-D0-00-AA-01, name: Y1,
              deviceProfileId: {profile_id}, static: {{ installed: 2026-03-01 }} }}
"""
    await load_world(pool, text, now=NOW)
    async with pool.acquire() as c:
        assert await c.fetchval("SELECT mapping FROM profile_fields WHERE id = $1", field_id) == {
            "0": "closed",
            "1": "open",
        }
        row = await c.fetchrow(
            "SELECT dev_eui, static_values FROM devices WHERE id = $1", device_id
        )
        assert row["dev_eui"] == "70b3d57ed000aa01"
        assert row["static_values"] == {"installed": "2026-03-01"}
        expires = await c.fetchval(
            "SELECT expires_at FROM api_keys WHERE partner_id = $1", partner_id
        )
        assert expires == datetime(2030, 1, 1, tzinfo=UTC)


async def test_relative_times_are_evaluated_once(pool: asyncpg.Pool) -> None:
    w = World()
    p = w.partner()
    secret = w.key(p, expiresAt="now-P40D")
    user = w.user(p, lastLoginAt="now-PT15M", lockedUntil="now+PT1H", password=None)
    await load(pool, w, now=NOW)
    async with pool.acquire() as c:
        expires = await c.fetchval(
            "SELECT expires_at FROM api_keys WHERE id = $1", uuid.UUID(secret.id)
        )
        assert expires == NOW - timedelta(days=40)
        row = await c.fetchrow(
            "SELECT last_login_at, locked_until FROM users WHERE id = $1", uuid.UUID(user["id"])
        )
        assert row["last_login_at"] == NOW - timedelta(minutes=15)
        assert row["locked_until"] == NOW + timedelta(hours=1)


async def test_zero_argument_builders_make_a_valid_world(pool: asyncpg.Pool) -> None:
    w = World()
    p, sa = w.tenancy({})
    prof = w.profile(p)
    w.device(sa, prof)
    w.device(p, prof)
    w.gateway(sa)
    w.member(sa, w.user(p))
    w.key(sa)
    w.integration(p)
    summary = await load(pool, w)
    assert (summary.devices, summary.gateways, summary.keys) == (2, 1, 1)


async def test_yaml_numbers_where_text_is_expected_are_read_as_written(
    pool: asyncpg.Pool,
) -> None:
    partner_id, profile_id, device_id, sub_id = (uuid.uuid4() for _ in range(4))
    # Unquoted, YAML reads 0016001000000001 as an octal integer and 1e3 as a float.
    text = f"""
partners:
  - id: {partner_id}
    name: 2026
    tier: {{ perMinute: 120, perDay: 5000 }}
    profiles:
      - id: {profile_id}
        name: 1e3
        fields:
          - {{ id: {uuid.uuid4()}, identifier: level, dataType: number, kind: static,
              default: 7 }}
    subAccounts:
      - id: {sub_id}
        name: 42
        devices:
          - {{ id: {device_id}, devEui: 0016001000000001, name: 0101, serialNumber: 00123,
              deviceProfileId: {profile_id}, static: {{ level: 2.50 }} }}
"""
    await load_world(pool, text, now=NOW)
    async with pool.acquire() as c:
        device = await c.fetchrow(
            "SELECT dev_eui, name, serial_number, static_values FROM devices WHERE id = $1",
            device_id,
        )
        assert tuple(device) == ("0016001000000001", "0101", "00123", {"level": 2.5})
        names = await c.fetch(
            "SELECT (SELECT name FROM partners WHERE id = $1),"
            " (SELECT name FROM device_profiles WHERE id = $2),"
            " (SELECT name FROM sub_accounts WHERE id = $3),"
            " (SELECT tier_per_minute FROM partners WHERE id = $1)",
            partner_id, profile_id, sub_id,
        )  # fmt: skip
        assert tuple(names[0]) == ("2026", "1e3", "42", 120)
