"""Scratch databases in the project's cluster, migrated by the checkout's own migrations,
and connections with the app's codecs, for the tests and the benchmark suite alike."""

from __future__ import annotations

import asyncio
import subprocess
from typing import Any


def scratch_database(name: str, *, fresh: bool = False) -> str:
    """A database `name` in the project's cluster (never `telemetry`), migrated; its URL.

    With `fresh`, an existing database of that name is dropped first.
    """
    from app.ops import cluster

    if name == cluster.DATABASE:
        raise ValueError("benchmarks never touch the demo database")
    cluster.start()
    if fresh:
        drop_database(name)
    cluster.ensure_database(name)
    url = cluster.database_url(name)
    asyncio.run(migrate_database(url))
    return url


async def migrate_database(url: str) -> None:
    """Applies the checkout's migrations and definitions to a database (idempotent)."""
    import asyncpg

    from app.ops.migrate import migrate

    connection = await asyncpg.connect(url)
    try:
        await migrate(connection)
    finally:
        await connection.close()


def drop_database(name: str) -> None:
    from app.ops import cluster

    subprocess.run(
        [
            str(cluster.pg_bindir() / "psql"),
            cluster.database_url("postgres"),
            "-qc",
            f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)',
        ],
        check=True,
        capture_output=True,
    )


async def connect(database_url: str) -> Any:
    """One asyncpg connection with the app's codecs (jsonb as Python objects)."""
    import asyncpg

    from app.core.db import init_connection

    connection = await asyncpg.connect(database_url, server_settings={"timezone": "UTC"})
    await init_connection(connection)
    return connection
