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
    # Export (integrations.md section 4): the bounds of one request, the statement timeout
    # of its stream and of its size count, and how long a client may stop reading.
    export_max_devices: int = 10_000
    export_max_readings: int = 50_000_000
    export_timeout_ms: int = 3_600_000
    export_count_timeout_ms: int = 60_000
    export_stall_s: float = 60.0
    # Exports streaming at once per worker: each holds a pool connection while it runs.
    export_concurrency: int = 4


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
        export_timeout_ms=int(os.environ.get("EXPORT_TIMEOUT_MS", 3_600_000)),
        export_stall_s=float(os.environ.get("EXPORT_STALL_S", 60.0)),
        export_concurrency=int(os.environ.get("EXPORT_CONCURRENCY", 4)),
    )
