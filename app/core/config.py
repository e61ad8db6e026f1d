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
| CURSOR_SECRET | cursor_secret | unset (a random secret kept in the database signs cursors) |
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
import math
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

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
    # The secret POST /query cursors are signed with (a key derived from it, HMAC-SHA256;
    # app/query/cursor.py). Unset: a random secret made once in the database, shared by
    # every instance of it; set it to keep cursors valid across databases (placement) or
    # to rotate it (rotating refuses the cursors given before).
    cursor_secret: str | None = None
    # Browser origins (`https://dash.example.com`, or `*`) whose pages may call every
    # /api/v1 route (analytics.md section 4, app/live/cors.py); none by default.
    cors_origins: tuple[str, ...] = ()
    # Serve the live page (/live/, app/live/page.py); the demo turns it on.
    live_page: bool = False


def local_database_url(database: str = "telemetry", port: int | None = None) -> str:
    """The URL of the project's own cluster started by `telemetry db start`."""
    port = settings().db_port if port is None else port
    return f"postgresql://telemetry@127.0.0.1:{port}/{database}"


def mask_password(url: str) -> str:
    """The URL with its password (if any) replaced by `***`, as every command and log shows
    a database URL. Read as text rather than by urllib: a libpq URL may name several hosts
    (`h1:5432,h2:5432`), whose port urllib cannot read, and the hosts stay as written."""
    scheme, separator, rest = url.partition("://")
    end = min((rest.find(c) for c in "/?#" if c in rest), default=len(rest))
    credentials, at, hosts = rest[:end].rpartition("@")
    user, colon, _password = credentials.partition(":")
    if not (separator and at and colon):
        return url
    return f"{scheme}://{user}:***@{hosts}{rest[end:]}"


def read_urls(text: str) -> tuple[str, ...]:
    """DATABASE_READ_URL: one or more standby URLs, comma-separated."""
    return tuple(url.strip() for url in text.split(",") if url.strip())


class SettingError(ValueError):
    """An environment variable the service cannot use. Its text is one line naming the
    variable, the value and what it accepts; the command line prints it and exits with 2."""


class Variable(msgspec.Struct, frozen=True):
    """One environment variable: the Settings field it sets, how its text is read, and the
    values it accepts, as said to an operator who got it wrong."""

    name: str
    field: str
    parse: Callable[[str], Any]
    accepts: str
    # The value when the variable is unset, where it differs from the field's default.
    unset: Any = None


def integer(low: int, high: int | None = None) -> tuple[Callable[[str], int], str]:
    def parse(text: str) -> int:
        value = int(text.strip())
        if value < low or (high is not None and value > high):
            raise ValueError
        return value

    bounds = f"from {low} to {high}" if high is not None else f"of at least {low}"
    return parse, f"an integer {bounds}"


def number(low: float, *, above: bool) -> tuple[Callable[[str], float], str]:
    """A finite number at or above `low` (strictly above when `above`)."""

    def parse(text: str) -> float:
        value = float(text.strip())
        if not math.isfinite(value) or value < low or (above and value == low):
            raise ValueError
        return value

    return parse, f"a number {'above' if above else 'of at least'} {low:g}"


FLAG_WORDS = {"1": True, "on": True, "true": True, "yes": True}
FLAG_WORDS |= {"0": False, "off": False, "false": False, "no": False}


def flag() -> tuple[Callable[[str], bool], str]:
    def parse(text: str) -> bool:
        return FLAG_WORDS[text.strip().lower()]

    return parse, "1/on/true/yes or 0/off/false/no"


def choice(*words: str) -> tuple[Callable[[str], str], str]:
    def parse(text: str) -> str:
        word = text.strip().lower()
        if word not in words:
            raise ValueError
        return word

    return parse, "one of " + ", ".join(words) + " (any case)"


def free_text() -> tuple[Callable[[str], str | None], str]:
    """Free text; empty is the same as unset (the field's default)."""
    return (lambda value: value or None), "any text"


def variable(
    name: str, field: str, kind: tuple[Callable[[str], Any], str], unset: Any = None
) -> Variable:
    return Variable(name=name, field=field, parse=kind[0], accepts=kind[1], unset=unset)


