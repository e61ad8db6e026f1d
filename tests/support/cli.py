"""Running the `telemetry` command as users run it, from the checkout, with a given database."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

from app.core.config import PROJECT_ROOT

TELEMETRY = str(Path(sys.executable).parent / "telemetry")


class Run:
    def __init__(self, code: int, stdout: str, stderr: str) -> None:
        self.code = code
        self.stdout = stdout
        self.stderr = stderr

    @property
    def last_line(self) -> str:
        return self.stdout.strip().splitlines()[-1]


async def telemetry(database_url: str, *args: str) -> Run:
    process = await asyncio.create_subprocess_exec(
        TELEMETRY,
        *args,
        cwd=PROJECT_ROOT,
        env={**os.environ, "DATABASE_URL": database_url},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    stdout, stderr = await process.communicate()
    assert process.returncode is not None
    return Run(process.returncode, stdout.decode(), stderr.decode())


def cli(env: dict[str, str], *args: str) -> str:
    """Runs `telemetry ...`; returns its last line of output."""
    result = subprocess.run(
        [TELEMETRY, *args],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-1]
