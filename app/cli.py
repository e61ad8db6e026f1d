"""The `telemetry` command line (operations.md section 1)."""

from __future__ import annotations

import argparse
import contextlib
import errno
import functools
import os
import socket
import sys
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec
import uvloop

from app.core.config import settings
from app.core.db import connect
from app.core.enums import DeviceStatus


class CommandError(Exception):
    """A failure reported to the operator as one line on stderr."""


def run_with_connection(work: Callable[[Any], Awaitable[Any]]) -> Any:
    async def runner() -> Any:
        connection = await connect(settings())
        try:
            return await work(connection)
        finally:
            await connection.close()

    return uvloop.run(runner())


def parse_expiry(text: str) -> datetime:
    """An RFC 3339 date (00:00 UTC of that day, D18) or timestamp."""
    candidate = text.strip().replace("Z", "+00:00").replace("z", "+00:00")
    try:
        value = datetime.fromisoformat(candidate)
    except ValueError:
        raise CommandError(f"--expires: not an RFC 3339 date or timestamp: {text}") from None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def on_off(text: str | None) -> bool | None:
    return None if text is None else text == "on"


def cmd_db(args: argparse.Namespace) -> None:
    from app.ops import cluster

    if args.action == "start":
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


def cmd_serve(args: argparse.Namespace) -> None:
    from granian import Granian
    from granian.constants import Interfaces, Loops

    from app.main import load_app
    from app.telemetry.generations import create_table_file

    check_port_free(args.host, args.port)
    # Each worker gets the Settings with the number of workers (the rate limiter splits
    # its leases between them, app/auth/cache.py) and the path of the instance's /latest
    # generation table, removed when the server stops.
    generations = create_table_file()
    serving = msgspec.structs.replace(
        settings(), workers=args.workers, latest_generations=generations
    )
    try:
        Granian(
            target="app.main:app_factory",
            factory=True,
            address=args.host,
            port=args.port,
            workers=args.workers,
            interface=Interfaces.ASGI,
            loop=Loops.uvloop,
            log_access=False,
            backlog=2048,
        ).serve(target_loader=functools.partial(load_app, serving), wrap_loader=False)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(generations)


def cmd_world(args: argparse.Namespace) -> None:
    from app.world.loader import load_world_path

    summary = run_with_connection(lambda conn: load_world_path(conn, Path(args.file)))
    print(summary)


def cmd_keys(args: argparse.Namespace) -> None:
    from app.ops import admin

    if args.action == "create":
        scopes = [s.strip() for s in args.scopes.split(",") if s.strip()]
        expires = parse_expiry(args.expires) if args.expires else None
        key_id, secret = run_with_connection(
            lambda conn: admin.create_key(
                conn,
                partner_id=args.partner,
                sub_account_id=args.sub_account,
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
            partner_id=args.partner,
            sub_account_id=args.sub_account,
            networks=on_off(args.networks),
            multi_site=on_off(args.multi_site),
        )
    )
    print("features updated")


def cmd_retention(args: argparse.Namespace) -> None:
    from app.history.retention import compact_closed_chunks, run_retention

    dropped = run_with_connection(run_retention)
    print("another runner holds the lock" if dropped is None else f"chunks dropped: {dropped}")
    if args.compact:
        print(f"chunks compacted: {len(run_with_connection(compact_closed_chunks))}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="telemetry", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    db = commands.add_parser("db", help="the local TimescaleDB cluster and migrations")
    db.add_argument("action", choices=["start", "stop", "migrate"])
    db.set_defaults(handler=cmd_db)

    serve = commands.add_parser("serve", help="serve the API with granian")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--workers", type=int, default=1)
    serve.set_defaults(handler=cmd_serve)

    world = commands.add_parser("world", help="world files")
    world_actions = world.add_subparsers(dest="action", required=True)
    load = world_actions.add_parser("load", help="load a world file (JSON or YAML)")
    load.add_argument("file")
    world.set_defaults(handler=cmd_world)

    keys = commands.add_parser("keys", help="API keys")
    key_actions = keys.add_subparsers(dest="action", required=True)
    create = key_actions.add_parser("create", help="create a key and print it once")
    owner = create.add_mutually_exclusive_group(required=True)
    owner.add_argument("--partner")
    owner.add_argument("--sub-account", dest="sub_account")
    create.add_argument("--name", required=True)
    create.add_argument("--scopes", required=True)
    create.add_argument("--expires")
    revoke = key_actions.add_parser("revoke", help="revoke a key")
    revoke.add_argument("key_id")
    keys.set_defaults(handler=cmd_keys)

    devices = commands.add_parser("devices", help="device operations done in the app")
    device_actions = devices.add_subparsers(dest="action", required=True)
    status = device_actions.add_parser("set-status", help="move a device between states")
    status.add_argument("device_id")
    status.add_argument("status", choices=[s.value for s in DeviceStatus])
    status.add_argument("--sub-account", dest="sub_account")
    devices.set_defaults(handler=cmd_devices)

    features = commands.add_parser("features", help="feature switches")
    feature_actions = features.add_subparsers(dest="action", required=True)
    set_features = feature_actions.add_parser("set", help="switch features on or off")
    target = set_features.add_mutually_exclusive_group(required=True)
    target.add_argument("--partner")
    target.add_argument("--sub-account", dest="sub_account")
    set_features.add_argument("--networks", choices=["on", "off"])
    set_features.add_argument("--multi-site", dest="multi_site", choices=["on", "off"])
    features.set_defaults(handler=cmd_features)

    retention = commands.add_parser("retention", help="drop readings no plan may read")
    retention.add_argument("action", choices=["run"])
    retention.add_argument("--compact", action="store_true", help="also CLUSTER closed chunks")
    retention.set_defaults(handler=cmd_retention)
    return parser


def run_benchmarks(argv: list[str]) -> int:
    """`telemetry bench ...` is the benchmark suite's own command line (benchmarks/cli.py)."""
    from app.core.config import PROJECT_ROOT

    sys.path.insert(0, str(PROJECT_ROOT))
    from benchmarks.cli import main as bench_main

    return int(bench_main(argv) or 0)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["bench"]:
        return run_benchmarks(argv[1:])
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
