"""A primary and a hot standby started as users start them, and two API instances.

The cluster pair is the module's own (a fresh primary in a temporary directory on a free
port, its standby on another), so pausing replay or killing the
standby touches nothing else. Which server answered is shown by behaviour, not by a header:
with the standby's replay paused it answers with what was there before the pause, the
primary with what was written after it.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest

from app.core.db import init_connection
from app.core.errors import UNAVAILABLE_RETRY_AFTER_S
from app.ops import cluster
from testkit.factories import World, load
from testkit.processes import free_port
from tests.support import chirpstack as cs
from tests.support.cli import TELEMETRY, cli
from tests.support.helpers import bearer
from tests.support.servers import LiveServer, start_server

# Free ports of their own, not offsets of the project's cluster port: another checkout's
# cluster on this host may sit at such an offset (two checkouts with default settings).
PRIMARY_PORT, STANDBY_PORT = free_port(), free_port()
# TELEMETRY_MAX_STALENESS of the servers under test: room for a busy CI box to make a
# few requests while a paused standby is still within it.
BOUND_S = 4.0
SCOPES = ["devices:read", "telemetry:read", "members:read", "members:manage"]


class Pair:
    def __init__(self, root: Path) -> None:
        self.env = {
            "TELEMETRY_PGDATA": str(root / "primary"),
            "TELEMETRY_DB_PORT": str(PRIMARY_PORT),
        }
        self.primary = cli(self.env, "db", "start")
        self.standby_dir = root / f"primary-standby-{STANDBY_PORT}"
        try:
            cli({**self.env, "DATABASE_URL": self.primary}, "db", "migrate")
            self.standby = self.start_standby()
        except BaseException:
            # A half-built pair must not outlive the test run holding its ports.
            self.stop()
            raise

    def start_standby(self) -> str:
        return cli(self.env, "db", "start", "--standby", "--port", str(STANDBY_PORT))

    def kill_standby(self) -> None:
        """The standby dies: immediate shutdown, no checkpoint, connections cut."""
        owner = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        pg_ctl = str(cluster.pg_bindir() / "pg_ctl")
        subprocess.run(
            [*owner, pg_ctl, "-D", str(self.standby_dir), "-m", "immediate", "stop"],
            check=True,
            capture_output=True,
        )

    def stop(self) -> None:
        """Stops whatever of the pair is running (each step even when another fails)."""
        for args in (("--standby", "--port", str(STANDBY_PORT), "--drop"), ()):
            subprocess.run(
                [TELEMETRY, "db", "stop", *args],
                env={**os.environ, **self.env},
                capture_output=True,
                check=False,
                timeout=120,
            )


@pytest.fixture(scope="module")
def pair() -> Iterator[Pair]:
    # Not under pytest's own temporary root: pytest makes that 0700 again at each session
    # start, and the clusters run as `postgres`.
    root = Path(tempfile.mkdtemp(prefix="telemetry-replication-"))
    try:
        pair = Pair(root)
        try:
            yield pair
        finally:
            pair.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)


class Tenancy:
    def __init__(self) -> None:
        w = World()
        self.partner = w.partner(plan={"apiWrite": True, "retentionDays": 90})
        self.sub = w.sub_account(self.partner, memberLimit=50)
        self.profile = w.profile(self.partner, fields=[w.field("temperature")])
        self.device = w.device(self.sub, self.profile)
        self.token = w.integration(self.partner)
        self.writer = w.key(self.sub, scopes=SCOPES)
        self.reader = w.key(self.sub, scopes=SCOPES)
        limited = w.partner(tier={"perMinute": 20, "perDay": 100000})
        self.limited = w.key(limited, scopes=["devices:read"])
        self.world = w


@pytest.fixture(scope="module")
async def tenancy(pair: Pair) -> Tenancy:
    tenancy = Tenancy()
    connection = await asyncpg.connect(pair.primary)
    await init_connection(connection)
    try:
        await load(connection, tenancy.world)
    finally:
        await connection.close()
    return tenancy


@pytest.fixture(scope="module")
def instances(pair: Pair, tenancy: Tenancy) -> Iterator[tuple[LiveServer, LiveServer]]:
    env = {"DATABASE_READ_URL": pair.standby, "TELEMETRY_MAX_STALENESS": str(BOUND_S)}
    first = start_server(pair.primary, workers=1, env=env)
    second = start_server(pair.primary, workers=1, env=env)
    yield first, second
    for server in (first, second):
        server.process.terminate()
        server.process.wait(timeout=15)


@pytest.fixture
async def standby(pair: Pair) -> AsyncIterator[asyncpg.Connection]:
    connection = await asyncpg.connect(pair.standby)
    yield connection
    if not connection.is_closed():
        await connection.execute("SELECT pg_wal_replay_resume()")
        await connection.close()


async def last_hour(server: LiveServer, t: Tenancy, route: str, **params: str) -> httpx.Response:
    """The device's `route` (history or export) over the last hour, read with its key."""
    now = datetime.now(UTC)
    window = {
        "from": (now - timedelta(hours=1)).isoformat(),
        "to": (now + timedelta(minutes=1)).isoformat(),
    }
    async with server.client() as http:
        response = await http.get(
            f"/api/v1/devices/{t.device['id']}/{route}",
            params={**params, **window},
            headers=bearer(t.reader),
        )
    assert response.status_code == 200, response.text
    return response


