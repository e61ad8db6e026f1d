"""Forward-only migrations (`schema/NNN-description.sql`) and re-runnable definitions.

Each migration runs in its own transaction together with its row in
`schema_migrations` (name and SHA-256 of its text), so a failure leaves nothing
half-applied. A migration is never edited once applied: `migrate` compares the text of
every applied migration with its recorded checksum and refuses to run (changing nothing)
when one differs, since the database would not match what the file now says; write a new
migration instead. Definitions (`schema/definitions/*.sql`: functions, views, trigger
functions, named after the areas of app/) are re-applied on every run, after the
migrations; they only CREATE OR REPLACE, and drops of signatures that no longer exist
live in migrations. An advisory lock serialises concurrent runs.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import asyncpg

from app.core.config import PROJECT_ROOT

SCHEMA_DIR = PROJECT_ROOT / "schema"
_LOCK_ID = 7_301_994_211
# A migration or a definition file may rewrite a loaded database (an index rebuild, a
# backfill): far longer than the command timeout of every other statement, still bounded.
STATEMENT_BOUND_S = 3600.0


class EditedMigrationError(Exception):
    """An applied migration's file no longer matches the text that was applied."""


def checksum(sql: str) -> str:
    return hashlib.sha256(sql.encode()).hexdigest()


def migration_files(root: Path = SCHEMA_DIR) -> list[Path]:
    return sorted(p for p in root.glob("[0-9][0-9][0-9]-*.sql"))


def definition_files(root: Path = SCHEMA_DIR) -> list[Path]:
    return sorted((root / "definitions").glob("*.sql"))


async def migrate(connection: asyncpg.Connection, root: Path = SCHEMA_DIR) -> list[str]:
    """Applies what is missing; returns the names of the migrations applied."""
    applied_now: list[str] = []
    await connection.execute("SELECT pg_advisory_lock($1)", _LOCK_ID)
    try:
        await connection.execute(
            """CREATE TABLE IF NOT EXISTS schema_migrations (
                   version     text PRIMARY KEY,
                   checksum    text NOT NULL,
                   applied_at  timestamptz NOT NULL DEFAULT now())"""
        )
        done = {
            r["version"]: r["checksum"]
            for r in await connection.fetch("SELECT version, checksum FROM schema_migrations")
        }
        files = migration_files(root)
        edited = [
            p.name for p in files if p.name in done and checksum(p.read_text()) != done[p.name]
        ]
        if edited:
            raise EditedMigrationError(
                f"applied migrations were edited since: {', '.join(edited)} "
                "(restore them and put the change in a new migration)"
            )
        for path in files:
            if path.name in done:
                continue
            sql = path.read_text()
            async with connection.transaction():
                await connection.execute(sql, timeout=STATEMENT_BOUND_S)
                await connection.execute(
                    "INSERT INTO schema_migrations (version, checksum) VALUES ($1, $2)",
                    path.name,
                    checksum(sql),
                )
            applied_now.append(path.name)
        async with connection.transaction():
            for path in definition_files(root):
                await connection.execute(path.read_text(), timeout=STATEMENT_BOUND_S)
    finally:
        await connection.execute("SELECT pg_advisory_unlock($1)", _LOCK_ID)
    return applied_now
