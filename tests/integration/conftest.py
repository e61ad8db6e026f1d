"""Fixtures of the end-to-end tests that talk to something outside the app: the webhook
receiver and the fake ChirpStack gRPC API, one of each per test module; the demo world
served by `telemetry serve`, once per session."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator

import asyncpg
import pytest

from tests.conftest import LiveServer, serving
from tests.fake_chirpstack import FakeChirpStack
from tests.integration.webhook_support import Receiver, start_receiver


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    """A real HTTP receiver on a loopback socket that records every webhook request."""
    running = start_receiver()
    yield running
    running.close()


@pytest.fixture(scope="module")
async def fake() -> AsyncIterator[FakeChirpStack]:
    """ChirpStack's DeviceService over real gRPC (tests/fake_chirpstack.py)."""
    server = FakeChirpStack()
    await server.start()
    yield server
    await server.stop()


TTS_TOKEN = "schemathesis-tts-token-000000000000000"


@pytest.fixture(scope="session")
async def demo_world(pool: asyncpg.Pool) -> dict[str, str]:
    """The demo world (demo/world.py), loaded once per test database (a world cannot be
    loaded twice), for schemathesis and the clients' tests: its rate tiers raised so that
    the runs measure conformance rather than the limiter, and a The Things Stack
    integration added so that its ingest route is run with a token of its kind."""
    from app.world.loader import load_world
    from demo import world as demo

    document = demo.build()
    partner = document["partners"][0]
    partner["integrations"].append(
        {
            "id": str(uuid.uuid5(uuid.NAMESPACE_URL, "schemathesis-tts")),
            "kind": "tts",
            "token": TTS_TOKEN,
        }
    )
    partner["tier"] = {"perMinute": 1_000_000, "perDay": 100_000_000}
    for sub_account in partner["subAccounts"]:
        sub_account.pop("tier", None)
    async with pool.acquire() as connection:
        await load_world(connection, document)
    return {
        "partner": demo.PARTNER_KEY,
        "sub_account": demo.HARBOUR_KEY,
        "integration": demo.INTEGRATION_TOKEN,
        "tts": TTS_TOKEN,
    }


@pytest.fixture(scope="session")
def served(migrated: str, demo_world: dict[str, str]) -> Iterator[LiveServer]:
    """`telemetry serve` (two workers) over the demo world, for the whole session."""
    with serving(migrated) as server:
        yield server
