"""`telemetry simulate --partner ID --token TOKEN [--url URL] [--every S] [--devices N]`."""

from __future__ import annotations

import argparse
import logging
from typing import Any

import uvloop

from app.core.commands import CommandError, add_command, run_with_connection


def cmd_simulate(args: argparse.Namespace) -> None:
    from app.ops.admin import parse_id

    try:
        from app.simulate.simulator import load_devices, simulate
    except ModuleNotFoundError as missing:
        # httpx is the demo's extra, not a dependency of the server (pyproject.toml).
        raise CommandError(
            f"simulate needs {missing.name}: pip install 'telemetry-service[demo]'"
        ) from None

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    partner = parse_id("--partner", args.partner)

    devices = run_with_connection(lambda conn: load_devices(conn, partner, args.devices))
    if not devices:
        raise ValueError(f"partner {partner} has no assigned devices")
    print(
        f"simulating {len(devices)} devices: {args.per_round} uplinks every {args.every}s "
        f"to {args.url}",
        flush=True,
    )
    stored = uvloop.run(
        simulate(
            devices,
            url=args.url,
            token=args.token,
            every_s=args.every,
            per_round=args.per_round,
            alert_chance=args.alert_chance,
            rounds=args.rounds,
        )
    )
    print(f"uplinks stored: {stored}")


def add_commands(commands: Any) -> None:
    simulate = add_command(
        commands,
        "simulate",
        cmd_simulate,
        help="post live-looking ChirpStack uplinks for a partner's devices",
    )
    simulate.add_argument("--partner", required=True, help="the partner whose devices report")
    simulate.add_argument("--token", required=True, help="the partner's integration token")
    simulate.add_argument(
        "--url", default="http://127.0.0.1:8000", help="the API (default http://127.0.0.1:8000)"
    )
    simulate.add_argument(
        "--every", type=float, default=3.0, help="seconds between rounds (default 3.0)"
    )
    simulate.add_argument(
        "--per-round", dest="per_round", type=int, default=8, help="uplinks per round (default 8)"
    )
    simulate.add_argument(
        "--devices", type=int, default=1000, help="at most this many devices (default 1000)"
    )
    simulate.add_argument(
        "--alert-chance",
        dest="alert_chance",
        type=float,
        default=0.05,
        help="chance that an uplink breaks an alert rule (default 0.05)",
    )
    simulate.add_argument("--rounds", type=int, help="stop after this many rounds")
