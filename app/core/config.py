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
| TELEMETRY_PACK_AFTER_S | pack_after_s | 3600 (pack raw weeks closed this long; 0: never) |
| TELEMETRY_DEBUG | debug | unset (set: CLI errors show their traceback) |
| TELEMETRY_WEBHOOK_RETRY_SCALE | webhook_retry_scale | 1.0 (times the retries, 30 d and 5 d) |
| TELEMETRY_WEBHOOK_TIMEOUT_S | webhook_timeout_s | 15 (one delivery attempt) |
| TELEMETRY_WEBHOOK_CONCURRENCY | webhook_concurrency | 8 (attempts under way per endpoint) |
| TELEMETRY_WEBHOOKS_ALLOW_PRIVATE | webhooks_allow_private | unset (1: http, private addresses) |
| TELEMETRY_WEBHOOK_DISPATCHER | webhook_dispatcher | 1 (0: `serve` runs no dispatcher) |
| EXPORT_TIMEOUT_MS | export_timeout_ms | 3600000 (statement timeout of one export's stream) |
| EXPORT_STALL_S | export_stall_s | 60 (a client not reading this long ends its export) |
| EXPORT_CONCURRENCY | export_concurrency | 4 (exports streaming at once per worker) |
| DATABASE_READ_URL | database_read_urls | none (hot standbys for stale-tolerant reads; a, b, ...) |
| TELEMETRY_MAX_STALENESS | max_staleness_s | 1.0 (seconds a standby read may lag the primary) |
| TELEMETRY_PLACEMENT | placement_file | unset (a placement file: tenants across clusters) |
| DATABASE_LISTEN_URL | database_listen_url | DATABASE_URL (LISTEN to the primary past PgBouncer) |
| DB_STATEMENT_CACHE | statement_cache_size | 100 (0 behind a transaction-pooling PgBouncer) |
| TELEMETRY_MQTT_INGEST | mqtt_ingest | 1 (0: `serve` runs no MQTT consumer) |
| TELEMETRY_DOWNLINK_DISPATCH | downlink_dispatch | 1 (0: `serve` runs no downlink dispatcher) |
| TELEMETRY_CHIRPSTACK_TIMEOUT_S | chirpstack_timeout_s | 5.0 (then a call's outcome is unknown) |
| TELEMETRY_DISPATCH_BACKOFF_S | dispatch_backoff_s | 1.0 (first retry delay, doubling up to 60 s) |
| TELEMETRY_MQTT_PORT | mqtt_port | 25883 (the local broker of `telemetry mqtt start`) |
| TELEMETRY_MQTT_DIR | mqtt_dir | `.mosquitto/` in the checkout |
| DB_CONNECT_TIMEOUT_S | db_connect_timeout_s | 3.0 (opening a database connection) |
| DB_ACQUIRE_TIMEOUT_S | db_acquire_timeout_s | 3.0 (waiting for a pooled connection) |
| DB_COMMAND_TIMEOUT_S | db_command_timeout_s | 6.0 (one statement, as the client sees it) |
| HEALTH_TIMEOUT_S | health_timeout_s | 2.0 (the whole of `/health`'s database check) |
| LOG_FORMAT | log_format | json (console: readable lines for humans) |
| LOG_LEVEL | log_level | INFO |
| ACCESS_LOG | access_log | on (off: no line per request) |
| METRICS_PORT | metrics_port | 9464 (`serve --metrics-port` overrides; 0: no metrics) |
| METRICS_HOST | metrics_host | 127.0.0.1 |
| CORS_ORIGINS | cors_origins | none (browser origins allowed to call /api/v1: a, b, ...) |
| TELEMETRY_LIVE_PAGE | live_page | unset (1: serve the live page at /live/, app/live/page.py) |

One variable is not a setting: PROMETHEUS_MULTIPROC_DIR is prometheus-client's own, read
by the library when it is imported; `serve` points it at a fresh directory for its workers
(app/observe/multiproc.py).

`latest_generations` has no variable: `telemetry serve` sets it for its workers (the path
of the instance's /latest generation table, app/telemetry/generations.py).
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
DEFAULT_MQTT_PORT = 25883


class Settings(msgspec.Struct, frozen=True):
    database_url: str
    statement_timeout_ms: int = 5000
    pool_min_size: int = 2
    pool_max_size: int = 10
    # The largest request body accepted (not configurable: the API's bodies are small).
    max_body_bytes: int = 64 * 1024
    # Bounded waits on the database (issue 11, defect 4): opening a connection, waiting for
    # a pooled one, and a statement as seen by the client (a little above the server's
    # statement_timeout, so a live server's own cancellation is the one normally seen).
    # Past any of them the request is 503 `unavailable` with Retry-After.
    db_connect_timeout_s: float = 3.0
    db_acquire_timeout_s: float = 3.0
    db_command_timeout_s: float = 6.0
    health_timeout_s: float = 2.0
    # The shared-memory table by which the workers of one `serve` instance see each other's
    # new /latest bodies at once (app/telemetry/generations.py); "" for a private table.
    latest_generations: str = ""
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
    # How long a week of raw readings stays closed before the retention loop packs it
    # (late uplinks arrive within minutes); 0 leaves packing to `retention run --pack`.
    pack_after_s: float = 3600.0
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
    # Export (integrations.md section 4): the bounds of one request (not configurable: they
    # are the contract's), the statement timeout of its stream and of its size count, and
    # how long a client may stop reading.
    export_max_devices: int = 10_000
    export_max_readings: int = 50_000_000
    export_timeout_ms: int = 3_600_000
    export_count_timeout_ms: int = 60_000
    export_stall_s: float = 60.0
    # Exports streaming at once per worker: each holds a pool connection while it runs.
    export_concurrency: int = 4
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
    # Background work of `telemetry serve` (integrations.md 2.1 and 3): the MQTT consumers
    # and the downlink dispatcher. Each runs once across all workers and instances.
    mqtt_ingest: bool = True
    downlink_dispatch: bool = True
    # Seconds a ChirpStack gRPC call may take before its outcome counts as unknown.
    chirpstack_timeout_s: float = 5.0
    # First retry delay of a downlink after a retryable failure; doubles up to 60 s.
    dispatch_backoff_s: float = 1.0
    # The local Mosquitto of `telemetry mqtt start|stop` (app/ops/broker.py).
    mqtt_port: int = DEFAULT_MQTT_PORT
    mqtt_dir: str = str(PROJECT_ROOT / ".mosquitto")
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
    # Browser origins (`https://dash.example.com`, or `*`) whose pages may call every
    # /api/v1 route (analytics.md section 4, app/live/cors.py); none by default.
    cors_origins: tuple[str, ...] = ()
    # Serve the live page (/live/, app/live/page.py); the demo turns it on.
    live_page: bool = False


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
        pack_after_s=float(env.get("TELEMETRY_PACK_AFTER_S", 3600.0)),
        debug=bool(env.get("TELEMETRY_DEBUG")),
        webhook_retry_scale=float(env.get("TELEMETRY_WEBHOOK_RETRY_SCALE", 1.0)),
        webhook_timeout_s=float(env.get("TELEMETRY_WEBHOOK_TIMEOUT_S", 15.0)),
        webhook_concurrency=int(env.get("TELEMETRY_WEBHOOK_CONCURRENCY", 8)),
        webhooks_allow_private=env.get("TELEMETRY_WEBHOOKS_ALLOW_PRIVATE") == "1",
        webhook_dispatcher=env.get("TELEMETRY_WEBHOOK_DISPATCHER", "1") != "0",
        export_timeout_ms=int(env.get("EXPORT_TIMEOUT_MS", 3_600_000)),
        export_stall_s=float(env.get("EXPORT_STALL_S", 60.0)),
        export_concurrency=int(env.get("EXPORT_CONCURRENCY", 4)),
        database_read_urls=read_urls(env.get("DATABASE_READ_URL", "")),
        max_staleness_s=float(env.get("TELEMETRY_MAX_STALENESS", 1.0)),
        placement_file=env.get("TELEMETRY_PLACEMENT") or None,
        database_listen_url=env.get("DATABASE_LISTEN_URL") or None,
        statement_cache_size=int(env.get("DB_STATEMENT_CACHE", 100)),
        mqtt_ingest=env.get("TELEMETRY_MQTT_INGEST", "1") != "0",
        downlink_dispatch=env.get("TELEMETRY_DOWNLINK_DISPATCH", "1") != "0",
        chirpstack_timeout_s=float(env.get("TELEMETRY_CHIRPSTACK_TIMEOUT_S", 5.0)),
        dispatch_backoff_s=float(env.get("TELEMETRY_DISPATCH_BACKOFF_S", 1.0)),
        mqtt_port=int(env.get("TELEMETRY_MQTT_PORT", DEFAULT_MQTT_PORT)),
        mqtt_dir=env.get("TELEMETRY_MQTT_DIR") or str(PROJECT_ROOT / ".mosquitto"),
        db_connect_timeout_s=float(env.get("DB_CONNECT_TIMEOUT_S", 3.0)),
        db_acquire_timeout_s=float(env.get("DB_ACQUIRE_TIMEOUT_S", 3.0)),
        db_command_timeout_s=float(env.get("DB_COMMAND_TIMEOUT_S", 6.0)),
        health_timeout_s=float(env.get("HEALTH_TIMEOUT_S", 2.0)),
        log_format=env.get("LOG_FORMAT", "json").strip().lower(),
        log_level=env.get("LOG_LEVEL", "INFO").strip().upper(),
        access_log=env.get("ACCESS_LOG", "on").strip().lower() not in ("off", "0", "false"),
        metrics_port=int(env.get("METRICS_PORT", 9464)),
        metrics_host=env.get("METRICS_HOST", "127.0.0.1"),
        cors_origins=read_urls(env.get("CORS_ORIGINS", "")),
        live_page=env.get("TELEMETRY_LIVE_PAGE") == "1",
    )


def read_urls(text: str) -> tuple[str, ...]:
    """DATABASE_READ_URL: one or more standby URLs, comma-separated."""
    return tuple(url.strip() for url in text.split(",") if url.strip())


@functools.cache
def settings() -> Settings:
    """The process's Settings, read from the environment on first use."""
    return load_settings()
