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
    # LOG_FORMAT: `json` (one JSON object per line, for machines) or `console` (for humans).
    log_format: str = "json"
    # LOG_LEVEL: the least severe level written (DEBUG, INFO, WARNING, ERROR).
    log_level: str = "INFO"
    # ACCESS_LOG: one line per request (`on`, the default) or none (`off`).
    access_log: bool = True
    # METRICS_PORT: the separate, keyless Prometheus port of `telemetry serve`; 0 turns
    # the metrics off altogether (nothing is counted).
    metrics_port: int = 9464
    # METRICS_HOST: where that port listens; loopback unless an operator opens it.
    metrics_host: str = "127.0.0.1"


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
        log_format=os.environ.get("LOG_FORMAT", "json").strip().lower(),
        log_level=os.environ.get("LOG_LEVEL", "INFO").strip().upper(),
        access_log=os.environ.get("ACCESS_LOG", "on").strip().lower() not in ("off", "0", "false"),
        metrics_port=int(os.environ.get("METRICS_PORT", 9464)),
        metrics_host=os.environ.get("METRICS_HOST", "127.0.0.1"),
    )
