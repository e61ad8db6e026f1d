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
    # Webhooks (integrations.md 1.3): the retry schedule, the 30 days and the 5 days are
    # multiplied by the scale; timeouts and Retry-After are not.
    webhook_retry_scale: float = 1.0
    webhook_timeout_s: float = 15.0
    webhook_concurrency: int = 8
    webhooks_allow_private: bool = False
    # In-process apps (tests) run no dispatcher unless asked; `telemetry serve` does.
    webhook_dispatcher: bool = False


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
        webhook_retry_scale=float(os.environ.get("TELEMETRY_WEBHOOK_RETRY_SCALE", 1.0)),
        webhook_timeout_s=float(os.environ.get("TELEMETRY_WEBHOOK_TIMEOUT_S", 15.0)),
        webhook_concurrency=int(os.environ.get("TELEMETRY_WEBHOOK_CONCURRENCY", 8)),
        webhooks_allow_private=os.environ.get("TELEMETRY_WEBHOOKS_ALLOW_PRIVATE") == "1",
        webhook_dispatcher=os.environ.get("TELEMETRY_WEBHOOK_DISPATCHER", "1") != "0",
    )
