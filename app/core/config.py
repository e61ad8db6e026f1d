"""The one Settings object: every environment variable of the service, read once.

`settings()` reads the environment the first time it is called and keeps the result for
the process; everything else receives a `Settings` (the app factory, the pool, the caches,
the cluster commands), so tests and the CLI can pass their own. Workers started by
`telemetry serve` get the parent's Settings by argument (app/main.py `load_app`), never
through the environment.

Each field is declared once, in `Settings`: its type, its default, and (in
`variable(...)`) the variable that sets it, how its text is read and what the default
means; the table below, the list `VARIABLES` and the defaults the command line's help
quotes are all read from there.

{table}

One variable is not a setting: PROMETHEUS_MULTIPROC_DIR is prometheus-client's own, read
by the library when it is imported; `serve` points it at a fresh directory for its workers
(app/observe/multiproc.py).

`latest_generations` has no variable: `telemetry serve` sets it for its workers (the path
of the instance's /latest generation table, app/latest/generations.py).
"""

from __future__ import annotations

import functools
import math
import os
import typing
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Annotated, Any

import msgspec

PROJECT_ROOT = Path(__file__).resolve().parents[2]
# Below Linux's ephemeral range (32768-60999), so an outgoing connection cannot hold it.
DEFAULT_PORT = 25432
DEFAULT_MQTT_PORT = 25883


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
    # What the table says after the default: what it means, or what another value does.
    note: str = ""
    # The default as the table shows it, where the value itself is computed (paths).
    shown: str | None = None


def variable(
    name: str,
    kind: tuple[Callable[[str], Any], str],
    note: str = "",
    *,
    unset: Any = None,
    shown: str | None = None,
) -> Variable:
    """The variable of a Settings field, declared beside it (its `field` is filled in from
    the declaration)."""
    return Variable(
        name=name, field="", parse=kind[0], accepts=kind[1], unset=unset, note=note, shown=shown
    )


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


def read_urls(text: str) -> tuple[str, ...]:
    """DATABASE_READ_URL: one or more standby URLs, comma-separated."""
    return tuple(url.strip() for url in text.split(",") if url.strip())


PORT = integer(1, 65535)
POSITIVE_SECONDS = number(0.0, above=True)


