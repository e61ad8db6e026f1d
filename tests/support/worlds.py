"""World fixtures: a module-scoped fixture that builds a world and loads it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import asyncpg
import pytest

from testkit.factories import B, load


def world_fixture(build: Callable[[], B]) -> Any:
    """A module-scoped fixture that builds a world (`build()`, anything with a `.world`),
    loads it and gives what was built: `setup = world_fixture(Setup)`."""

    @pytest.fixture(scope="module")
    async def fixture(pool: asyncpg.Pool) -> B:
        built = build()
        await load(pool, built.world)
        return built

    return fixture
