"""`telemetry webhooks ...` (integrations.md 1.1): one line per item, ids first; a secret
is printed once, at creation or rotation, and nowhere else."""

from __future__ import annotations

import argparse
from typing import Any

import uvloop

from app.core.commands import (
    CommandError,
    add_command,
    add_owner,
    owner_of,
    parse_expiry,
    run_with_connection,
)
from app.core.config import settings


def cmd_webhooks(args: argparse.Namespace) -> None:
    from app.webhooks import endpoints

    action = args.action
    if action == "create":
        endpoint_id, secret = run_with_connection(
            lambda conn: endpoints.create(
                conn,
                **owner_of(args),
                url=args.url,
                events=args.events,
                devices=args.devices,
                allow_private=settings().webhooks_allow_private,
            )
        )
        print(f"{endpoint_id} enabled {args.url} (the secret below is shown once)")
        print(secret)
    elif action == "list":
        for row in run_with_connection(
            lambda conn: endpoints.list_endpoints(conn, **owner_of(args))
        ):
            print(row.line())
    elif action in ("enable", "disable"):
        run_with_connection(lambda conn: endpoints.set_enabled(conn, args.id, action == "enable"))
        print(f"{args.id} {action}d")
    elif action == "rotate-secret":
        overlap = endpoints.parse_overlap(args.overlap)
        secret, until = run_with_connection(
            lambda conn: endpoints.rotate_secret(conn, args.id, overlap)
        )
        print(f"{args.id} rotated; the previous secret also signs until {until.isoformat()}")
        print(secret)
    elif action == "test":
        event_id = run_with_connection(lambda conn: endpoints.send_test(conn, args.id))
        print(f"{event_id} webhook.test queued for {args.id}")
    elif action == "deliveries":
        for line in run_with_connection(
            lambda conn: endpoints.deliveries(conn, args.id, args.failed, args.limit)
        ):
            print(line)
    elif action == "redeliver":
        for endpoint_id in run_with_connection(
            lambda conn: endpoints.redeliver(conn, args.event_id, args.endpoint)
        ):
            print(f"{args.event_id} queued again for {endpoint_id}")
    elif action == "recover":
        try:
            since = parse_expiry(args.since)
        except CommandError:
            raise CommandError(
                f"--since: not an RFC 3339 date or timestamp: {args.since}"
            ) from None
        for event_id in run_with_connection(lambda conn: endpoints.recover(conn, args.id, since)):
            print(f"{event_id} queued again for {args.id}")
    elif action == "listen":
        from app.webhooks.listen import serve

        serve(args.port, args.secret)
    elif action == "dispatch":
        from app.core.loops import run_alone
        from app.webhooks.dispatcher import run_webhooks

        print("webhook dispatcher running (leads when elected)", flush=True)
        uvloop.run(run_alone(run_webhooks))


def add_commands(commands: Any) -> None:
    webhooks = add_command(
        commands, "webhooks", cmd_webhooks, help="webhook endpoints and delivery"
    )
    actions = webhooks.add_subparsers(dest="action", required=True)
    create = actions.add_parser("create", help="create an endpoint; prints its secret once")
    add_owner(
        create, "the partner (events of all its sub-accounts)", "one sub-account (its events only)"
    )
    create.add_argument("--url", required=True, help="https URL the events are posted to")
    create.add_argument("--events", help="comma-separated event types (default: all)")
    create.add_argument("--devices", help="comma-separated device ids (default: all)")
    listing = actions.add_parser("list", help="endpoints with delivery counts")
    scope = listing.add_mutually_exclusive_group()
    scope.add_argument("--partner", metavar="ID", help="only this partner's endpoints")
    scope.add_argument(
        "--sub-account", dest="sub_account", metavar="ID", help="only this sub-account's endpoints"
    )
    for name in ("enable", "disable", "test"):
        actions.add_parser(name, help=f"{name} an endpoint").add_argument(
            "id", help="the endpoint's id"
        )
    rotate = actions.add_parser("rotate-secret", help="new secret; both sign during the overlap")
    rotate.add_argument("id", help="the endpoint's id")
    rotate.add_argument("--overlap", default="24h", help="e.g. 24h, 30m, 0 (default 24h)")
    log = actions.add_parser("deliveries", help="the attempt log, newest first")
    log.add_argument("id", help="the endpoint's id")
    log.add_argument("--failed", action="store_true", help="only failed attempts (default: all)")
    log.add_argument("--limit", type=int, default=50, help="attempts shown (default 50)")
    again = actions.add_parser("redeliver", help="send an event again, same webhook-id")
    again.add_argument("event_id", help="the event id (msg_...)")
    again.add_argument(
        "--endpoint", metavar="ID", help="only this endpoint (default: every one it was sent to)"
    )
    recover = actions.add_parser("recover", help="redeliver what was given up since TIME")
    recover.add_argument("id", help="the endpoint's id")
    recover.add_argument(
        "--since", required=True, help="RFC 3339 time or now-DURATION: given up since then"
    )
    listen = actions.add_parser("listen", help="a local receiver that verifies and prints")
    listen.add_argument("--port", type=int, required=True, help="port on 127.0.0.1 to listen on")
    listen.add_argument(
        "--secret", help="whsec_ secret to verify with (default: print without verifying)"
    )
    actions.add_parser("dispatch", help="run the dispatcher alone")
