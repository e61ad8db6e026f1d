"""Processes that the tests and the benchmark suite both start: a free loopback port,
`telemetry serve` started as users start it, and a bounded stop."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from app.core.config import PROJECT_ROOT


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def stop_process(process: subprocess.Popen[Any], grace_s: float = 15, kill_s: float = 5) -> None:
    """SIGTERM, then SIGKILL if it has not ended within `grace_s`; a no-op if it has ended."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=kill_s)


class Server:
    """A server process on 127.0.0.1; stop it with `.stop()` or use `with`."""

    def __init__(self, base_url: str, process: subprocess.Popen[bytes]) -> None:
        self.base_url = base_url
        self.process = process

    def stop(self) -> None:
        stop_process(self.process)

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def wait_until_up(
    url: str, process: subprocess.Popen[bytes], timeout: float = 30, log: Path | None = None
) -> None:
    """Waits until `url` answers below 500; a server that exits or does not come up within
    `timeout` fails, with the end of its `log` when it writes one."""
    import httpx

    def failed(what: str) -> RuntimeError:
        return RuntimeError(what + (f"\n{log.read_text()[-4000:]}" if log is not None else ""))

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise failed(f"server exited with status {process.returncode}")
        try:
            if httpx.get(url, timeout=1).status_code < 500:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    process.kill()
    raise failed(f"server did not come up: {url}")


def start_server(
    database_url: str,
    workers: int = 2,
    env: dict[str, str] | None = None,
    new_session: bool = False,
) -> Server:
    """`telemetry serve --workers N` on a free loopback port with the given DATABASE_URL
    (`new_session`: in a process group of its own, so that it and its workers can be
    killed at once)."""
    port = free_port()
    process = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "telemetry"),
            "serve",
            "--port",
            str(port),
            "--workers",
            str(workers),
        ],
        cwd=PROJECT_ROOT,
        # Metrics on, as served by default, on a port of its own (the default one may be
        # taken by another server on the machine).
        env={
            **os.environ,
            "DATABASE_URL": database_url,
            "METRICS_PORT": str(free_port()),
            **(env or {}),
        },
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=new_session,
    )
    base_url = f"http://127.0.0.1:{port}"
    wait_until_up(f"{base_url}/api/v1/health", process)
    return Server(base_url, process)
