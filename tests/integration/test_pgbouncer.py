"""The API through a real PgBouncer in transaction pooling mode (Debian `pgbouncer`).

What transaction pooling breaks, and how the app copes: a server connection belongs to a
client only for one transaction, so asyncpg's named prepared statements are turned off
(`DB_STATEMENT_CACHE=0`) and LISTEN runs on a direct connection (`DATABASE_LISTEN_URL`);
PgBouncer refuses unknown startup parameters, so `statement_timeout` is ignored there and
set per server connection by the pool's `connect_query` instead. The singleton tasks'
election (app/core/exclusive.py) takes its session advisory locks straight on the primary
(`DATABASE_LISTEN_URL`): through the pooler a session lock stays on a server connection
that other clients then share.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

import asyncpg
import pytest

from testkit.factories import World, load
from testkit.processes import free_port
from tests.support import chirpstack as cs
from tests.support.helpers import bearer
from tests.support.servers import LiveServer, start_server
from tests.support.webhooks import create_endpoint, start_receiver, verify

PGBOUNCER = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
pytestmark = pytest.mark.skipif(not Path(PGBOUNCER).exists(), reason="pgbouncer not installed")


def as_owner(args: list[str]) -> list[str]:
    """PgBouncer refuses to run as root; run it as the clusters' `postgres` user then."""
    return ["runuser", "-u", "postgres", "--", *args] if os.geteuid() == 0 else args


