"""What every `telemetry` command shares: how it fails, reaches the database and is declared.

The commands live in app/cli.py and in their areas (app/webhooks/cli.py,
app/simulate/cli.py); they import this module rather than each other.
"""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import uvloop

from app.core.config import settings
from app.core.db import connect


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


def add_command(
    commands: Any, name: str, handler: Callable[[argparse.Namespace], None], **options: Any
) -> argparse.ArgumentParser:
    """A command of `telemetry`, run by `handler`."""
    command: argparse.ArgumentParser = commands.add_parser(name, **options)
    command.set_defaults(handler=handler)
    return command


def add_actions(
    commands: Any, name: str, handler: Callable[[argparse.Namespace], None], help: str
) -> Any:
    """A command whose first word is an ACTION with its own arguments; the handler finds
    it in `args.action`."""
    return add_command(commands, name, handler, help=help).add_subparsers(
        dest="action", required=True, metavar="ACTION"
    )


def add_owner(parser: argparse.ArgumentParser, partner: str, sub_account: str) -> None:
    """`--partner ID` or `--sub-account ID`, exactly one: what a key, an endpoint or a
    feature switch belongs to."""
    owner = parser.add_mutually_exclusive_group(required=True)
    owner.add_argument("--partner", metavar="ID", help=partner)
    owner.add_argument("--sub-account", dest="sub_account", metavar="ID", help=sub_account)


def owner_of(args: argparse.Namespace) -> dict[str, str | None]:
    """The owner `add_owner` read, as the `partner_id` and `sub_account_id` keywords of the
    admin functions (one of them None)."""
    return {"partner_id": args.partner, "sub_account_id": args.sub_account}
