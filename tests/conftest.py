"""Shared fixtures: a fresh database per test run on the project's real TimescaleDB.

The cluster of `telemetry db start` is started (or reused); each run gets its own
database, migrated from scratch and dropped at the end. Set TEST_DATABASE_URL to use
an existing, already empty database instead (e.g. a TimescaleDB container).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator

import asyncpg
import pytest
from litestar.testing import AsyncTestClient

from app.core.config import Settings
from app.core.db import connect, create_pool
from app.main import create_app
from app.ops import cluster
from app.ops.migrate import migrate
from testkit.databases import drop_database
from tests.support.servers import (
    LiveServer,
    check_timestamps,
    serving,
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


@pytest.fixture(scope="session")
def live_server(migrated: str) -> Iterator[LiveServer]:
    with serving(migrated) as server:
        yield server


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
    drop_database(name)