async def newest_temperature(server: LiveServer, t: Tenancy) -> float | None:
    response = await last_hour(server, t, "history", field="temperature")
    points = response.json()["data"]["points"]
    return points[0]["value"] if points else None


async def ingest(server: LiveServer, t: Tenancy, temperature: float) -> None:
    body = cs.uplink(t.device["devEui"], {"temperature": temperature}, time=datetime.now(UTC))
    async with server.client() as http:
        response = await http.post(
            "/ingest/chirpstack?event=up", content=body, headers=cs.bearer(t.token)
        )
    assert response.status_code == 204, response.text


async def until(check: Any, limit_s: float = 10.0) -> float:
    """Seconds until the async predicate holds (fails after limit_s)."""
    started = time.monotonic()
    while not await check():
        assert time.monotonic() - started < limit_s, "condition not reached in time"
        await asyncio.sleep(0.05)
    return time.monotonic() - started


async def member_emails(server: LiveServer, key: str) -> set[str]:
    async with server.client() as http:
        response = await http.get("/api/v1/members", headers=bearer(key))
    assert response.status_code == 200, response.text
    return {member["email"] for member in response.json()["data"]}


async def newest_exported_temperature(server: LiveServer, t: Tenancy) -> float | None:
    """The newest temperature of the device's NDJSON export (rows oldest first)."""
    response = await last_hour(server, t, "export", fields="temperature", format="ndjson")
    rows = [json.loads(line) for line in response.content.decode().splitlines()]
    values = [row["temperature"] for row in rows if row["temperature"] is not None]
    return values[-1] if values else None


Read = Callable[[LiveServer, Tenancy], Awaitable[float | None]]


async def standby_answers_reads(
    server: LiveServer,
    t: Tenancy,
    standby: asyncpg.Connection,
    newest: Read = newest_temperature,
) -> None:
    """Shows the standby answering: with its replay paused, a new reading stays unseen
    while the standby is within the bound, then appears once it is not (the primary)."""
    value = float(uuid.uuid4().int % 1000)
    await ingest(server, t, value - 1)
    await until(lambda: _is(newest(server, t), value - 1))
    await asyncio.sleep(0.5)  # a probe or two with the standby caught up
    await standby.execute("SELECT pg_wal_replay_pause()")
    await ingest(server, t, value)
    written = time.monotonic()
    assert await newest(server, t) == value - 1  # the standby, within the bound
    await until(lambda: _is(newest(server, t), value))
    # Never staler than the bound, plus a probe period and the requests' own time on a
    # shared, busy box (a stale answer would go on for good).
    assert time.monotonic() - written < BOUND_S + 2.5
    await standby.execute("SELECT pg_wal_replay_resume()")


async def _is(value: Any, expected: Any) -> bool:
    return bool(await value == expected)


async def test_reads_are_served_by_the_standby_within_the_bound(
    instances: tuple[LiveServer, LiveServer], tenancy: Tenancy, standby: asyncpg.Connection
) -> None:
    await standby_answers_reads(instances[0], tenancy, standby)


async def test_exports_are_served_by_the_standby_within_the_bound(
    instances: tuple[LiveServer, LiveServer], tenancy: Tenancy, standby: asyncpg.Connection
) -> None:
    await standby_answers_reads(instances[0], tenancy, standby, newest_exported_temperature)


