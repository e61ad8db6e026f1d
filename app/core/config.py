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
    # Bounded waits on the database (issue 11, defect 4): opening a connection, waiting for
    # a pooled one, and a statement as seen by the client (a little above the server's
    # statement_timeout, so a live server's own cancellation is the one normally seen).
    # Past any of them the request is 503 `unavailable` with Retry-After.
    db_connect_timeout_s: float = 3.0
    db_acquire_timeout_s: float = 3.0
    db_command_timeout_s: float = 6.0
    health_timeout_s: float = 2.0


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
        db_connect_timeout_s=float(os.environ.get("DB_CONNECT_TIMEOUT_S", 3.0)),
        db_acquire_timeout_s=float(os.environ.get("DB_ACQUIRE_TIMEOUT_S", 3.0)),
        db_command_timeout_s=float(os.environ.get("DB_COMMAND_TIMEOUT_S", 6.0)),
        health_timeout_s=float(os.environ.get("HEALTH_TIMEOUT_S", 2.0)),
    )