class Settings(msgspec.Struct, frozen=True):
    """Every setting, in the order of the table (the order variables are checked in)."""

    # Read apart from the variables: its default is built from the cluster's port.
    database_url: str
    statement_timeout_ms: Annotated[int, variable("STATEMENT_TIMEOUT_MS", integer(1))] = 5000
    pool_min_size: Annotated[int, variable("DB_POOL_MIN", integer(0))] = 2
    pool_max_size: Annotated[int, variable("DB_POOL_MAX", integer(1))] = 10
    # The shared-memory table by which the workers of one `serve` instance see each other's
    # new /latest bodies at once (app/latest/generations.py); "" for a private table.
    latest_generations: str = ""
    # The local cluster of `telemetry db start|stop`.
    db_port: Annotated[int, variable("TELEMETRY_DB_PORT", PORT)] = DEFAULT_PORT
    pgdata: Annotated[
        str, variable("TELEMETRY_PGDATA", free_text(), shown="`.pgdata/` in the checkout")
    ] = str(PROJECT_ROOT / ".pgdata")
    # The per-worker key and /latest caches (app/auth/cache.py); off: SQL per request.
    auth_cache: Annotated[
        bool, variable("TELEMETRY_AUTH_CACHE", flag(), "0: authenticate every request in SQL")
    ] = True
    # How many workers share the rate-limit budgets (leases are split between them).
    workers: Annotated[
        int, variable("TELEMETRY_WORKERS", integer(1), "`serve --workers` sets it for its workers")
    ] = 2
    # Below this many permits left a key's permits are leased one at a time (exact).
    lease_exact_below: Annotated[int, variable("TELEMETRY_LEASE_EXACT_BELOW", integer(0))] = 1024
    # Whether the retention loop also compacts one closed chunk per run.
    compact_chunks: Annotated[
        bool,
        variable(
            "TELEMETRY_COMPACT_CHUNKS", flag(), "0: compaction only by `retention run --compact`"
        ),
    ] = True
    # How long a week of raw readings stays closed before the retention loop packs it
    # (late uplinks arrive within minutes); 0 leaves packing to `retention run --pack`.
    pack_after_s: Annotated[
        float,
        variable(
            "TELEMETRY_PACK_AFTER_S",
            number(0.0, above=False),
            "pack raw weeks closed this long; 0: never",
        ),
    ] = 3600.0
    # CLI errors re-raised with their traceback.
    debug: Annotated[
        bool, variable("TELEMETRY_DEBUG", flag(), "set: CLI errors show their traceback")
    ] = False
    # Webhooks (integrations.md 1.3): the retry schedule, the 30 days and the 5 days are
    # multiplied by the scale; timeouts and Retry-After are not.
    webhook_retry_scale: Annotated[
        float,
        variable(
            "TELEMETRY_WEBHOOK_RETRY_SCALE",
            number(0.0, above=True),
            "times the retries, 30 d and 5 d",
        ),
    ] = 1.0
    webhook_timeout_s: Annotated[
        float, variable("TELEMETRY_WEBHOOK_TIMEOUT_S", POSITIVE_SECONDS, "one delivery attempt")
    ] = 15.0
    webhook_concurrency: Annotated[
        int,
        variable("TELEMETRY_WEBHOOK_CONCURRENCY", integer(1), "attempts under way per endpoint"),
    ] = 8
    webhooks_allow_private: Annotated[
        bool, variable("TELEMETRY_WEBHOOKS_ALLOW_PRIVATE", flag(), "1: http, private addresses")
    ] = False
    # In-process apps (tests) run no dispatcher unless asked; a command run by an operator
    # (`telemetry serve`) does: the variable's default differs from the field's.
    webhook_dispatcher: Annotated[
        bool,
        variable(
            "TELEMETRY_WEBHOOK_DISPATCHER", flag(), "0: `serve` runs no dispatcher", unset=True
        ),
    ] = False
    # Export (integrations.md section 4): the bounds of one request (not configurable: they
    # are the contract's), the statement timeout of its stream and of its size count, and
    # how long a client may stop reading.
    export_max_devices: int = 10_000
    export_max_readings: int = 50_000_000
    export_timeout_ms: Annotated[
        int,
        variable("EXPORT_TIMEOUT_MS", integer(1), "statement timeout of one export's stream"),
    ] = 3_600_000
    export_count_timeout_ms: int = 60_000
    export_stall_s: Annotated[
        float,
        variable(
            "EXPORT_STALL_S", POSITIVE_SECONDS, "a client not reading this long ends its export"
        ),
    ] = 60.0
    # Exports streaming at once per worker: each holds a pool connection while it runs.
    export_concurrency: Annotated[
        int, variable("EXPORT_CONCURRENCY", integer(1), "exports streaming at once per worker")
    ] = 4
    # Hot standbys for stale-tolerant reads and the bound on their staleness
    # (app/core/routing.py); a placement file for tenants across clusters (app/ops/placement.py).
    database_read_urls: Annotated[
        tuple[str, ...],
        variable(
            "DATABASE_READ_URL",
            (read_urls, "comma-separated URLs"),
            "hot standbys for stale-tolerant reads; a, b, ...",
        ),
    ] = ()
    max_staleness_s: Annotated[
        float,
        variable(
            "TELEMETRY_MAX_STALENESS",
            number(0.0, above=False),
            "seconds a standby read may lag the primary",
        ),
    ] = 1.0
    placement_file: Annotated[
        str | None,
        variable("TELEMETRY_PLACEMENT", free_text(), "a placement file: tenants across clusters"),
    ] = None
    # Through a transaction-pooling PgBouncer: LISTEN needs a direct connection to the
    # primary (DATABASE_LISTEN_URL), and asyncpg's named prepared statements must be off
    # (DB_STATEMENT_CACHE=0), as a statement prepared on one server connection is unknown
    # on the next.
    database_listen_url: Annotated[
        str | None,
        variable(
            "DATABASE_LISTEN_URL",
            free_text(),
            "LISTEN to the primary past PgBouncer",
            shown="DATABASE_URL",
        ),
    ] = None
    statement_cache_size: Annotated[
        int,
        variable("DB_STATEMENT_CACHE", integer(0), "0 behind a transaction-pooling PgBouncer"),
    ] = 100
    # Background work of `telemetry serve` (integrations.md 2.1 and 3): the MQTT consumers
    # and the downlink dispatcher. Each runs once across all workers and instances.
    mqtt_ingest: Annotated[
        bool, variable("TELEMETRY_MQTT_INGEST", flag(), "0: `serve` runs no MQTT consumer")
    ] = True
    downlink_dispatch: Annotated[
        bool,
        variable("TELEMETRY_DOWNLINK_DISPATCH", flag(), "0: `serve` runs no downlink dispatcher"),
    ] = True
    # Seconds a ChirpStack gRPC call may take before its outcome counts as unknown.
    chirpstack_timeout_s: Annotated[
        float,
        variable(
            "TELEMETRY_CHIRPSTACK_TIMEOUT_S",
            POSITIVE_SECONDS,
            "then a call's outcome is unknown",
        ),
    ] = 5.0
    # First retry delay of a downlink after a retryable failure; doubles up to 60 s.
    dispatch_backoff_s: Annotated[
        float,
        variable(
            "TELEMETRY_DISPATCH_BACKOFF_S",
            POSITIVE_SECONDS,
            "first retry delay, doubling up to 60 s",
        ),
    ] = 1.0
    # The local Mosquitto of `telemetry mqtt start|stop` (app/ops/broker.py).
    mqtt_port: Annotated[
        int,
        variable("TELEMETRY_MQTT_PORT", PORT, "the local broker of `telemetry mqtt start`"),
    ] = DEFAULT_MQTT_PORT
    mqtt_dir: Annotated[
        str, variable("TELEMETRY_MQTT_DIR", free_text(), shown="`.mosquitto/` in the checkout")
    ] = str(PROJECT_ROOT / ".mosquitto")
    # Bounded waits on the database (issue 11, defect 4): opening a connection, waiting for
    # a pooled one, and a statement as seen by the client (a little above the server's
    # statement_timeout, so a live server's own cancellation is the one normally seen).
    # Past any of them the request is 503 `unavailable` with Retry-After.
    db_connect_timeout_s: Annotated[
        float,
        variable("DB_CONNECT_TIMEOUT_S", POSITIVE_SECONDS, "opening a database connection"),
    ] = 3.0
    db_acquire_timeout_s: Annotated[
        float,
        variable("DB_ACQUIRE_TIMEOUT_S", POSITIVE_SECONDS, "waiting for a pooled connection"),
    ] = 3.0
    db_command_timeout_s: Annotated[
        float,
        variable("DB_COMMAND_TIMEOUT_S", POSITIVE_SECONDS, "one statement, as the client sees it"),
    ] = 6.0
    health_timeout_s: Annotated[
        float,
        variable("HEALTH_TIMEOUT_S", POSITIVE_SECONDS, "the whole of `/health`'s database check"),
    ] = 2.0
    # Logs (app/observe/logs.py): `json` (one object per line) or `console` (for humans).
    log_format: Annotated[
        str,
        variable("LOG_FORMAT", choice("json", "console"), "console: readable lines for humans"),
    ] = "json"
    # The least severe level written (DEBUG, INFO, WARNING, ERROR).
    log_level: Annotated[
        str, variable("LOG_LEVEL", choice("debug", "info", "warning", "error"))
    ] = "INFO"
    # One access-log line per request (on) or none (off).
    access_log: Annotated[bool, variable("ACCESS_LOG", flag(), "off: no line per request")] = True
    # The separate, keyless Prometheus port of `telemetry serve` (app/observe/metrics.py);
    # 0 turns the metrics off altogether (nothing is counted).
    metrics_port: Annotated[
        int,
        variable(
            "METRICS_PORT",
            integer(0, 65535),
            "`serve --metrics-port` overrides; 0: no metrics",
        ),
    ] = 9464
    # Where that port listens: loopback unless an operator opens it.
    metrics_host: Annotated[str, variable("METRICS_HOST", free_text())] = "127.0.0.1"
    # The secret POST /query cursors are signed with (a key derived from it, HMAC-SHA256;
    # app/query/cursor.py). Unset: a random secret made once in the database, shared by
    # every instance of it; set it to keep cursors valid across databases (placement) or
    # to rotate it (rotating refuses the cursors given before).
    cursor_secret: Annotated[
        str | None,
        variable(
            "CURSOR_SECRET",
            free_text(),
            "a random secret kept in the database signs cursors",
        ),
    ] = None
    # Browser origins (`https://dash.example.com`, or `*`) whose pages may call every
    # /api/v1 route (analytics.md section 4, app/live/cors.py); none by default.
    cors_origins: Annotated[
        tuple[str, ...],
        variable(
            "CORS_ORIGINS",
            (read_urls, "comma-separated origins or *"),
            "browser origins allowed to call /api/v1: a, b, ...",
        ),
    ] = ()
    # Serve the live page (/live/, app/live/page.py); the demo turns it on.
    live_page: Annotated[
        bool,
        variable(
            "TELEMETRY_LIVE_PAGE", flag(), "1: serve the live page at /live/, app/live/page.py"
        ),
    ] = False


