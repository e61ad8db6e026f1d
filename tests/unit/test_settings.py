"""Every environment variable is checked once at start (issue 23, defect 10).

Before the fix `METRICS_PORT=abc` (or `METRICS_PORT=`) made every command die with
`ValueError: invalid literal for int()` and a Python stack; so did every numeric variable.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from app.core import config
from app.core.config import VARIABLES, SettingError, Settings, load_settings

# The variables that take any text (paths, hosts, URLs, secrets): no value of theirs is wrong.
FREE_TEXT = {
    spec.name
    for spec in VARIABLES
    if spec.accepts in ("any text", "comma-separated URLs", "comma-separated origins or *")
}
TYPED = [spec for spec in VARIABLES if spec.name not in FREE_TEXT]
# Fields no variable sets: the database URL is read apart (its default is built from the
# cluster's port), the rest are fixed by the contract or set by `serve` for its workers.
NOT_VARIABLES = {
    "database_url",
    "latest_generations",
    "export_max_devices",
    "export_max_readings",
    "export_count_timeout_ms",
}


@pytest.mark.parametrize("spec", TYPED, ids=[spec.name for spec in TYPED])
@pytest.mark.parametrize("value", ["abc", "", "nan", "-1.5e999"])
def test_a_wrong_value_is_one_line_naming_the_variable_and_what_it_accepts(
    spec: config.Variable, value: str
) -> None:
    with pytest.raises(SettingError) as raised:
        load_settings({spec.name: value})
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith(f"{spec.name}={value!r} is not valid: expected {spec.accepts}")


def test_numbers_are_checked_against_their_bounds() -> None:
    for name, value in [
        ("METRICS_PORT", "65536"),
        ("TELEMETRY_DB_PORT", "0"),
        ("TELEMETRY_WORKERS", "0"),
        ("DB_ACQUIRE_TIMEOUT_S", "0"),
        ("DB_ACQUIRE_TIMEOUT_S", "inf"),
        ("STATEMENT_TIMEOUT_MS", "-5"),
    ]:
        with pytest.raises(SettingError, match=re.escape(f"{name}={value!r}")):
            load_settings({name: value})
    with pytest.raises(SettingError, match=r"DB_POOL_MIN=5 is not valid: expected at most"):
        load_settings({"DB_POOL_MIN": "5", "DB_POOL_MAX": "4"})


def test_right_values_are_read_and_unset_ones_keep_their_defaults() -> None:
    read = load_settings(
        {
            "METRICS_PORT": "0",
            "ACCESS_LOG": "Off",
            "LOG_LEVEL": "debug",
            "LOG_FORMAT": "CONSOLE",
            "TELEMETRY_WORKERS": " 3 ",
            "DB_ACQUIRE_TIMEOUT_S": "0.5",
            "TELEMETRY_DEBUG": "yes",
            "DATABASE_READ_URL": "postgresql://a/x, postgresql://b/x",
        }
    )
    assert (read.metrics_port, read.access_log, read.log_level, read.log_format) == (
        0,
        False,
        "DEBUG",
        "console",
    )
    assert (read.workers, read.db_acquire_timeout_s, read.debug) == (3, 0.5, True)
    assert read.database_read_urls == ("postgresql://a/x", "postgresql://b/x")
    defaults = load_settings({})
    assert defaults.metrics_port == config.DEFAULTS["metrics_port"] == 9464
    # A command run by an operator runs the webhook dispatcher; an in-process app does not.
    assert defaults.webhook_dispatcher is True
    assert Settings(database_url="x").webhook_dispatcher is False


def test_every_field_has_one_variable_and_the_table_lists_it() -> None:
    fields = {field.name for field in msgspec.structs.fields(Settings)}
    by_field = [spec.field for spec in VARIABLES]
    assert len(by_field) == len(set(by_field))
    assert set(by_field) == fields - NOT_VARIABLES
    documented = config.__doc__ or ""
    for spec in VARIABLES:
        assert re.search(rf"\b{spec.name}\b", documented), spec.name


@pytest.mark.parametrize("value", ["abc", ""])
def test_a_command_refuses_a_wrong_variable_with_one_line_and_status_2(value: str) -> None:
    result = subprocess.run(
        [str(Path(sys.executable).parent / "telemetry"), "serve", "--port", "1"],
        env={**os.environ, "METRICS_PORT": value},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        f"telemetry: METRICS_PORT={value!r} is not valid: expected an integer from 0 to "
        "65535; unset it for the default, 9464"
    ]
