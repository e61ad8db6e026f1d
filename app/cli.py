"""The `telemetry` command line (operations.md section 1)."""

from __future__ import annotations

import argparse
import contextlib
import errno
import functools
import importlib.metadata
import os
import shutil
import socket
import sys
from pathlib import Path

import msgspec
import uvloop

from app.core.commands import (
    CommandError,
    add_actions,
    add_command,
    add_owner,
    owner_of,
    parse_expiry,
    run_with_connection,
)
from app.core.config import DEFAULTS, SettingError, mask_password, settings
from app.core.enums import DeviceStatus


def on_off(text: str | None) -> bool | None:
    return None if text is None else text == "on"


def cmd_db(args: argparse.Namespace) -> None:
    from app.ops import cluster

    if args.standby:
        cmd_standby(args)
    elif args.action == "start":
        url = cluster.start()
        print("cluster running; its DATABASE_URL:")
        print(url)
    elif args.action == "stop":
        cluster.stop()
        print("stopped")
    else:
        from app.ops.migrate import migrate

        applied = run_with_connection(migrate)
        print(
            f"migrations applied: {len(applied)}" + (f" ({', '.join(applied)})" if applied else "")
        )


def check_port_free(host: str, port: int) -> None:
    """Fails at once when another process listens on the address. granian binds with
    SO_REUSEPORT, so a second server would otherwise share the port with the first and
    the kernel would spread connections over both; a bind without it refuses."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        # Connections of an earlier server in TIME_WAIT do not hold the port; a listener does.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                raise CommandError(f"{host}:{port} is already in use by another process") from None
            raise CommandError(f"cannot listen on {host}:{port}: {error.strerror}") from None


def start_metrics(host: str, port: int) -> int:
    """Serves the metrics on host:port and returns the port, or returns 0 (no metrics) after
    one line on stderr when the port is taken. The API port is the contract; the metrics
    port is a side door whose default (9464) a second server on the host always finds
    taken, so it gives way instead of stopping the server (issue 23, defect 1)."""
    from app.observe.metrics import serve_metrics

    try:
        serve_metrics(host, port)
    except OSError as error:
        print(
            f"telemetry serve: metrics port {host}:{port} is not available "
            f"({error.strerror or error}); serving the API without metrics "
            "(choose a free port with --metrics-port P, or turn them off with METRICS_PORT=0)",
            file=sys.stderr,
            flush=True,
        )
        return 0
    return port


def cmd_standby(args: argparse.Namespace) -> None:
    from app.ops import standby

    if args.action == "start":
        url = standby.start(args.port)
        print("standby running (streaming from the local cluster); its DATABASE_READ_URL:")
        print(url)
    elif args.action == "stop":
        standby.stop(args.port, drop=args.drop)
        print("standby stopped" + (" and dropped" if args.drop else ""))
    else:
        raise CommandError("migrate runs on the primary; a standby replays it")


def cmd_serve(args: argparse.Namespace) -> None:
    from app.observe.multiproc import prepare_multiprocess_dir
    from app.server.granian import granian_server

    check_port_free(args.host, args.port)
    # Before anything imports prometheus-client (app.main does): every worker writes its
    # counters into this directory, which the client finds in the environment.
    metrics_dir = prepare_multiprocess_dir()
    from app.latest.generations import create_table_file
    from app.main import load_app

    configured = settings()
    metrics_port = configured.metrics_port if args.metrics_port is None else args.metrics_port
    if metrics_port:
        metrics_port = start_metrics(configured.metrics_host, metrics_port)
    # Each worker gets the Settings with the number of workers (the rate limiter splits its
    # leases between them, app/auth/cache.py), the metrics port chosen here (0: nothing is
    # counted) and the path of the instance's /latest generation table, removed when the
    # server stops.
    generations = create_table_file()
    serving = msgspec.structs.replace(
        configured,
        workers=args.workers,
        metrics_port=metrics_port,
        latest_generations=generations,
    )
    base = f"http://{args.host}:{args.port}"
    lines = [
        f"telemetry serve: listening on {base} ({args.workers} worker(s))",
        f"  interactive reference: {base}/api/v1/docs",
        f"  OpenAPI document:      {base}/api/v1/openapi.json",
        f"  health:                {base}/api/v1/health",
        "  metrics:               "
        + (
            f"http://{serving.metrics_host}:{metrics_port}/metrics (no key)"
            if metrics_port
            else "off"
        ),
        f"  database:              {mask_password(serving.database_url)}",
        f"  logs:                  {serving.log_format} on stdout, level {serving.log_level}"
        + ("" if serving.access_log else ", access log off"),
    ]
    print("\n".join(lines), flush=True)
    server = granian_server(
        "app.main:app_factory", host=args.host, port=args.port, workers=args.workers
    )
    try:
        server.serve(target_loader=functools.partial(load_app, serving), wrap_loader=False)
    finally:
        # The workers' metric files are of this run only.
        shutil.rmtree(metrics_dir, ignore_errors=True)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(generations)


def cmd_world(args: argparse.Namespace) -> None:
    import time

    from app.ops.progress import ProgressBar
    from app.world.loader import load_world_path

    bars: list[ProgressBar] = []

    def on_progress(done: int, total: int) -> None:
        if not bars:
            bars.append(ProgressBar("telemetry", total))
        bars[0].update(done)

    started = time.perf_counter()
    summary = run_with_connection(
        lambda conn: load_world_path(conn, Path(args.file), on_progress=on_progress)
    )
    if bars:
        bars[0].finish()
    print(f"{summary} in {time.perf_counter() - started:.1f} s")


def cmd_keys(args: argparse.Namespace) -> None:
    from app.ops import admin

    if args.action == "create":
        scopes = [s.strip() for s in args.scopes.split(",") if s.strip()]
        expires = parse_expiry(args.expires) if args.expires else None
        key_id, secret = run_with_connection(
            lambda conn: admin.create_key(
                conn,
                **owner_of(args),
                name=args.name,
                scopes=scopes,
                expires_at=expires,
            )
        )
        print(f"key id: {key_id} (the key is shown once; only its hash is stored)")
        print(secret)
    else:
        run_with_connection(lambda conn: admin.revoke_key(conn, args.key_id))
        print(f"revoked {args.key_id}")


def cmd_devices(args: argparse.Namespace) -> None:
    from app.ops import admin

    run_with_connection(
        lambda conn: admin.set_device_status(conn, args.device_id, args.status, args.sub_account)
    )
    print(f"device {args.device_id} is now {args.status}")


def cmd_features(args: argparse.Namespace) -> None:
    from app.ops import admin

    run_with_connection(
        lambda conn: admin.set_features(
            conn,
            **owner_of(args),
            networks=on_off(args.networks),
            multi_site=on_off(args.multi_site),
        )
    )
    print("features updated")


def cmd_mqtt(args: argparse.Namespace) -> None:
    from app.ops import broker

    if args.action == "start":
        url = broker.start()
        print(f"mosquitto running (data in {broker.data_dir()}); its URL:")
        print(url)
    else:
        broker.stop()
        print("stopped")


def cmd_ingest(args: argparse.Namespace) -> None:
    from app.core.loops import run_alone
    from app.ingest.mqtt_runner import run_mqtt

    uvloop.run(run_alone(run_mqtt))


def cmd_dispatch(args: argparse.Namespace) -> None:
    from app.core.loops import run_alone
    from app.downlinks.dispatch import run_dispatcher

    uvloop.run(run_alone(run_dispatcher))


def cmd_retention(args: argparse.Namespace) -> None:
    from app.history.maintenance import compact_closed_chunks, pack_closed_weeks, run_retention

    if args.pack:
        packed = run_with_connection(lambda c: pack_closed_weeks(c, settings().pack_after_s))
        print(f"chunks packed: {packed}")
    dropped = run_with_connection(run_retention)
    print("another runner holds the lock" if dropped is None else f"chunks dropped: {dropped}")
    if args.compact:
        print(f"chunks compacted: {len(run_with_connection(compact_closed_chunks))}")


def cmd_placement(args: argparse.Namespace) -> None:
    from app.ops.placement import load_placement, sync_directory

    placement_file = settings().placement_file
    if not placement_file:
        raise CommandError("TELEMETRY_PLACEMENT names no placement file")
    placement = load_placement(Path(placement_file))
    counts = uvloop.run(sync_directory(placement))
    for name, count in counts.items():
        print(f"cluster {name}: {count} keys and tokens in the directory")


EPILOG = f"""\
environment:
  DATABASE_URL       the database of every command (default: the project's own cluster)
  TELEMETRY_DB_PORT  port of the project's own cluster (default {DEFAULTS["db_port"]})
  TELEMETRY_DEBUG    set to show a traceback instead of a one-line error

Other installed distributions may add commands (entry point group telemetry.commands): in a
checkout, the benchmark suite adds `telemetry bench` (benchmarks/README.md).
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="telemetry",
        description="Operate the Device Telemetry Service: its database, world files, "
        "keys and the API server (operations.md section 1).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    defaults = argparse.ArgumentDefaultsHelpFormatter

    db = add_command(
        commands,
        "db",
        cmd_db,
        help="the local TimescaleDB cluster (start, stop) and migrations (migrate)",
        description="start: create (first time) and start the project's cluster on "
        "127.0.0.1 and print its DATABASE_URL on the last line; stop: stop it; migrate: "
        "apply schema/ to DATABASE_URL (idempotent).",
    )
    db.add_argument("action", choices=["start", "stop", "migrate"], help="what to do")
    db.add_argument(
        "--standby",
        action="store_true",
        help="start/stop a hot standby of the local cluster instead (default: off)",
    )
    db.add_argument("--port", type=int, help="the standby's port (default: the cluster's + 10)")
    db.add_argument(
        "--drop", action="store_true", help="with stop --standby: remove its data and slot"
    )

    serve = add_command(
        commands,
        "serve",
        cmd_serve,
        help="serve the API (and the ingest endpoints) with granian",
        description="Serves the API with granian and prints where: the API, its docs and "
        "OpenAPI document, /metrics and the database (password masked). Environment: "
        f"DATABASE_URL, LOG_FORMAT (json|console, default {DEFAULTS['log_format']}), "
        f"LOG_LEVEL (default {DEFAULTS['log_level']}), "
        f"ACCESS_LOG (on|off, default {'on' if DEFAULTS['access_log'] else 'off'}), "
        f"METRICS_PORT (default {DEFAULTS['metrics_port']}, 0: metrics off), "
        f"METRICS_HOST (default {DEFAULTS['metrics_host']}).",
        formatter_class=defaults,
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=8000, help="port of the API")
    serve.add_argument("--workers", type=int, default=1, help="granian worker processes")
    serve.add_argument(
        "--metrics-port",
        type=int,
        default=None,
        help="port of the keyless Prometheus /metrics, 0 for none (default: METRICS_PORT, "
        f"else {DEFAULTS['metrics_port']})",
    )

    world_actions = add_actions(
        commands, "world", cmd_world, "load world files (a whole tenancy + telemetry)"
    )
    load = world_actions.add_parser(
        "load",
        help="load a world file (JSON or YAML) in one transaction",
        description="Validates the whole file (a malformed one is refused with the path of "
        "the offending value, and nothing changes), writes it and replays its telemetry "
        "through the ingest pipeline, with a progress bar on large files; prints a summary.",
    )
    load.add_argument("file", help="the world file (.json, .yaml or .yml)")

    key_actions = add_actions(commands, "keys", cmd_keys, "create and revoke API keys")
    create = key_actions.add_parser(
        "create",
        help="create a key and print it once (last line)",
        description="Creates an API key bound to a partner or a sub-account; only its hash "
        "is stored, so the key is printed once, on the last line.",
    )
    add_owner(create, "bind the key to this partner", "bind it to this sub-account")
    create.add_argument("--name", required=True, help="a recognizable name")
    create.add_argument(
        "--scopes",
        required=True,
        metavar="S1,S2",
        help="comma-separated scopes, e.g. devices:read,telemetry:read",
    )
    create.add_argument(
        "--expires",
        metavar="TIME",
        help="RFC 3339 date (00:00 UTC) or timestamp when it stops working (default: never)",
    )
    revoke = key_actions.add_parser("revoke", help="revoke a key (the next request fails)")
    revoke.add_argument("key_id", help="id of the key (printed by keys create)")

    device_actions = add_actions(
        commands, "devices", cmd_devices, "device operations done in the app"
    )
    status = device_actions.add_parser(
        "set-status",
        help="move a device between inventory, assigned and archived",
        description="Moving to inventory deletes the device's data (decisions D16).",
    )
    status.add_argument("device_id", help="the device's id or DevEUI")
    status.add_argument("status", choices=[s.value for s in DeviceStatus], help="the new status")
    status.add_argument(
        "--sub-account",
        dest="sub_account",
        metavar="ID",
        help="the sub-account to assign to (required for a device that has none)",
    )

    feature_actions = add_actions(
        commands, "features", cmd_features, "switch account features on or off"
    )
    set_features = feature_actions.add_parser(
        "set",
        help="switch features on or off (nothing is deleted)",
        description="A sub-account's own setting beats its partner's default. Options left "
        "out are unchanged.",
    )
    add_owner(set_features, "the partner (default of its sub-accounts)", "a sub-account")
    set_features.add_argument("--networks", choices=["on", "off"], help="the Networks feature")
    set_features.add_argument(
        "--multi-site", dest="multi_site", choices=["on", "off"], help="the multi-site feature"
    )

    placement = add_command(
        commands, "placement", cmd_placement, help="tenants placed across clusters"
    )
    placement.add_argument("action", choices=["sync"], help="fill the key directory")

    mqtt = add_command(
        commands, "mqtt", cmd_mqtt, help="the local Mosquitto broker (development, tests)"
    )
    mqtt.add_argument(
        "action", choices=["start", "stop"], help="start (prints its URL) or stop the local broker"
    )

    ingest = add_command(
        commands, "ingest", cmd_ingest, help="consume network servers' MQTT integrations"
    )
    ingest.add_argument(
        "source",
        choices=["mqtt"],
        help="where events come from: `mqtt` (the brokers of "
        "the integrations with an MQTT section), until interrupted",
    )

    add_command(commands, "dispatch", cmd_dispatch, help="deliver queued downlinks to ChirpStack")

    retention = add_command(
        commands, "retention", cmd_retention, help="drop readings no plan may read"
    )
    retention.add_argument("action", choices=["run"], help="run the retention job once")
    retention.add_argument(
        "--compact", action="store_true", help="also CLUSTER closed chunks (default: off)"
    )
    retention.add_argument(
        "--pack",
        action="store_true",
        help="first pack the raw weeks closed for TELEMETRY_PACK_AFTER_S (default: off)",
    )

    from app.webhooks.cli import add_commands as add_webhook_commands

    add_webhook_commands(commands)
    from app.simulate.cli import add_commands as add_simulate_commands

    add_simulate_commands(commands)
    for name, entry in added_commands().items():
        summary = entry.dist.metadata["Summary"] if entry.dist else entry.value
        commands.add_parser(name, help=f"{summary} (see telemetry {name} --help)", add_help=False)
    return parser


COMMANDS = "telemetry.commands"


@functools.cache
def added_commands() -> dict[str, importlib.metadata.EntryPoint]:
    """The commands other installed distributions add (entry point group
    `telemetry.commands`, each a `main(argv) -> int`), found when the command line runs.

    The service names none of them: the benchmark suite, installed from a checkout, adds
    `bench` (benchmarks/pyproject.toml), and a wheel or image without the suite has no
    `bench` at all rather than one that cannot import its code."""
    return {entry.name: entry for entry in importlib.metadata.entry_points(group=COMMANDS)}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # Every variable is checked once, before any command runs: a wrong one is one line
    # naming it, its value and what it accepts (exit 2, as for a wrong argument), never a
    # traceback from wherever it is first used. `--help` works whatever the environment.
    if not {"-h", "--help"} & set(argv):
        try:
            settings()
        except SettingError as error:
            print(f"telemetry: {error}", file=sys.stderr)
            return 2
    added = added_commands()
    if argv[:1] and argv[0] in added:
        # The added command parses its own arguments, `--help` included.
        return int(added[argv[0]].load()(argv[1:]) or 0)
    args = build_parser().parse_args(argv)
    try:
        args.handler(args)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        print(f"telemetry {args.command}: {message}", file=sys.stderr)
        if settings().debug:
            raise
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
