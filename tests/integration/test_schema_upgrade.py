"""A database migrated from the previous release and then by this checkout equals one this
checkout migrates fresh (issue 28, item 3): the same tables and columns, indexes,
constraints, triggers, views, hypertables and function bodies (pg_get_functiondef). And
every function in the migrated database is named in schema/: written out
(`CREATE ... FUNCTION name(`), or listed beside the template that generates it.

The previous release is the schema/ folder as of the last commit of the previous
submission (PREVIOUS_RELEASE, read with `git archive`), applied by the same runner
(app/ops/migrate.py takes the folder); a checkout without that commit (a shallow clone)
skips the comparison, saying so.
"""

from __future__ import annotations

import re
import subprocess
import tarfile
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from app.core.config import PROJECT_ROOT
from app.ops import cluster
from app.ops.migrate import SCHEMA_DIR, migrate
from testkit.databases import drop_database

# The last commit of the previous submission (2026-11-24), whose migrations and
# definitions deployed databases run today.
PREVIOUS_RELEASE = "d7ecf01fdee56a76bd579f93eb681da342cbdbfc"

# What `CREATE [OR REPLACE] FUNCTION name(` writes out, and what a template's list names:
# `-- generated from <template>: name, name, ...` (continued on `--   name, ...` lines).
WRITTEN = re.compile(r"CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+(\w+)\s*\(", re.IGNORECASE)
LISTED = re.compile(r"^-- generated from (\w+): (.*)$")
LISTED_MORE = re.compile(r"^--   ([\w, ]+)$")

# The catalog of the public schema, each part a sorted list of rows that must match.
CATALOG = {
    "columns": """
        SELECT c.table_name, c.column_name, c.ordinal_position, c.data_type, c.udt_name,
               c.is_nullable, c.column_default, c.character_maximum_length
          FROM information_schema.columns c
          JOIN information_schema.tables t USING (table_schema, table_name)
         WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'""",
    "indexes": "SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'",
    "constraints": """
        SELECT r.relname, c.conname, c.contype, pg_get_constraintdef(c.oid)
          FROM pg_constraint c JOIN pg_class r ON r.oid = c.conrelid
         WHERE r.relnamespace = 'public'::regnamespace""",
    "triggers": """
        SELECT c.relname, t.tgname, pg_get_triggerdef(t.oid)
          FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
         WHERE c.relnamespace = 'public'::regnamespace AND NOT t.tgisinternal""",
    "views": "SELECT viewname, definition FROM pg_views WHERE schemaname = 'public'",
    "hypertables": """
        SELECT hypertable_name, column_name, time_interval::text
          FROM timescaledb_information.dimensions WHERE hypertable_schema = 'public'""",
    "types": """
        SELECT t.typname, t.typtype, format_type(t.oid, NULL)
          FROM pg_type t
         WHERE t.typnamespace = 'public'::regnamespace
           AND NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = t.typrelid
                                                      AND c.relkind <> 'c')
           AND t.typelem = 0""",
    "functions": """
        SELECT p.proname, pg_get_function_identity_arguments(p.oid), pg_get_functiondef(p.oid)
          FROM pg_proc p
         WHERE p.pronamespace = 'public'::regnamespace AND p.prokind IN ('f', 'p')
           AND NOT EXISTS (SELECT 1 FROM pg_depend d
                            WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid
                              AND d.deptype = 'e')""",
    "migrations": "SELECT version, checksum FROM schema_migrations",
}


async def catalog(url: str) -> dict[str, list[tuple[Any, ...]]]:
    connection = await asyncpg.connect(url)
    try:
        return {
            part: sorted(tuple(row) for row in await connection.fetch(query))
            for part, query in CATALOG.items()
        }
    finally:
        await connection.close()


async def migrate_from(url: str, *roots: Path) -> None:
    connection = await asyncpg.connect(url)
    try:
        for root in roots:
            await migrate(connection, root)
    finally:
        await connection.close()


def previous_schema(into: Path) -> Path:
    """schema/ as of PREVIOUS_RELEASE, written under `into`."""
    found = subprocess.run(
        ["git", "cat-file", "-e", f"{PREVIOUS_RELEASE}^{{commit}}"],
        cwd=PROJECT_ROOT,
        capture_output=True,
        check=False,
    )
    if found.returncode != 0:
        pytest.skip(f"this checkout does not hold the previous release {PREVIOUS_RELEASE}")
    archive = into / "previous.tar"
    subprocess.run(
        ["git", "archive", "--output", str(archive), PREVIOUS_RELEASE, "schema"],
        cwd=PROJECT_ROOT,
        check=True,
    )
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    return into / "schema"


@pytest.fixture(scope="module")
def databases() -> Iterator[tuple[str, str]]:
    """(upgraded, fresh): two scratch databases in the project's cluster, migrated."""
    cluster.start()
    names = [f"upgrade_test_{uuid.uuid4().hex[:8]}", f"fresh_test_{uuid.uuid4().hex[:8]}"]
    for name in names:
        cluster.ensure_database(name)
    try:
        yield cluster.database_url(names[0]), cluster.database_url(names[1])
    finally:
        for name in names:
            drop_database(name)


@pytest.fixture(scope="module")
async def fresh(databases: tuple[str, str]) -> AsyncIterator[str]:
    await migrate_from(databases[1], SCHEMA_DIR)
    yield databases[1]


async def test_an_upgraded_database_equals_a_fresh_one(
    databases: tuple[str, str], fresh: str
) -> None:
    upgraded = databases[0]
    with tempfile.TemporaryDirectory() as folder:
        await migrate_from(upgraded, previous_schema(Path(folder)), SCHEMA_DIR)
    before, after = await catalog(upgraded), await catalog(fresh)
    assert before["migrations"] == after["migrations"]
    assert len(after["functions"]) > 50 and len(after["columns"]) > 100
    for part in CATALOG:
        only_upgraded = sorted(set(before[part]) - set(after[part]))
        only_fresh = sorted(set(after[part]) - set(before[part]))
        assert (only_upgraded, only_fresh) == ([], []), part


def named_in_source() -> tuple[set[str], dict[str, set[str]]]:
    """(the functions schema/ writes out, the generated ones by template)."""
    written: set[str] = set()
    listed: dict[str, set[str]] = {}
    for path in sorted(SCHEMA_DIR.rglob("*.sql")):
        text = path.read_text()
        written |= {name for name in WRITTEN.findall(text) if "%" not in name}
        template = None
        for line in text.splitlines():
            if match := LISTED.match(line):
                template = match.group(1)
                names = match.group(2)
            elif template and (more := LISTED_MORE.match(line)):
                names = more.group(1)
            else:
                template = None
                continue
            listed.setdefault(template, set()).update(
                n.strip() for n in names.split(",") if n.strip()
            )
    return written, listed


async def test_every_function_is_named_in_schema(fresh: str) -> None:
    """grep finds every function: written out, or listed beside its template. A listed
    name the database lacks is a stale list."""
    written, listed = named_in_source()
    generated = set().union(*listed.values())
    assert {"reads", "readings"} <= set(listed)
    connection = await asyncpg.connect(fresh)
    try:
        rows = await connection.fetch(CATALOG["functions"])
    finally:
        await connection.close()
    in_database = {row["proname"] for row in rows}
    assert sorted(in_database - written - generated) == []
    assert sorted(generated - in_database) == []