PORT = integer(1, 65535)
POSITIVE_SECONDS = number(0.0, above=True)
# Every variable the service reads, in the order of the table above. Defaults live only in
# Settings: a variable that is unset leaves its field's default.
VARIABLES = (
    variable("STATEMENT_TIMEOUT_MS", "statement_timeout_ms", integer(1)),
    variable("DB_POOL_MIN", "pool_min_size", integer(0)),
    variable("DB_POOL_MAX", "pool_max_size", integer(1)),
    variable("TELEMETRY_DB_PORT", "db_port", PORT),
    variable("TELEMETRY_PGDATA", "pgdata", free_text()),
    variable("TELEMETRY_AUTH_CACHE", "auth_cache", flag()),
    variable("TELEMETRY_WORKERS", "workers", integer(1)),
    variable("TELEMETRY_LEASE_EXACT_BELOW", "lease_exact_below", integer(0)),
    variable("TELEMETRY_COMPACT_CHUNKS", "compact_chunks", flag()),
    variable("TELEMETRY_PACK_AFTER_S", "pack_after_s", number(0.0, above=False)),
    variable("TELEMETRY_DEBUG", "debug", flag()),
    variable("TELEMETRY_WEBHOOK_RETRY_SCALE", "webhook_retry_scale", number(0.0, above=True)),
    variable("TELEMETRY_WEBHOOK_TIMEOUT_S", "webhook_timeout_s", POSITIVE_SECONDS),
    variable("TELEMETRY_WEBHOOK_CONCURRENCY", "webhook_concurrency", integer(1)),
    variable("TELEMETRY_WEBHOOKS_ALLOW_PRIVATE", "webhooks_allow_private", flag()),
    # In-process apps (tests) run no dispatcher unless asked; a command run by an operator does.
    variable("TELEMETRY_WEBHOOK_DISPATCHER", "webhook_dispatcher", flag(), unset=True),
    variable("EXPORT_TIMEOUT_MS", "export_timeout_ms", integer(1)),
    variable("EXPORT_STALL_S", "export_stall_s", POSITIVE_SECONDS),
    variable("EXPORT_CONCURRENCY", "export_concurrency", integer(1)),
    variable("DATABASE_READ_URL", "database_read_urls", (read_urls, "comma-separated URLs")),
    variable("TELEMETRY_MAX_STALENESS", "max_staleness_s", number(0.0, above=False)),
    variable("TELEMETRY_PLACEMENT", "placement_file", free_text()),
    variable("DATABASE_LISTEN_URL", "database_listen_url", free_text()),
    variable("DB_STATEMENT_CACHE", "statement_cache_size", integer(0)),
    variable("TELEMETRY_MQTT_INGEST", "mqtt_ingest", flag()),
    variable("TELEMETRY_DOWNLINK_DISPATCH", "downlink_dispatch", flag()),
    variable("TELEMETRY_CHIRPSTACK_TIMEOUT_S", "chirpstack_timeout_s", POSITIVE_SECONDS),
    variable("TELEMETRY_DISPATCH_BACKOFF_S", "dispatch_backoff_s", POSITIVE_SECONDS),
    variable("TELEMETRY_MQTT_PORT", "mqtt_port", PORT),
    variable("TELEMETRY_MQTT_DIR", "mqtt_dir", free_text()),
    variable("DB_CONNECT_TIMEOUT_S", "db_connect_timeout_s", POSITIVE_SECONDS),
    variable("DB_ACQUIRE_TIMEOUT_S", "db_acquire_timeout_s", POSITIVE_SECONDS),
    variable("DB_COMMAND_TIMEOUT_S", "db_command_timeout_s", POSITIVE_SECONDS),
    variable("HEALTH_TIMEOUT_S", "health_timeout_s", POSITIVE_SECONDS),
    variable("LOG_FORMAT", "log_format", choice("json", "console")),
    variable("LOG_LEVEL", "log_level", choice("debug", "info", "warning", "error")),
    variable("ACCESS_LOG", "access_log", flag()),
    variable("METRICS_PORT", "metrics_port", integer(0, 65535)),
    variable("METRICS_HOST", "metrics_host", free_text()),
    variable("CURSOR_SECRET", "cursor_secret", free_text()),
    variable("CORS_ORIGINS", "cors_origins", (read_urls, "comma-separated origins or *")),
    variable("TELEMETRY_LIVE_PAGE", "live_page", flag()),
)


DEFAULTS = {
    field.name: field.default
    for field in msgspec.structs.fields(Settings)
    if field.default is not msgspec.NODEFAULT
}


def read_variable(env: Mapping[str, str], spec: Variable) -> Any:
    """The value of one variable, or SettingError naming it, its value and what it accepts.
    An empty value is refused for a typed variable, as `METRICS_PORT=` is more likely a
    mistake than a wish for the default; unset it for that."""
    raw = env[spec.name]
    try:
        return spec.parse(raw)
    except (ValueError, KeyError):
        default = DEFAULTS.get(spec.field)
        hint = "" if default is None else f"; unset it for the default, {default!r}"
        raise SettingError(
            f"{spec.name}={raw!r} is not valid: expected {spec.accepts}{hint}"
        ) from None


def load_settings(environ: Mapping[str, str] | None = None) -> Settings:
    """Settings from `environ` (the process environment when None): every variable of
    VARIABLES that is set is checked and read; SettingError names the first that is wrong."""
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    for spec in VARIABLES:
        value = read_variable(env, spec) if spec.name in env else spec.unset
        if value is not None:
            values[spec.field] = value
    if values.get("log_level"):
        values["log_level"] = values["log_level"].upper()
    port = values.get("db_port", DEFAULT_PORT)
    values["database_url"] = env.get("DATABASE_URL") or local_database_url(port=port)
    loaded = Settings(**values)
    if loaded.pool_min_size > loaded.pool_max_size:
        raise SettingError(
            f"DB_POOL_MIN={loaded.pool_min_size} is not valid: expected at most "
            f"DB_POOL_MAX ({loaded.pool_max_size})"
        )
    return loaded


@functools.cache
def settings() -> Settings:
    """The process's Settings, read from the environment on first use."""
    return load_settings()
