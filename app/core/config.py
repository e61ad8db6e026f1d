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
| LOG_FORMAT | log_format | json (console: readable lines for humans) |
| LOG_LEVEL | log_level | INFO |
| ACCESS_LOG | access_log | on (off: no line per request) |
| METRICS_PORT | metrics_port | 9464 (`serve --metrics-port` overrides; 0: no metrics) |
| METRICS_HOST | metrics_host | 127.0.0.1 |

One variable is not a setting: PROMETHEUS_MULTIPROC_DIR is prometheus-client's own, read
by the library when it is imported; `serve` points it at a fresh directory for its workers
(app/observe/multiproc.py).
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
    # Logs (app/observe/logs.py): `json` (one object per line) or `console` (for humans).
    log_format: str = "json"
    # The least severe level written (DEBUG, INFO, WARNING, ERROR).
    log_level: str = "INFO"
    # One access-log line per request (on) or none (off).
    access_log: bool = True
    # The separate, keyless Prometheus port of `telemetry serve` (app/observe/metrics.py);
    # 0 turns the metrics off altogether (nothing is counted).
    metrics_port: int = 9464
    # Where that port listens: loopback unless an operator opens it.
    metrics_host: str = "127.0.0.1"


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
        log_format=env.get("LOG_FORMAT", "json").strip().lower(),
        log_level=env.get("LOG_LEVEL", "INFO").strip().upper(),
        access_log=env.get("ACCESS_LOG", "on").strip().lower() not in ("off", "0", "false"),
        metrics_port=int(env.get("METRICS_PORT", 9464)),
        metrics_host=env.get("METRICS_HOST", "127.0.0.1"),
    )


@functools.cache
def settings() -> Settings:
    """The process's Settings, read from the environment on first use."""
    return load_settings()
