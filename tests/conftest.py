"""Shared fixtures: a fresh database per test run on the project's real TimescaleDB.

The cluster of `telemetry db start` is started (or reused); each run gets its own
database, migrated from scratch and dropped at the end. Set TEST_DATABASE_URL to use
an existing, already empty database instead (e.g. a TimescaleDB container).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import httpx
import pytest
from litestar.testing import AsyncTestClient

from app.core.config import PROJECT_ROOT, Settings
from app.core.db import connect, create_pool
from app.main import create_app
from app.ops import cluster
from app.ops.migrate import migrate


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
    # The in-process app runs no MQTT consumer or downlink dispatcher: the tests of those
    # start them as users do (`telemetry ingest mqtt`, `telemetry dispatch`, `serve`).
    return Settings(
        database_url=database_url,
        pool_min_size=1,
        pool_max_size=8,
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
        yield test_client


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LiveServer:
    def __init__(self, base_url: str, process: subprocess.Popen[bytes]) -> None:
        self.base_url = base_url
        self.process = process

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=self.base_url, timeout=10)


def start_server(
    database_url: str, workers: int = 2, env: dict[str, str] | None = None
) -> LiveServer:
    """`telemetry serve` as users start it, on a free loopback port. Its MQTT consumers
    and downlink dispatcher are off unless `env` switches them on, so that the tests that
    own those loops are not raced by the shared server."""
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "TELEMETRY_MQTT_INGEST": "0",
        "TELEMETRY_DOWNLINK_DISPATCH": "0",
        **(env or {}),
    }
    process = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "telemetry"),
            "serve",
            "--port",
            str(port),
            "--workers",
            str(workers),
        ],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base_url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base_url}/api/v1/health", timeout=1).status_code == 200:
                return LiveServer(base_url, process)
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    process.kill()
    raise RuntimeError("telemetry serve did not come up")


@pytest.fixture(scope="session")
def live_server(migrated: str) -> Iterator[LiveServer]:
    server = start_server(migrated)
    yield server
    server.process.terminate()
    server.process.wait(timeout=15)
