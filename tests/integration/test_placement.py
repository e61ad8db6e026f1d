"""Tenants across two clusters: the test database of the project's cluster ("a") and a
second cluster started by the CLI on TELEMETRY_DB_PORT + 30 ("b"), one API instance with a
placement file in front of both, and the key directory filled by `telemetry placement sync`.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import tempfile
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import asyncpg
import pytest

from app.core.config import DEFAULT_PORT
from app.core.db import init_connection
from tests.conftest import LiveServer, start_server
from tests.factories import World, load
from tests.helpers import bearer
from tests.integration import test_ingest_helpers as cs
from tests.integration.test_replication import cli

SECOND_PORT = int(os.environ.get("TELEMETRY_DB_PORT", DEFAULT_PORT)) + 30


class Tenant:
    """A partner with one device, a key and an integration token."""

    def __init__(self) -> None:
        w = World()
        self.partner = w.partner()
        sub = w.sub_account(self.partner)
        profile = w.profile(self.partner, fields=[w.field("temperature")])
        self.device = w.device(sub, profile)
        self.key = w.key(sub, scopes=["devices:read", "telemetry:read"])
        self.token = w.integration(self.partner)
        self.world = w


async def load_into(url: str, tenant: Tenant) -> None:
    connection = await asyncpg.connect(url)
    await init_connection(connection)
    try:
        await load(connection, tenant.world)
    finally:
        await connection.close()


@pytest.fixture(scope="module")
def second_cluster() -> Iterator[str]:
    root = Path(tempfile.mkdtemp(prefix="telemetry-second-"))
    env = {
        "TELEMETRY_PGDATA": str(root / "pgdata"),
        "TELEMETRY_DB_PORT": str(SECOND_PORT),
    }
    url = cli(env, "db", "start")
    cli({**env, "DATABASE_URL": url}, "db", "migrate")
    yield url
    cli(env, "db", "stop")
    shutil.rmtree(root, ignore_errors=True)


def write_placement(path: Path, a: str, b: str, partners: dict[str, str]) -> None:
    document = {"clusters": {"a": {"url": a}, "b": {"url": b}}, "partners": partners}
    path.write_text(json.dumps(document))


async def device_ids(server: LiveServer, key: str) -> tuple[int, list[str]]:
    async with server.client() as http:
        response = await http.get("/api/v1/devices", headers=bearer(key))
    if response.status_code != 200:
        return response.status_code, []
    return 200, [d["id"] for d in response.json()["data"]]


async def test_a_second_cluster_serves_its_partners(
    migrated: str, second_cluster: str, tmp_path: Path
) -> None:
    on_a, on_b = Tenant(), Tenant()
    await load_into(migrated, on_a)
    await load_into(second_cluster, on_b)
    placement = tmp_path / "placement.json"
    write_placement(placement, migrated, second_cluster, {on_b.partner["id"]: "b"})
    env = {"TELEMETRY_PLACEMENT": str(placement)}
    synced = cli(env, "placement", "sync")
    assert synced.startswith("cluster b: ") and " 2 keys and tokens" in synced

    server = start_server(migrated, workers=1, env=env)
    try:
        # Each key is served by its partner's cluster; an unknown key is the usual 401.
        assert await device_ids(server, on_a.key) == (200, [on_a.device["id"]])
        assert await device_ids(server, on_b.key) == (200, [on_b.device["id"]])
        assert (await device_ids(server, "svc_live_" + "x" * 40))[0] == 401

        # An uplink through b's integration token is stored on b, and only there.
        async with server.client() as http:
            body = cs.uplink(on_b.device["devEui"], {"temperature": 7.5}, time=datetime.now(UTC))
            stored = await http.post(
                "/ingest/chirpstack?event=up", content=body, headers=cs.bearer(on_b.token)
            )
            assert stored.status_code == 204, stored.text
            # a's token cannot reach b's device: another tenant's device is a 404.
            foreign = await http.post(
                "/ingest/chirpstack?event=up", content=body, headers=cs.bearer(on_a.token)
            )
            assert foreign.status_code == 404
            latest = await http.get(
                f"/api/v1/devices/{on_b.device['id']}/latest", headers=bearer(on_b.key)
            )
            assert latest.status_code == 200
            assert latest.json()["data"]["values"]["temperature"] == 7.5
        device = uuid.UUID(on_b.device["id"])
        for url, expected in ((second_cluster, 1), (migrated, 0)):
            connection = await asyncpg.connect(url)
            try:
                count = await connection.fetchval(
                    "SELECT count(*) FROM device_state s JOIN devices d ON d.num = s.device_num "
                    "WHERE d.id = $1 AND s.latest_body IS NOT NULL",
                    device,
                )
            finally:
                await connection.close()
            assert count == expected

        # The map is re-read on change: b's partner placed on a (where it has no data)
        # is then unknown there, and placed back it is served again.
        write_placement(placement, migrated, second_cluster, {})
        await until_status(server, on_b.key, 401)
        write_placement(placement, migrated, second_cluster, {on_b.partner["id"]: "b"})
        await until_status(server, on_b.key, 200)
    finally:
        server.process.terminate()
        server.process.wait(timeout=15)


async def until_status(server: LiveServer, key: str, status: int) -> None:
    deadline = time.monotonic() + 10
    while (await device_ids(server, key))[0] != status:
        assert time.monotonic() < deadline, f"never {status}"
        await asyncio.sleep(0.2)
