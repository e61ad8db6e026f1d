"""A private `telemetry db start` cluster for the tests that crash or restart it, never
the suite's."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import pytest

from app.core.config import PROJECT_ROOT
from testkit.processes import free_port
from tests.support.cli import TELEMETRY


class Cluster:
    """A private `telemetry db start` cluster."""

    def __init__(self) -> None:
        self.data_dir = Path(tempfile.mkdtemp(prefix="telemetry-faults-")) / "pgdata"
        self.port = free_port()
        self.env = {
            **os.environ,
            "TELEMETRY_PGDATA": str(self.data_dir),
            "TELEMETRY_DB_PORT": str(self.port),
        }
        self.env.pop("DATABASE_URL", None)
        self.url = f"postgresql://telemetry@127.0.0.1:{self.port}/telemetry"

    def cli(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [TELEMETRY, *args],
            cwd=PROJECT_ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def postmaster_pid(self) -> int:
        return int((self.data_dir / "postmaster.pid").read_text().split("\n", 1)[0])

    def processes(self) -> list[int]:
        """The postmaster and its children."""
        pid = self.postmaster_pid()
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        return [pid, *(int(child) for child in children)]

    def crash(self) -> None:
        """SIGKILL to the postmaster: the crash of D4's 'immediate stop'."""
        os.kill(self.postmaster_pid(), signal.SIGKILL)

    def start(self) -> None:
        result = self.cli("db", "start", timeout=90)
        assert result.returncode == 0, result.stderr

    def wait_ready(self, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                asyncio.run(_select_one(self.url))
                return
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
                time.sleep(0.2)
        raise AssertionError("cluster did not come back")


async def _select_one(url: str) -> None:
    connection = await asyncpg.connect(url, timeout=2)
    try:
        await connection.fetchval("SELECT 1")
    finally:
        await connection.close()


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    private = Cluster()
    private.start()
    migrated = private.cli("db", "migrate")
    assert migrated.returncode == 0, migrated.stderr
    yield private
    private.cli("db", "stop", timeout=60)
    for pid in _leftover_postgres(private.data_dir):
        os.kill(pid, signal.SIGKILL)
    if os.environ.get("TELEMETRY_KEEP_FAULT_LOGS"):
        print(f"\nfault-injection logs kept in {private.data_dir.parent}")
        return
    shutil.rmtree(private.data_dir.parent, ignore_errors=True)


def _leftover_postgres(data_dir: Path) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if str(data_dir) in (entry / "cmdline").read_text():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found
