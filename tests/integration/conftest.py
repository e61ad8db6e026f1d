"""Fixtures of the end-to-end tests that talk to something outside the app: the webhook
receiver and the fake ChirpStack gRPC API, one of each per test module; the TH-100 world of
tests/support/chirpstack.py, loaded per test; the demo world in a database of its own,
served by `telemetry serve`, once per session (the clients' tests)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import asyncpg
import pytest

from app.core.config import Settings
from app.core.db import connect
from app.ops import cluster
from app.ops.migrate import migrate
from testkit.databases import drop_database
from testkit.fake_chirpstack import FakeChirpStack
from tests.support.chirpstack import th_loaded
from tests.support.servers import LiveServer, serving
from tests.support.webhooks import Receiver, start_receiver


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    """A real HTTP receiver on a loopback socket that records every webhook request."""
    running = start_receiver()
    yield running
    running.close()


@pytest.fixture(scope="module")
async def fake() -> AsyncIterator[FakeChirpStack]:
    """ChirpStack's DeviceService over real gRPC (testkit/fake_chirpstack.py)."""
    server = FakeChirpStack()
    await server.start()
    yield server
    await server.stop()


@pytest.fixture
async def th(pool: asyncpg.Pool) -> dict[str, Any]:
    """`th_loaded`'s world (a TH-100 device with its key and integration token,
    tests/support/chirpstack.py), loaded afresh for each test that takes it."""
    return await th_loaded(pool)


@pytest.fixture(scope="session")
async def demo_world_url(settings: Settings) -> AsyncIterator[str]:
    """A database of its own, migrated, holding the demo world (demo/world.py) with its rate
    tiers raised so that the clients' tests measure the clients rather than the limiter.
    Its own, because a world loads once per database and test_schemathesis.py loads the
    demo world into the session's."""
    from app.world.loader import load_world
    from demo import world as demo

    name = f"telemetry_test_{uuid.uuid4().hex[:10]}_demo"
    cluster.ensure_database(name)
    url = cluster.database_url(name)
    connection = await connect(Settings(database_url=url))
    try:
        await migrate(connection)
        document = demo.build()
        partner = document["partners"][0]
        partner["tier"] = {"perMinute": 1_000_000, "perDay": 100_000_000}
        for sub_account in partner["subAccounts"]:
            sub_account.pop("tier", None)
        await load_world(connection, document)
    finally:
        await connection.close()
    yield url
    drop_database(name)


@pytest.fixture(scope="session")
def demo_keys() -> dict[str, str]:
    from demo import world as demo

    return {"partner": demo.PARTNER_KEY, "sub_account": demo.HARBOUR_KEY}


@pytest.fixture(scope="session")
def demo_served(demo_world_url: str) -> Iterator[LiveServer]:
    """`telemetry serve` (two workers) over the demo world, for the whole session."""
    with serving(demo_world_url) as server:
        yield server