async def test_a_client_reads_its_own_write_on_any_instance(
    instances: tuple[LiveServer, LiveServer], tenancy: Tenancy, standby: asyncpg.Connection
) -> None:
    first, second = instances
    t = tenancy
    before = await member_emails(first, t.reader)
    await asyncio.sleep(0.5)
    await standby.execute("SELECT pg_wal_replay_pause()")
    email = f"new-{uuid.uuid4().hex[:8]}@example.com"
    async with first.client() as http:
        response = await http.post(
            "/api/v1/members",
            json={"email": email, "name": "New", "password": "a long enough passphrase 42",
                  "role": "subaccount_viewer"},
            headers=bearer(t.writer),
        )  # fmt: skip
    assert response.status_code == 201, response.text
    # The writer sees its write at once, on the instance it wrote through and on the other.
    assert email in await member_emails(first, t.writer)
    assert email in await member_emails(second, t.writer)
    # Another key reads the standby, which is within the bound and has not replayed it yet.
    assert await member_emails(first, t.reader) == before
    await until(lambda: _contains(member_emails(second, t.reader), email), BOUND_S + 2)


async def _contains(values: Any, item: str) -> bool:
    return item in await values


async def test_limits_are_exact_across_two_instances(
    instances: tuple[LiveServer, LiveServer], tenancy: Tenancy
) -> None:
    first, second = instances
    async with first.client() as a, second.client() as b:
        responses = await asyncio.gather(
            *(
                (a if n % 2 else b).get("/api/v1/devices", headers=bearer(tenancy.limited))
                for n in range(30)
            )
        )
    codes = sorted(r.status_code for r in responses)
    assert codes == [200] * 20 + [429] * 10
    assert all(
        r.json()["error"]["code"] == "rate_limited" for r in responses if r.status_code == 429
    )


async def test_reads_fall_back_to_the_primary_when_the_standby_dies(
    pair: Pair, instances: tuple[LiveServer, LiveServer], tenancy: Tenancy
) -> None:
    first, second = instances
    device_id = tenancy.device["id"]
    pair.kill_standby()
    killed = time.monotonic()
    async with first.client() as a, second.client() as b:
        for n in range(20):
            response = await (a if n % 2 else b).get(
                "/api/v1/devices", headers=bearer(tenancy.reader)
            )
            assert response.status_code == 200, response.text
            assert [d["id"] for d in response.json()["data"]] == [device_id]
    assert time.monotonic() - killed < 10
    # Started again, it resumes streaming from its slot and serves reads again.
    assert pair.start_standby() == pair.standby
    connection = await asyncpg.connect(pair.standby)
    try:
        await until(lambda: _replays(connection))
        await standby_answers_reads(first, tenancy, connection)
    finally:
        await connection.execute("SELECT pg_wal_replay_resume()")
        await connection.close()


async def _replays(connection: asyncpg.Connection) -> bool:
    return bool(await connection.fetchval("SELECT pg_last_wal_replay_lsn() IS NOT NULL"))


async def test_writes_are_503_with_retry_after_while_the_primary_is_down(
    pair: Pair, instances: tuple[LiveServer, LiveServer], tenancy: Tenancy
) -> None:
    first, _ = instances
    cli(pair.env, "db", "stop")
    try:
        await asyncio.sleep(1.2)  # permits leased for the past second have run out
        async with first.client() as http:
            write = await http.post(
                "/api/v1/members",
                json={"email": "x@example.com", "name": "X", "password": "a long passphrase 42"},
                headers=bearer(tenancy.writer),
            )
        assert write.status_code == 503
        assert write.headers["Retry-After"] == str(UNAVAILABLE_RETRY_AFTER_S)
        assert write.json()["error"]["code"] == "unavailable"
    finally:
        cli(pair.env, "db", "start")

    async def served() -> bool:
        async with first.client() as http:
            response = await http.get("/api/v1/devices", headers=bearer(tenancy.reader))
        return response.status_code == 200

    await until(served)


async def test_latest_never_answers_older_than_the_last_change_it_heard_of(
    instances: tuple[LiveServer, LiveServer], tenancy: Tenancy, standby: asyncpg.Connection
) -> None:
    """/latest misses may be read on a standby, but a device whose change this worker was
    notified of after the standby's position is read on the primary: with the standby's
    replay paused, every new value is still answered at once, on both instances."""
    await asyncio.sleep(0.5)
    await standby.execute("SELECT pg_wal_replay_pause()")
    url = f"/api/v1/devices/{tenancy.device['id']}/latest"
    for value in (501.0, 502.0, 503.0):
        await ingest(instances[0], tenancy, value)
        await asyncio.sleep(0.05)  # the notification's way to the other instance
        for server in instances:
            async with server.client() as http:
                response = await http.get(url, headers=bearer(tenancy.reader))
            assert response.status_code == 200
            assert response.json()["data"]["values"]["temperature"] == value
