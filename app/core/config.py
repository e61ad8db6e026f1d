"""Settings read once from the environment."""

from __future__ import annotations

import os
from pathlib import Path

import msgspec

PROJECT_ROOT = Path(__file__).resolve().parents[2]
# Below Linux's ephemeral range (32768-60999), so an outgoing connection cannot hold it.
DEFAULT_PORT = 25432


class Settings(msgspec.Struct, frozen=True):
    database_url: str
    statement_timeout_ms: int = 5000
    pool_min_size: int = 2
    pool_max_size: int = 10
    max_body_bytes: int = 64 * 1024
    # Hot standbys for stale-tolerant reads and the bound on their staleness
    # (app/core/routing.py); a placement file for tenants across clusters (app/core/placement.py).
    database_read_urls: tuple[str, ...] = ()
    max_staleness_s: float = 1.0
    placement_file: str | None = None
    # Through a transaction-pooling PgBouncer: LISTEN needs a direct connection to the
    # primary (DATABASE_LISTEN_URL), and asyncpg's named prepared statements must be off
    # (DB_STATEMENT_CACHE=0), as a statement prepared on one server connection is unknown
    # on the next.
    database_listen_url: str | None = None
    statement_cache_size: int = 100


def local_database_url(database: str = "telemetry") -> str:
    """The URL of the project's own cluster started by `telemetry db start`."""
    port = int(os.environ.get("TELEMETRY_DB_PORT", DEFAULT_PORT))
    return f"postgresql://telemetry@127.0.0.1:{port}/{database}"


def load_settings() -> Settings:
    return Settings(
        database_url=os.environ.get("DATABASE_URL") or local_database_url(),
        statement_timeout_ms=int(os.environ.get("STATEMENT_TIMEOUT_MS", 5000)),
        pool_min_size=int(os.environ.get("DB_POOL_MIN", 2)),
        pool_max_size=int(os.environ.get("DB_POOL_MAX", 10)),
        database_read_urls=read_urls(os.environ.get("DATABASE_READ_URL", "")),
        max_staleness_s=float(os.environ.get("TELEMETRY_MAX_STALENESS", 1.0)),
        placement_file=os.environ.get("TELEMETRY_PLACEMENT") or None,
        database_listen_url=os.environ.get("DATABASE_LISTEN_URL") or None,
        statement_cache_size=int(os.environ.get("DB_STATEMENT_CACHE", 100)),
    )


def read_urls(text: str) -> tuple[str, ...]:
    """DATABASE_READ_URL: one or more standby URLs, comma-separated."""
    return tuple(url.strip() for url in text.split(",") if url.strip())
