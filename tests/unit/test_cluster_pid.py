"""`telemetry db start` tells a live postmaster from a pid file left behind (app/ops/cluster.py)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.ops import cluster


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(cluster, "DATA_DIR", tmp_path)
    return tmp_path


def name_in_pid_file(data_dir: Path, pid: int) -> None:
    (data_dir / "postmaster.pid").write_text(f"{pid}\n{data_dir}\n")


@pytest.fixture
def running_postgres(tmp_path: Path) -> Iterator[int]:
    """A process whose command name is `postgres` (a copy of sleep under that name)."""
    program = tmp_path / "bin" / "postgres"
    program.parent.mkdir()
    shutil.copy(shutil.which("sleep") or "/bin/sleep", program)
    process = subprocess.Popen([str(program), "60"])
    yield process.pid
    process.kill()
    process.wait()


def test_no_pid_file_is_none(data_dir: Path) -> None:
    assert cluster._postmaster_state() == "none"


def test_a_running_postgres_is_alive(data_dir: Path, running_postgres: int) -> None:
    name_in_pid_file(data_dir, running_postgres)
    assert cluster._postmaster_state() == "alive"


def test_a_process_gone_is_stale(data_dir: Path, running_postgres: int) -> None:
    name_in_pid_file(data_dir, running_postgres)
    os.kill(running_postgres, signal.SIGKILL)
    # Popen has not reaped it: a zombie until the fixture waits, which counts as gone.
    stat = Path(f"/proc/{running_postgres}/stat")
    deadline = time.monotonic() + 10
    while stat.read_text().rsplit(")", 1)[1].split()[0] != "Z" and time.monotonic() < deadline:
        time.sleep(0.01)
    assert cluster._postmaster_state() == "stale"


def test_another_program_under_that_number_is_stale(data_dir: Path) -> None:
    with subprocess.Popen(["sleep", "60"]) as other:
        name_in_pid_file(data_dir, other.pid)
        try:
            assert cluster._postmaster_state() == "stale"
        finally:
            other.kill()


def test_a_thread_of_another_process_is_stale(data_dir: Path) -> None:
    """/proc/<tid> exists for a thread although no process has that number."""
    started, done = threading.Event(), threading.Event()
    tid: list[int] = []

    def hold() -> None:
        tid.append(threading.get_native_id())
        started.set()
        done.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    started.wait(10)
    try:
        name_in_pid_file(data_dir, tid[0])
        assert Path(f"/proc/{tid[0]}").exists()
        assert cluster._postmaster_state() == "stale"
    finally:
        done.set()
        thread.join()