class Bouncer:
    def __init__(self, database_url: str) -> None:
        target = urlsplit(database_url)
        self.root = Path(tempfile.mkdtemp(prefix="telemetry-pgbouncer-"))
        if os.geteuid() == 0:
            owner = pwd.getpwnam("postgres")
            os.chown(self.root, owner.pw_uid, owner.pw_gid)
        self.port = free_port()
        (self.root / "userlist.txt").write_text('"telemetry" ""\n')
        (self.root / "pgbouncer.ini").write_text(
            f"""[databases]
* = host=127.0.0.1 port={target.port} connect_query='SET statement_timeout = 5000'
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {self.port}
unix_socket_dir =
auth_type = trust
auth_file = {self.root}/userlist.txt
admin_users = telemetry
pool_mode = transaction
default_pool_size = 4
max_client_conn = 200
ignore_startup_parameters = statement_timeout,extra_float_digits
logfile = {self.root}/pgbouncer.log
pidfile = {self.root}/pgbouncer.pid
"""
        )
        self.process = subprocess.Popen(
            as_owner([PGBOUNCER, str(self.root / "pgbouncer.ini")]),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.url = f"postgresql://telemetry@127.0.0.1:{self.port}{target.path}"
        deadline = time.monotonic() + 10
        while self.admin("SHOW VERSION") is None:
            assert time.monotonic() < deadline, "pgbouncer did not come up"
            time.sleep(0.1)

    def admin(self, command: str) -> str | None:
        """A command on PgBouncer's admin console (simple query protocol: psql)."""
        result = subprocess.run(
            ["psql", f"postgresql://telemetry@127.0.0.1:{self.port}/pgbouncer", "-tAc", command],
            capture_output=True,
            text=True,
            check=False,
        )
        return result.stdout if result.returncode == 0 else None

    def transactions(self, database: str) -> int:
        for line in (self.admin("SHOW STATS") or "").splitlines():
            columns = line.split("|")
            if columns[0] == database:
                return int(columns[1])  # total_xact_count
        return 0

    def server_pids(self) -> set[int]:
        """The backend pids of PgBouncer's server connections (`SHOW SERVERS`)."""
        result = subprocess.run(
            [
                "psql",
                f"postgresql://telemetry@127.0.0.1:{self.port}/pgbouncer",
                "-Ac",
                "SHOW SERVERS",
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        lines = result.stdout.splitlines()
        column = lines[0].split("|").index("remote_pid")
        return {int(line.split("|")[column]) for line in lines[1:] if line.count("|") > column}

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture(scope="module")
def bouncer(migrated: str) -> Iterator[Bouncer]:
    bouncer = Bouncer(migrated)
    yield bouncer
    bouncer.stop()


async def test_the_api_works_through_pgbouncer_in_transaction_mode(
    pool: object, migrated: str, bouncer: Bouncer
) -> None:
    w = World()
    partner, sub = w.tenancy({}, tier={"perMinute": 30, "perDay": 100000})
    profile = w.profile(partner, fields=[w.field("temperature")])
    devices = [w.device(sub, profile) for _ in range(3)]
    token = w.integration(partner)
    key = w.key(sub, scopes=["devices:read", "telemetry:read"])
    await load(pool, w)
    server: LiveServer = start_server(
        bouncer.url,
        workers=2,
        env={"DATABASE_LISTEN_URL": migrated, "DB_STATEMENT_CACHE": "0"},
    )
    database = urlsplit(migrated).path.lstrip("/")
    before = bouncer.transactions(database)
    try:
        async with server.client() as http:
            # Concurrent uplinks and reads share 4 server connections.
            async def uplink(n: int) -> int:
                device = devices[n % 3]
                body = cs.uplink(device["devEui"], {"temperature": n}, time=datetime.now(UTC))
                response = await http.post(
                    "/ingest/chirpstack?event=up", content=body, headers=cs.bearer(token)
                )
                return response.status_code

            assert await asyncio.gather(*(uplink(n) for n in range(12))) == [204] * 12
            listing = await http.get("/api/v1/devices", headers=bearer(key))
            assert listing.status_code == 200
            assert sorted(d["id"] for d in listing.json()["data"]) == sorted(
                d["id"] for d in devices
            )

            # /latest stays right on both workers: its cache is invalidated by NOTIFY on the
            # direct listening connection, whichever worker stored the uplink.
            device = devices[0]
            for value in (100.0, 101.0, 102.0):
                body = cs.uplink(device["devEui"], {"temperature": value}, time=datetime.now(UTC))
                stored = await http.post(
                    "/ingest/chirpstack?event=up", content=body, headers=cs.bearer(token)
                )
                assert stored.status_code == 204
                await asyncio.sleep(0.1)
                for _ in range(4):  # both workers, several times
                    latest = await http.get(
                        f"/api/v1/devices/{device['id']}/latest", headers=bearer(key)
                    )
                    assert latest.json()["data"]["values"]["temperature"] == value

            # The per-minute limit is exact through the pooler (30 per minute, 13 used).
            codes = [
                r.status_code
                for r in await asyncio.gather(
                    *(http.get("/api/v1/devices", headers=bearer(key)) for _ in range(25))
                )
            ]
            assert sorted(codes) == [200] * 17 + [429] * 8
        assert bouncer.transactions(database) > before + 12  # it all went through PgBouncer
    finally:
        server.process.terminate()
        server.process.wait(timeout=15)


# The holders of advisory locks in this database: (backend pid, application_name, objid).
ADVISORY_HOLDERS = """
SELECT l.pid, a.application_name, l.classid::bigint AS classid, l.objid::bigint AS objid
  FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
 WHERE l.locktype = 'advisory' AND l.granted
   AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
"""
WEBHOOKS_ELECTION = "webhooks:dispatch"


async def election_holders(pool: asyncpg.Pool, name: str) -> list[int]:
    """The OS pids of the processes holding the election lock `name` (from the name of the
    election's connection, `telemetry election <pid>`)."""
    objid = await pool.fetchval("SELECT hashtext($1)::bigint & 4294967295", name)
    return [
        int(row["application_name"].rsplit(" ", 1)[1])
        for row in await pool.fetch(ADVISORY_HOLDERS)
        if row["classid"] == 15015 and row["objid"] == objid
    ]


async def test_one_webhook_dispatcher_leads_past_pgbouncer_and_another_takes_over(
    pool: asyncpg.Pool, migrated: str, bouncer: Bouncer
) -> None:
    """Two instances (two workers each) with their dispatchers on, queries through
    PgBouncer: exactly one dispatcher leads, elected on a direct connection (no advisory
    lock is held by a PgBouncer server connection), events are delivered once each, and
    when the leading worker is killed another leads within 5 s and delivers."""
    receiver = start_receiver()
    w = World()
    partner, _, device = w.tenancy_with_device([w.field("temperature")])
    token = w.integration(partner)
    await load(pool, w)
    _, secret = create_endpoint(
        migrated,
        "--partner",
        partner["id"],
        "--url",
        receiver.url("/election"),
        "--events",
        "device.uplink",
    )
    env = {
        "DATABASE_LISTEN_URL": migrated,
        "DB_STATEMENT_CACHE": "0",
        "TELEMETRY_WEBHOOK_DISPATCHER": "1",
        "TELEMETRY_WEBHOOKS_ALLOW_PRIVATE": "1",
    }
    servers = [start_server(bouncer.url, workers=2, env=env) for _ in range(2)]
    sent = 0

    async def uplinks(server: LiveServer, count: int) -> None:
        nonlocal sent
        async with server.client() as http:
            for _ in range(count):
                sent += 1
                body = cs.uplink(device["devEui"], {"temperature": sent}, time=datetime.now(UTC))
                response = await http.post(
                    "/ingest/chirpstack?event=up", content=body, headers=cs.bearer(token)
                )
                assert response.status_code == 204, response.text

    async def delivered(count: int) -> list[dict[str, object]]:
        got = await asyncio.to_thread(receiver.wait, "/election", count, 20.0)
        assert len(got) >= count, f"{len(got)} of {count} events delivered"
        return [verify(secret, r) for r in got]

    try:
        await uplinks(servers[0], 3)
        await delivered(3)
        pooled = bouncer.server_pids()
        through_pooler = [r for r in await pool.fetch(ADVISORY_HOLDERS) if r["pid"] in pooled]
        assert not through_pooler, f"advisory locks held through PgBouncer: {through_pooler}"
        leaders = await election_holders(pool, WEBHOOKS_ELECTION)
        assert len(leaders) == 1, leaders
        leader = leaders[0]
        leading_server = os.getsid(leader)
        assert leading_server in {s.process.pid for s in servers}, "not a worker of ours"

        os.kill(leader, signal.SIGKILL)
        killed_at = time.monotonic()
        successors: list[int] = []
        while time.monotonic() - killed_at < 5:
            successors = [p for p in await election_holders(pool, WEBHOOKS_ELECTION) if p != leader]
            if successors:
                break
            await asyncio.sleep(0.05)
        took = time.monotonic() - killed_at
        print(
            f"\nwebhook dispatcher: leader {leader} killed, {successors} leads after {took:.2f} s"
        )
        assert len(successors) == 1, "no other dispatcher took over within 5 s"
        survivor = next(s for s in servers if s.process.pid != leading_server)
        await uplinks(survivor, 3)
        events = await delivered(6)
        values = sorted(e["data"]["values"]["temperature"] for e in events)  # type: ignore[index]
        assert values == [1, 2, 3, 4, 5, 6]  # each once
    finally:
        receiver.close()
        for server in servers:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(server.process.pid, signal.SIGTERM)
            server.process.wait(timeout=15)
