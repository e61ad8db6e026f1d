"""The command line explains itself: help on every command and option (issue 12), and a
database URL shown with its password masked."""

from __future__ import annotations

import argparse
import re

from app.cli import build_parser, mask_password
from app.core.config import PROJECT_ROOT


def _parsers(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    found = [(parser.prog, parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                found += _parsers(child)
    return found


def test_every_command_and_option_says_what_it_does() -> None:
    parser = build_parser()
    text = parser.format_help()
    for command in ("db", "serve", "world", "keys", "devices", "features", "retention", "bench"):
        assert re.search(rf"^\s+{command}\b", text, re.MULTILINE), command
    for prog, sub in _parsers(parser):
        for action in sub._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            assert action.help, f"{prog} {action.dest} has no help"
            if action.default not in (None, False, argparse.SUPPRESS) and not action.required:
                # An option with a default names it (in its text or by the formatter).
                shown = sub.format_help()
                assert str(action.default) in shown, f"{prog} {action.dest}"


def test_password_is_masked() -> None:
    assert mask_password("postgresql://u:s3cret@db:5432/t") == "postgresql://u:***@db:5432/t"
    assert mask_password("postgresql://u@127.0.0.1:25432/t") == "postgresql://u@127.0.0.1:25432/t"
    # Several hosts (libpq): urllib could not read the port, and `serve` died printing it.
    assert (
        mask_password("postgresql://u:pw@h1:5432,h2:5432/db")
        == "postgresql://u:***@h1:5432,h2:5432/db"
    )


def test_bench_is_added_by_the_installed_suite_not_named_by_the_service() -> None:
    """`telemetry bench` comes from the benchmark suite's distribution (its entry point),
    so a wheel or image without the suite has no `bench`; the service's code names none of
    the suite's modules."""
    from app.cli import added_commands

    assert added_commands()["bench"].value == "benchmarks.cli:main"
    source = (PROJECT_ROOT / "app" / "cli.py").read_text()
    assert "benchmarks" not in source.replace("benchmarks/", "")
