"""The one Settings object: every environment variable of the service, read once.

`settings()` reads the environment the first time it is called and keeps the result for
the process; everything else receives a `Settings` (the app factory, the pool, the caches,
the cluster commands), so tests and the CLI can pass their own. Workers started by
`telemetry serve` get the parent's Settings by argument (app/main.py `load_app`), never
through the environment.

| variable | field | default |
|---|---|---|
| DATABASE_URL | database_url | the project's own cluster on 127.0.0.1:TELEMETRY_DB_PORT |
| STATEMENT_TIMEOUT_MS | statement_timeout_ms | 5000 |
| DB_POOL_MIN / DB_POOL_MAX | pool_min_size / pool_max_size | 2 / 10 |
| TELEMETRY_DB_PORT | db_port | 25432 |
| TELEMETRY_PGDATA | pgdata | `.pgdata/` in the checkout |
| TELEMETRY_AUTH_CACHE | auth_cache | 1 (0: authenticate every request in SQL) |
| TELEMETRY_WORKERS | workers | 2 (`serve --workers` sets it for its workers) |
| TELEMETRY_LEASE_EXACT_BELOW | lease_exact_below | 1024 |
| TELEMETRY_COMPACT_CHUNKS | compact_chunks | 1 (0: compaction only by `retention run --compact`) |
| TELEMETRY_DEBUG | debug | unset (set: CLI errors show their traceback) |
| TELEMETRY_WEBHOOK_RETRY_SCALE | webhook_retry_scale | 1.0 (times the retries, 30 d and 5 d) |
| TELEMETRY_WEBHOOK_TIMEOUT_S | webhook_timeout_s | 15 (one delivery attempt) |
| TELEMETRY_WEBHOOK_CONCURRENCY | webhook_concurrency | 8 (attempts under way per endpoint) |
| TELEMETRY_WEBHOOKS_ALLOW_PRIVATE | webhooks_allow_private | unset (1: http, private addresses) |
| TELEMETRY_WEBHOOK_DISPATCHER | webhook_dispatcher | 1 (0: `serve` runs no dispatcher) |
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
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
    # The largest request body accepted (not configurable: the API's bodies are small).
    max_body_bytes: int = 64 * 1024
    # The local cluster of `telemetry db start|stop`.
    db_port: int = DEFAULT_PORT
    pgdata: str = str(PROJECT_ROOT / ".pgdata")
    # The per-worker key and /latest caches (app/auth/cache.py); off: SQL per request.
    auth_cache: bool = True
    # How many workers share the rate-limit budgets (leases are split between them).
    workers: int = 2
    # Below this many permits left a key's permits are leased one at a time (exact).
    lease_exact_below: int = 1024
    # Whether the retention loop also compacts one closed chunk per run.
    compact_chunks: bool = True
    # CLI errors re-raised with their traceback.
    debug: bool = False
    # Webhooks (integrations.md 1.3): the retry schedule, the 30 days and the 5 days are
    # multiplied by the scale; timeouts and Retry-After are not.
    webhook_retry_scale: float = 1.0
    webhook_timeout_s: float = 15.0
    webhook_concurrency: int = 8
    webhooks_allow_private: bool = False
    # In-process apps (tests) run no dispatcher unless asked; `telemetry serve` does.
    webhook_dispatcher: bool = False


def local_database_url(database: str = "telemetry", port: int | None = None) -> str:
    """The URL of the project's own cluster started by `telemetry db start`."""
    port = settings().db_port if port is None else port
    return f"postgresql://telemetry@127.0.0.1:{port}/{database}"


def load_settings(environ: Mapping[str, str] | None = None) -> Settings:
    """Settings from `environ` (the process environment when None)."""
    env = os.environ if environ is None else environ
    port = int(env.get("TELEMETRY_DB_PORT", DEFAULT_PORT))
    return Settings(
        database_url=env.get("DATABASE_URL") or local_database_url(port=port),
        statement_timeout_ms=int(env.get("STATEMENT_TIMEOUT_MS", 5000)),
        pool_min_size=int(env.get("DB_POOL_MIN", 2)),
        pool_max_size=int(env.get("DB_POOL_MAX", 10)),
        db_port=port,
        pgdata=env.get("TELEMETRY_PGDATA") or str(PROJECT_ROOT / ".pgdata"),
        auth_cache=env.get("TELEMETRY_AUTH_CACHE", "1") != "0",
        workers=max(int(env.get("TELEMETRY_WORKERS", 2)), 1),
        lease_exact_below=int(env.get("TELEMETRY_LEASE_EXACT_BELOW", 1024)),
        compact_chunks=env.get("TELEMETRY_COMPACT_CHUNKS", "1") != "0",
        debug=bool(env.get("TELEMETRY_DEBUG")),
        webhook_retry_scale=float(env.get("TELEMETRY_WEBHOOK_RETRY_SCALE", 1.0)),
        webhook_timeout_s=float(env.get("TELEMETRY_WEBHOOK_TIMEOUT_S", 15.0)),
        webhook_concurrency=int(env.get("TELEMETRY_WEBHOOK_CONCURRENCY", 8)),
        webhooks_allow_private=env.get("TELEMETRY_WEBHOOKS_ALLOW_PRIVATE") == "1",
        webhook_dispatcher=env.get("TELEMETRY_WEBHOOK_DISPATCHER", "1") != "0",
    )


@functools.cache
def settings() -> Settings:
    """The process's Settings, read from the environment on first use."""
    return load_settings()