DEFAULTS = {
    field.name: field.default
    for field in msgspec.structs.fields(Settings)
    if field.default is not msgspec.NODEFAULT
}


def _declared_variables() -> tuple[Variable, ...]:
    """The variables declared on Settings' fields, in field order."""
    hints = typing.get_type_hints(Settings, include_extras=True)
    return tuple(
        msgspec.structs.replace(declared, field=field.name)
        for field in msgspec.structs.fields(Settings)
        for declared in getattr(hints[field.name], "__metadata__", ())
        if isinstance(declared, Variable)
    )


# Every variable the service reads, in the order of the table.
VARIABLES = _declared_variables()


def shown_default(spec: Variable) -> str:
    """A variable's default as the table and the command line's help say it."""
    if spec.shown is not None:
        return spec.shown
    value = DEFAULTS.get(spec.field) if spec.unset is None else spec.unset
    if isinstance(value, bool):
        return "1" if value else "unset"
    if value is None:
        return "unset"
    if value == ():
        return "none"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _table() -> str:
    rows = [
        "| variable | field | default |",
        "|---|---|---|",
        "| DATABASE_URL | database_url | the project's own cluster on "
        "127.0.0.1:TELEMETRY_DB_PORT |",
    ]
    for spec in VARIABLES:
        note = f" ({spec.note})" if spec.note else ""
        rows.append(f"| {spec.name} | {spec.field} | {shown_default(spec)}{note} |")
    return "\n".join(rows)


if __doc__:
    __doc__ = __doc__.replace("{table}", _table())


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
