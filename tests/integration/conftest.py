"""Fixtures of the end-to-end tests that talk to something outside the app: the webhook
receiver and the fake ChirpStack gRPC API, one of each per test module."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

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
