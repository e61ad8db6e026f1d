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
    # Background work of `telemetry serve` (integrations.md 2.1 and 3): the MQTT consumers
    # and the downlink dispatcher. Each runs once across all workers and instances.
    mqtt_ingest: bool = True
    downlink_dispatch: bool = True
    # Seconds a ChirpStack gRPC call may take before its outcome counts as unknown.
    chirpstack_timeout_s: float = 5.0
    # First retry delay of a downlink after a retryable failure; doubles up to 60 s.
    dispatch_backoff_s: float = 1.0


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
        mqtt_ingest=os.environ.get("TELEMETRY_MQTT_INGEST", "1") != "0",
        downlink_dispatch=os.environ.get("TELEMETRY_DOWNLINK_DISPATCH", "1") != "0",
        chirpstack_timeout_s=float(os.environ.get("TELEMETRY_CHIRPSTACK_TIMEOUT_S", 5.0)),
        dispatch_backoff_s=float(os.environ.get("TELEMETRY_DISPATCH_BACKOFF_S", 1.0)),
    )
