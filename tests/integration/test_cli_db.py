"""`telemetry db start|migrate` and the migration runner (operations.md section 1)."""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest

from app.core.config import Settings
from app.core.db import connect
from app.ops import cluster
from app.ops.migrate import EditedMigrationError, migrate
from tests.support.cli import TELEMETRY


def run_cli(*args: str, database_url: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if database_url:
        env["DATABASE_URL"] = database_url
    return subprocess.run([TELEMETRY, *args], capture_output=True, text=True, env=env, check=False)


async def test_db_start_prints_a_working_url_on_the_last_line() -> None:
    first = run_cli("db", "start")
    again = run_cli("db", "start")
    assert first.returncode == again.returncode == 0
    url = again.stdout.strip().splitlines()[-1]
    assert url.startswith("postgresql://")
    connection = await asyncpg.connect(url)
    try:
        assert "timescaledb" in await connection.fetchval("SHOW shared_preload_libraries")
        assert await connection.fetchval(
            "SELECT count(*) FROM pg_available_extensions WHERE name = 'timescaledb'"
        )
    finally:
        await connection.close()


async def test_migrate_twice_applies_nothing_the_second_time(migrated: str) -> None:
    result = run_cli("db", "migrate", database_url=migrated)
    assert result.returncode == 0
    assert result.stdout.strip() == "migrations applied: 0"
    connection = await asyncpg.connect(migrated)
    try:
        # The Apache-2 edition, as built by scripts/install-system.sh.
        assert await connection.fetchval("SHOW timescaledb.license") == "apache"
    finally:
        await connection.close()


@pytest.fixture
async def scratch(tmp_path: Path) -> AsyncIterator[asyncpg.Connection]:
    """A connection to an empty database of its own (dropped afterwards), for migrations
    written into `tmp_path` (which holds an empty `definitions/`)."""
    name = f"telemetry_migrate_{uuid.uuid4().hex[:8]}"
    cluster.ensure_database(name)
    (tmp_path / "definitions").mkdir()
    connection = await connect(Settings(database_url=cluster.database_url(name)))
    try:
        yield connection
    finally:
        await connection.close()
        admin = await asyncpg.connect(cluster.database_url("postgres"))
        await admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        await admin.close()


async def applied(connection: asyncpg.Connection) -> list[str]:
    return [r["version"] for r in await connection.fetch("SELECT version FROM schema_migrations")]


async def test_a_failing_migration_leaves_nothing_half_applied(
    scratch: asyncpg.Connection, tmp_path: Path
) -> None:
    (tmp_path / "001-good.sql").write_text("CREATE TABLE good (id int);")
    (tmp_path / "002-bad.sql").write_text("CREATE TABLE half (id int); SELECT 1 / 0;")
    try:
        await migrate(scratch, tmp_path)
    except asyncpg.DivisionByZeroError:
        pass
    else:
        raise AssertionError("the bad migration should have failed")
    assert await applied(scratch) == ["001-good.sql"]
    tables = {
        r["tablename"]
        for r in await scratch.fetch("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
    }
    assert "good" in tables
    assert "half" not in tables


async def test_retention_run_prunes_week_old_deduplication_keys(migrated: str) -> None:
    partner = uuid.uuid4()
    connection = await asyncpg.connect(migrated)
    try:
        await connection.execute(
            "INSERT INTO ingest_dedup (partner_id, deduplication_id, received_at) VALUES "
            "($1, 'old', now() - interval '8 days'), ($1, 'recent', now() - interval '1 day')",
            partner,
        )
        result = run_cli("retention", "run", database_url=migrated)
        assert result.returncode == 0, result.stderr
        kept = await connection.fetch(
            "SELECT deduplication_id FROM ingest_dedup WHERE partner_id = $1", partner
        )
        assert [r["deduplication_id"] for r in kept] == ["recent"]
    finally:
        await connection.close()


async def test_an_edited_migration_stops_migrate(
    scratch: asyncpg.Connection, tmp_path: Path
) -> None:
    first = tmp_path / "001-first.sql"
    first.write_text("CREATE TABLE first (id int);")
    assert await migrate(scratch, tmp_path) == ["001-first.sql"]
    first.write_text("CREATE TABLE first (id bigint);")
    (tmp_path / "002-second.sql").write_text("CREATE TABLE second (id int);")
    with pytest.raises(EditedMigrationError, match=r"001-first\.sql"):
        await migrate(scratch, tmp_path)
    # Nothing after the check ran: the new migration is still pending.
    assert await applied(scratch) == ["001-first.sql"]
    first.write_text("CREATE TABLE first (id int);")
    assert await migrate(scratch, tmp_path) == ["002-second.sql"]
