"""The operator commands through the real console script: keys, device status, features."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import asyncpg
import httpx
import yaml
from litestar.testing import AsyncTestClient

from testkit.factories import World, load
from tests.support.cli import telemetry
from tests.support.helpers import bearer


async def tenancy(pool: asyncpg.Pool) -> tuple[World, dict[str, dict]]:
    w = World()
    p = w.partner(features={"networks": True, "multiSite": True})
    sa = w.sub_account(p)
    other = w.sub_account(p)
    prof = w.profile(p)
    site = w.site(sa)
    net = w.network(sa, site=site)
    dev = w.device(sa, prof, network=net, site=site)
    spare = w.device(p, prof)
    group = w.multicast_group(sa, [dev])
    await load(pool, w)
    return w, {
        "p": p, "sa": sa, "other": other, "prof": prof, "site": site, "net": net,
        "dev": dev, "spare": spare, "group": group,
    }  # fmt: skip


async def test_key_create_prints_a_working_key_and_revoke_stops_it(
    migrated: str, pool: asyncpg.Pool, client: AsyncTestClient
) -> None:
    _, t = await tenancy(pool)
    run = await telemetry(
        migrated, "keys", "create", "--sub-account", t["sa"]["id"], "--name", "ops",
        "--scopes", "devices:read,telemetry:read",
    )  # fmt: skip
    assert run.code == 0, run.stderr
    secret = run.last_line
    assert secret.startswith("svc_live_") and len(secret) >= 9 + 32
    key_id = run.stdout.split("key id: ")[1].split()[0]

    response = await client.get("/api/v1/me", headers=bearer(secret))
    assert response.status_code == 200, response.text
    me = response.json()["data"]
    assert me["keyId"] == key_id
    assert me["keyName"] == "ops"
    assert me["boundTo"] == "sub_account"
    assert me["subAccountId"] == t["sa"]["id"]
    assert me["scopes"] == ["devices:read", "telemetry:read"]
    assert me["expiresAt"] is None

    async with pool.acquire() as c:
        actions = await c.fetch(
            "SELECT action, detail FROM audit_log WHERE detail->>'keyId' = $1 ORDER BY id", key_id
        )
        assert [a["action"] for a in actions] == ["key.created"]
        assert secret not in str(actions[0]["detail"])
        assert (
            await c.fetchval(
                "SELECT count(*) FROM api_key_usage WHERE key_id = $1", uuid.UUID(key_id)
            )
            == 1
        )

    run = await telemetry(migrated, "keys", "revoke", key_id)
    assert run.code == 0, run.stderr
    response = await client.get("/api/v1/me", headers=bearer(secret))
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "key_revoked"
    async with pool.acquire() as c:
        assert (
            await c.fetchval(
                "SELECT count(*) FROM audit_log"
                " WHERE action = 'key.revoked' AND detail->>'keyId' = $1",
                key_id,
            )
            == 1
        )


async def test_partner_key_with_a_past_expiry_is_expired(
    migrated: str, pool: asyncpg.Pool, client: AsyncTestClient
) -> None:
    _, t = await tenancy(pool)

    async def me_with_a_key(name: str, scopes: str, expires: str) -> httpx.Response:
        """GET /me with a partner key made by `telemetry keys create`."""
        run = await telemetry(
            migrated, "keys", "create", "--partner", t["p"]["id"], "--name", name,
            "--scopes", scopes, "--expires", expires,
        )  # fmt: skip
        assert run.code == 0, run.stderr
        return await client.get("/api/v1/me", headers=bearer(run.last_line))

    response = await me_with_a_key("old", "devices:read", "2020-01-01")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "key_expired"

    response = await me_with_a_key("later", "devices:read,webhooks:manage", "2999-01-01T10:00:00Z")
    assert response.status_code == 200
    me = response.json()["data"]
    assert me["boundTo"] == "partner"
    assert me["expiresAt"] == "2999-01-01T10:00:00Z"


async def test_operator_mistakes_are_one_line_and_exit_1(migrated: str, pool: asyncpg.Pool) -> None:
    _, t = await tenancy(pool)
    cases = [
        (
            ["keys", "create", "--partner", t["p"]["id"], "--name", "x", "--scopes", "devices:rw"],
            "unknown scope 'devices:rw'",
        ),
        (
            ["keys", "create", "--sub-account", str(uuid.uuid4()), "--name", "x",
             "--scopes", "devices:read"],
            "no sub-account with id",
        ),
        (["keys", "revoke", str(uuid.uuid4())], "no key with id"),
        (["keys", "revoke", "nope"], "not a UUID"),
        (["devices", "set-status", str(uuid.uuid4()), "archived"], "no device with id"),
        (
            ["devices", "set-status", t["spare"]["id"], "assigned"],
            "--sub-account is required to assign a device that has no sub-account",
        ),
        (["features", "set", "--partner", str(uuid.uuid4()), "--networks", "on"], "no partner"),
        (["features", "set", "--partner", t["p"]["id"]], "nothing to change"),
    ]  # fmt: skip
    for args, expected in cases:
        run = await telemetry(migrated, *args)
        assert run.code == 1, (args, run.stdout, run.stderr)
        assert len(run.stderr.strip().splitlines()) == 1, run.stderr
        assert expected in run.stderr, (args, run.stderr)


async def test_set_status_inventory_deletes_telemetry_and_clears_placement(
    migrated: str, pool: asyncpg.Pool
) -> None:
    _, t = await tenancy(pool)
    device_id = uuid.UUID(t["dev"]["id"])
    async with pool.acquire() as c:
        num = await c.fetchval("SELECT num FROM devices WHERE id = $1", device_id)
        field_num = await c.fetchval(
            "SELECT num FROM profile_fields WHERE profile_id = $1", uuid.UUID(t["prof"]["id"])
        )
        # Three recent uplinks stay raw; one of 30 days ago is packed into its week.
        for minutes in (5, 65, 125, 30 * 24 * 60):
            await c.execute(
                "SELECT record_readings($1, 0, now() - make_interval(mins => $2), $3, $4,"
                " '{}'::int[], '{}'::jsonb[])",
                num, minutes, [field_num, 0], [21.5, 80.0],
            )  # fmt: skip
        await c.execute("SELECT pack_closed_chunks(interval '0')")
        assert await c.fetchval("SELECT count(*) FROM readings_num WHERE device_num = $1", num) == 6
        assert await c.fetchval("SELECT sum(n) FROM packed_num WHERE device_num = $1", num) == 2
        assert await c.fetchval("SELECT count(*) FROM rollup_day_num WHERE device_num = $1", num)

    run = await telemetry(migrated, "devices", "set-status", str(device_id), "inventory")
    assert run.code == 0, run.stderr

    async with pool.acquire() as c:
        for table in ("readings_num", "packed_num", "rollup_day_num", "device_state"):
            count = await c.fetchval(f"SELECT count(*) FROM {table} WHERE device_num = $1", num)
            assert count == 0, table
        row = await c.fetchrow(
            "SELECT status, sub_account_id, network_id, site_id FROM devices WHERE id = $1",
            device_id,
        )
        assert dict(row) == {
            "status": "inventory", "sub_account_id": None, "network_id": None, "site_id": None,
        }  # fmt: skip
        # An inventory member stays listed in its group (api-spec 2.9).
        memberships = "SELECT count(*) FROM multicast_members WHERE device_id = $1"
        assert await c.fetchval(memberships, device_id) == 1

    run = await telemetry(
        migrated, "devices", "set-status", str(device_id), "assigned",
        "--sub-account", t["other"]["id"],
    )  # fmt: skip
    assert run.code == 0, run.stderr
    async with pool.acquire() as c:
        # Assigned to another sub-account, it leaves the first one's group.
        assert await c.fetchval(memberships, device_id) == 0
    run = await telemetry(migrated, "devices", "set-status", str(device_id), "archived")
    assert run.code == 0, run.stderr
    async with pool.acquire() as c:
        row = await c.fetchrow(
            "SELECT status, sub_account_id FROM devices WHERE id = $1", device_id
        )
        assert tuple(row) == ("archived", uuid.UUID(t["other"]["id"]))


async def test_inventory_device_returning_to_its_sub_account_keeps_its_groups(
    migrated: str, pool: asyncpg.Pool
) -> None:
    _, t = await tenancy(pool)
    device_id = t["dev"]["id"]
    for args in (("inventory",), ("assigned", "--sub-account", t["sa"]["id"])):
        run = await telemetry(migrated, "devices", "set-status", device_id, *args)
        assert run.code == 0, run.stderr
    members = await pool.fetch(
        "SELECT device_id FROM multicast_members WHERE group_id = $1", uuid.UUID(t["group"]["id"])
    )
    assert [row["device_id"] for row in members] == [uuid.UUID(device_id)]


async def test_features_set_partner_default_and_sub_account_override(
    migrated: str, pool: asyncpg.Pool
) -> None:
    _, t = await tenancy(pool)
    run = await telemetry(
        migrated, "features", "set", "--partner", t["p"]["id"], "--networks", "off"
    )
    assert run.code == 0, run.stderr
    run = await telemetry(
        migrated, "features", "set", "--sub-account", t["sa"]["id"],
        "--networks", "on", "--multi-site", "off",
    )  # fmt: skip
    assert run.code == 0, run.stderr
    async with pool.acquire() as c:
        partner = await c.fetchrow(
            "SELECT networks_enabled, multi_site_enabled FROM partners WHERE id = $1",
            uuid.UUID(t["p"]["id"]),
        )
        assert tuple(partner) == (False, True)
        sub = await c.fetchrow(
            "SELECT networks_enabled, multi_site_enabled FROM sub_accounts WHERE id = $1",
            uuid.UUID(t["sa"]["id"]),
        )
        assert tuple(sub) == (True, False)
        untouched = await c.fetchrow(
            "SELECT networks_enabled, multi_site_enabled FROM sub_accounts WHERE id = $1",
            uuid.UUID(t["other"]["id"]),
        )
        assert tuple(untouched) == (None, None)
        # Nothing is deleted: the device keeps its network and site.
        assert await c.fetchval(
            "SELECT network_id FROM devices WHERE id = $1", uuid.UUID(t["dev"]["id"])
        ) == uuid.UUID(t["net"]["id"])


async def test_world_load_command_prints_a_summary_or_the_path(
    migrated: str, tmp_path: Path
) -> None:
    w = World()
    p = w.partner()
    w.device(w.sub_account(p), w.profile(p))
    good = tmp_path / "world.json"

    good.write_text(json.dumps(w.to_dict()))
    run = await telemetry(migrated, "world", "load", str(good))
    assert run.code == 0, run.stderr
    assert run.last_line.startswith("loaded 1 partner, 1 sub-account, 1 profile, 1 device,")

    bad = tmp_path / "bad.yaml"
    world = w.to_dict()
    world["partners"][0]["id"] = str(uuid.uuid4())
    world["partners"][0]["subAccounts"][0]["devices"][0]["devEui"] = "xyz"

    bad.write_text(yaml.safe_dump(world))
    run = await telemetry(migrated, "world", "load", str(bad))
    assert run.code == 1
    assert run.stderr.strip() == (
        "telemetry world: partners[0].subAccounts[0].devices[0].devEui: not 16 hex characters"
    )
