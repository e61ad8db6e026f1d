"""Tenants across two clusters: the test database of the project's cluster ("a") and a
second cluster started by the CLI on a free port ("b"), one API instance with a
placement file in front of both, and the key directory filled by `telemetry placement sync`.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest

from app.core.db import init_connection
from app.ingest.pipeline import Outcome, Uplink, store_uplink
from app.ops import cluster
from testkit.factories import World, load_into
from testkit.processes import free_port
from tests.support import chirpstack as cs
from tests.support import tts
from tests.support.cli import cli
from tests.support.helpers import bearer, ingest_context
from tests.support.servers import LiveServer, start_server

# A free port of its own, not an offset of the project's cluster port (another checkout's
# cluster on this host may sit there).
SECOND_PORT = free_port()


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
    await load_into(migrated, on_a.world)
    await load_into(second_cluster, on_b.world)
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


# Tenants whose device nums collide ---------------------------------------------------------
#
# A device's num is an identity of its database: two clusters each number their devices
# from 1. The apps of every cluster share a worker process in placement mode, so whatever
# one of them caches by num (or by any other identity of its database) must stay its own.
# Each fleet below is loaded into a fresh database of its own (a placement "cluster"), and
# every answer of the placement server is compared with the answer of a server in front
# of a copy of that fleet's database alone.

UPLINK_TIME = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=10)


class Fleet:
    """A partner with a profile of its own (decoded fields, static values and a formula
    over them), devices that report and devices that never do, a key, and integration
    tokens of ChirpStack and The Things Stack."""

    def __init__(self, name: str, decoded: list[str]) -> None:
        w = World()
        self.name = name
        self.partner = w.partner()
        sub = w.sub_account(self.partner)
        fields = [w.field(identifier) for identifier in decoded]
        fields += [
            w.field("label", kind="static", dataType="string", default=f"{name} default"),
            w.field("height", kind="static", default=len(name)),
            w.formula("first_doubled", f"{decoded[0]} * 2"),
            w.formula("height_cm", "height * 100"),
        ]
        profile = w.profile(self.partner, fields=fields)
        self.decoded = decoded
        self.reporting = [
            w.device(sub, profile, static={"label": f"{name} reporting {n}"}) for n in range(3)
        ]
        self.silent = [
            w.device(sub, profile, static={"label": f"{name} silent {n}"}) for n in range(3)
        ]
        self.key = w.key(sub, scopes=["devices:read", "telemetry:read"])
        self.token = w.integration(self.partner)
        self.tts = w.integration(self.partner, kind="tts")
        self.world = w

    def values(self, n: int) -> dict[str, float]:
        return {identifier: 10.0 * (n + 1) + index for index, identifier in enumerate(self.decoded)}

    def requests(self) -> list[tuple[str, str, dict[str, str], str | None]]:
        """Every request of the comparison, in order: (method, path, headers, body).
        Uplinks through ChirpStack and The Things Stack, then /latest of every device and
        the history of each reporting one."""
        steps: list[tuple[str, str, dict[str, str], str | None]] = []
        for n, device in enumerate(self.reporting):
            body = cs.uplink(
                device["devEui"],
                self.values(n),
                time=UPLINK_TIME + timedelta(seconds=n),
                dedup=f"{self.name}-{n}",
            )
            steps.append(("POST", "/ingest/chirpstack?event=up", cs.bearer(self.token), body))
        tts_body = json.dumps(
            tts.uplink(self.reporting[0]["devEui"], self.values(7), as_up=f"{self.name}-tts")
        )
        steps.append(("POST", "/ingest/tts", bearer(self.tts), tts_body))
        for device in self.reporting + self.silent:
            steps.append(("GET", f"/api/v1/devices/{device['id']}/latest", bearer(self.key), None))
        window = {
            "from": cs.iso(UPLINK_TIME - timedelta(days=7)),
            "to": cs.iso(UPLINK_TIME + timedelta(minutes=1)),
        }
        for device in self.reporting:
            query = "&".join(f"{k}={v}" for k, v in {**window, "field": self.decoded[0]}.items())
            path = f"/api/v1/devices/{device['id']}/history?{query}"
            steps.append(("GET", path, bearer(self.key), None))
        return steps


Answer = tuple[int, str, str | None]


async def ask(http: httpx.AsyncClient, step: tuple[str, str, dict[str, str], str | None]) -> Answer:
    method, path, headers, body = step
    response = await http.request(method, path, headers=headers, content=body)
    return response.status_code, response.text, response.headers.get("etag")


@pytest.fixture
def databases(migrated: str) -> Iterator[Callable[[], str]]:
    """Fresh migrated databases on the project's cluster (each another placement cluster
    as far as the service can tell), dropped afterwards."""
    names: list[str] = []

    def fresh() -> str:
        name = f"telemetry_place_{uuid.uuid4().hex[:10]}"
        cluster.ensure_database(name)
        names.append(name)
        url = cluster.database_url(name)
        cli({"DATABASE_URL": url}, "db", "migrate")
        return url

    yield fresh
    for name in names:
        asyncio.run(_drop(migrated, name))


async def _drop(any_url: str, name: str) -> None:
    connection = await asyncpg.connect(any_url)
    try:
        await connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await connection.close()


async def device_nums(url: str, devices: list[dict[str, Any]]) -> list[int]:
    connection = await asyncpg.connect(url)
    try:
        ids = [uuid.UUID(d["id"]) for d in devices]
        rows = await connection.fetch("SELECT id, num FROM devices WHERE id = ANY ($1)", ids)
    finally:
        await connection.close()
    by_id = {row["id"]: row["num"] for row in rows}
    return [by_id[i] for i in ids]


async def test_tenants_whose_device_nums_collide_get_their_single_cluster_answers(
    databases: Callable[[], str], tmp_path: Path
) -> None:
    fleets = {"a": Fleet("alpha", ["temperature"]), "b": Fleet("beta", ["humidity", "co2"])}
    placed = {name: databases() for name in fleets}
    alone = {name: databases() for name in fleets}
    for name, fleet in fleets.items():
        await load_into(placed[name], fleet.world)
        await load_into(alone[name], fleet.world)
    # The premise: each device of one fleet has the num of the other's device in its place.
    nums = {
        name: await device_nums(placed[name], fleet.reporting + fleet.silent)
        for name, fleet in fleets.items()
    }
    assert nums["a"] == nums["b"]

    # The single-cluster answers: each fleet's own database behind a server of its own.
    expected: dict[str, list[Answer]] = {}
    for name, fleet in fleets.items():
        server = start_server(alone[name], workers=1)
        try:
            async with server.client() as http:
                expected[name] = [await ask(http, step) for step in fleet.requests()]
        finally:
            server.stop()
    for name, fleet in fleets.items():
        stored = [answer for answer in expected[name] if answer[0] == 204]
        assert len(stored) == len(fleet.reporting) + 1, expected[name]
        silent_latest = expected[name][len(fleet.reporting) + 1 + len(fleet.reporting)]
        assert json.loads(silent_latest[1])["data"]["values"]["label"] == f"{fleet.name} silent 0"
        assert json.loads(expected[name][-1][1])["data"]["points"], expected[name][-1]

    # The same requests through one placement server (one worker: both clusters' apps in
    # one process), the two fleets' requests interleaved so that each num is seen on one
    # cluster just before the other.
    placement = tmp_path / "placement.json"
    write_placement(placement, placed["a"], placed["b"], {fleets["b"].partner["id"]: "b"})
    env = {"TELEMETRY_PLACEMENT": str(placement)}
    cli(env, "placement", "sync")
    server = start_server(placed["a"], workers=1, env=env)
    answers: dict[str, list[Answer]] = {"a": [], "b": []}
    try:
        async with server.client() as http:
            for step_a, step_b in zip(fleets["a"].requests(), fleets["b"].requests(), strict=True):
                answers["a"].append(await ask(http, step_a))
                answers["b"].append(await ask(http, step_b))
    finally:
        server.stop()
    differing = [
        (name, step[0], step[1], got, want)
        for name in fleets
        for step, got, want in zip(
            fleets[name].requests(), answers[name], expected[name], strict=True
        )
        if got != want
    ]
    assert not differing, "\n".join(
        f"{name} {method} {path}:\n  got  {got}\n  want {want}"
        for name, method, path, got, want in differing
    )


async def test_each_cluster_hears_its_own_notifications_with_a_listen_url_set(
    migrated: str, second_cluster: str, tmp_path: Path
) -> None:
    """DATABASE_LISTEN_URL names one database; in placement mode each cluster's app must
    still LISTEN on its own cluster (its `listen` URL in the placement file, else its
    `url`), or its /latest and key caches never hear of that cluster's changes."""
    on_a, on_b = Tenant(), Tenant()
    await load_into(migrated, on_a.world)
    await load_into(second_cluster, on_b.world)
    placement = tmp_path / "placement.json"
    write_placement(placement, migrated, second_cluster, {on_b.partner["id"]: "b"})
    env = {"TELEMETRY_PLACEMENT": str(placement), "DATABASE_LISTEN_URL": migrated}
    cli(env, "placement", "sync")

    async def store_on_b(temperature: float) -> None:
        pool = await asyncpg.create_pool(
            second_cluster, min_size=1, max_size=1, init=init_connection
        )
        try:
            context = await ingest_context(pool, uuid.UUID(on_b.device["id"]))
            uplink = Uplink(time=datetime.now(UTC), values={"temperature": temperature})
            assert await store_uplink(pool, context, uplink) == Outcome.STORED
        finally:
            await pool.close()

    async def temperature(http: httpx.AsyncClient) -> Any:
        path = f"/api/v1/devices/{on_b.device['id']}/latest"
        response = await http.get(path, headers=bearer(on_b.key))
        assert response.status_code == 200, response.text
        return response.json()["data"]["values"].get("temperature")

    await store_on_b(1.0)
    server = start_server(migrated, workers=1, env=env)
    try:
        async with server.client() as http:
            # Read twice: the worker caches the body from its second read on.
            assert [await temperature(http) for _ in range(3)] == [1.0, 1.0, 1.0]
            # Stored on b by another instance (here: the pipeline itself).
            await store_on_b(2.0)
            deadline = time.monotonic() + 5
            while (seen := await temperature(http)) != 2.0:
                assert time.monotonic() < deadline, f"still {seen}: the change was not heard"
                await asyncio.sleep(0.1)
    finally:
        server.stop()
