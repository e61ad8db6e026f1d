"""Shared fixtures: a fresh database per test run on the project's real TimescaleDB.

The cluster of `telemetry db start` is started (or reused); each run gets its own
database, migrated from scratch and dropped at the end. Set TEST_DATABASE_URL to use
an existing, already empty database instead (e.g. a TimescaleDB container).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager

import asyncpg
import httpx
import pytest
from litestar.testing import AsyncTestClient

from app.core.config import Settings
from app.core.db import connect, create_pool
from app.main import create_app
from app.ops import cluster
from app.ops.migrate import migrate
from benchmarks.common import Server
from benchmarks.common import start_server as served

# D6: every timestamp the API writes is RFC 3339 UTC with `Z`. Checked here, once, on every
# JSON response any test receives from the app or a live server.
RFC3339_Z = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$")
TIMESTAMP_KEYS = re.compile(r"(At|^time|^from|^to|^retentionCutoff)$")


def _bad_timestamps(value: object, path: str = "") -> list[str]:
    if isinstance(value, dict):
        bad = []
        for key, item in value.items():
            where = f"{path}.{key}"
            if isinstance(item, str) and TIMESTAMP_KEYS.search(key) and not RFC3339_Z.match(item):
                bad.append(f"{where}={item!r}")
            else:
                bad.extend(_bad_timestamps(item, where))
        return bad
    if isinstance(value, list):
        return [b for i, item in enumerate(value) for b in _bad_timestamps(item, f"{path}[{i}]")]
    return []


async def check_timestamps(response: httpx.Response) -> None:
    if not response.headers.get("content-type", "").startswith("application/json"):
        return
    await response.aread()
    try:
        document = json.loads(response.content)
    except ValueError:
        return
    bad = _bad_timestamps(document)
    assert not bad, f"timestamps not RFC 3339 UTC with Z in {response.url}: {bad}"


@pytest.fixture(scope="session")
def database_url() -> Iterator[str]:
    explicit = os.environ.get("TEST_DATABASE_URL")
    if explicit:
        yield explicit
        return
    cluster.start()
    name = f"telemetry_test_{uuid.uuid4().hex[:10]}"
    cluster.ensure_database(name)
    url = cluster.database_url(name)
    yield url
    psql = str(cluster.pg_bindir() / "psql")
    subprocess.run(
        [
            psql,
            cluster.database_url("postgres"),
            "-qc",
            f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)',
        ],
        check=False,
        capture_output=True,
    )


@pytest.fixture(scope="session")
def settings(database_url: str) -> Settings:
    # The in-process app runs no webhook dispatcher, MQTT consumer or downlink dispatcher:
    # the tests of those start them as users do (`telemetry serve` with its settings,
    # `telemetry ingest mqtt`, `telemetry dispatch`).
    return Settings(
        database_url=database_url,
        pool_min_size=1,
        pool_max_size=8,
        webhook_dispatcher=False,
        mqtt_ingest=False,
        downlink_dispatch=False,
    )


@pytest.fixture(scope="session")
async def migrated(settings: Settings) -> str:
    connection = await connect(settings)
    try:
        await migrate(connection)
    finally:
        await connection.close()
    return settings.database_url


@pytest.fixture(scope="session")
async def pool(settings: Settings, migrated: str) -> AsyncIterator[asyncpg.Pool]:
    pool = await create_pool(settings)
    yield pool
    await pool.close()


@pytest.fixture(scope="session")
async def client(settings: Settings, migrated: str) -> AsyncIterator[AsyncTestClient]:
    """The app in-process (ASGI), with its real lifespan and a real database."""
    async with AsyncTestClient(app=create_app(settings)) as test_client:
        test_client.event_hooks = {"request": [], "response": [check_timestamps]}
        yield test_client


class LiveServer(Server):
    """`telemetry serve` started by a test (`start_server`), with a client of its own."""

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            base_url=self.base_url, timeout=10, event_hooks={"response": [check_timestamps]}
        )


def start_server(
    database_url: str, workers: int = 2, env: dict[str, str] | None = None
) -> LiveServer:
    """`telemetry serve` as users start it, on a free loopback port (`env`: extra settings;
    metrics on another port), in a process group of its own so that a test can kill the
    server and its workers at once.

    Its webhook dispatcher, MQTT consumers and downlink dispatcher are off unless `env`
    switches them on, so that the tests that own those loops (with their own settings) are
    not raced by the shared server."""
    loops_off = {
        "TELEMETRY_WEBHOOK_DISPATCHER": "0",
        "TELEMETRY_MQTT_INGEST": "0",
        "TELEMETRY_DOWNLINK_DISPATCH": "0",
    }
    server = served(database_url, workers, {**loops_off, **(env or {})}, new_session=True)
    return LiveServer(server.base_url, server.process)


@contextmanager
def serving(database_url: str, env: dict[str, str] | None = None) -> Iterator[LiveServer]:
    """`start_server` (two workers) for a fixture's lifetime, stopped however it ends."""
    server = start_server(database_url, workers=2, env=env)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def live_server(migrated: str) -> Iterator[LiveServer]:
    with serving(migrated) as server:
        yield server
