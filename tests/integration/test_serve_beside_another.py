"""Two `telemetry serve` on one host with default settings (issue 23, defect 1).

The API port is the contract; the metrics port (default 9464) is a side door that a second
server always finds taken. Before the fix the second server exited with
`telemetry serve: [Errno 98] Address already in use`, naming no port.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from app.core.config import DEFAULTS, PROJECT_ROOT
from testkit.processes import free_port, stop_process

DEFAULT_METRICS_PORT = DEFAULTS["metrics_port"]


@contextlib.contextmanager
def default_metrics_port_taken() -> Iterator[None]:
    """Holds the default metrics port, as a first server on the host would (if something
    else holds it already, it is taken just the same)."""
    holder = socket.socket()
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    with contextlib.suppress(OSError):
        holder.bind(("127.0.0.1", DEFAULT_METRICS_PORT))
        holder.listen()
    try:
        yield
    finally:
        holder.close()


def serve_with_defaults(database_url: str, port: int, log: Path) -> subprocess.Popen[bytes]:
    """`telemetry serve --port P` with nothing set but the database: no METRICS_PORT."""
    env = {key: value for key, value in os.environ.items() if key != "METRICS_PORT"}
    env |= {
        "DATABASE_URL": database_url,
        "TELEMETRY_WEBHOOK_DISPATCHER": "0",
        "TELEMETRY_MQTT_INGEST": "0",
        "TELEMETRY_DOWNLINK_DISPATCH": "0",
    }
    with log.open("wb") as out:
        return subprocess.Popen(
            [str(Path(sys.executable).parent / "telemetry"), "serve", "--port", str(port)],
            cwd=PROJECT_ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=out,
            start_new_session=True,
        )


def health(port: int, process: subprocess.Popen[bytes], log: Path) -> dict[str, object]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert process.poll() is None, f"server exited: {log.read_text()}"
        with contextlib.suppress(httpx.HTTPError):
            response = httpx.get(f"http://127.0.0.1:{port}/api/v1/health", timeout=1)
            if response.status_code == 200:
                body: dict[str, object] = response.json()
                return body
        time.sleep(0.2)
    raise AssertionError(f"server on {port} did not answer: {log.read_text()}")


def test_two_servers_with_default_settings_both_serve_the_api(
    migrated: str, tmp_path: Path
) -> None:
    ports = [free_port(), free_port()]
    logs = [tmp_path / "first.log", tmp_path / "second.log"]
    with default_metrics_port_taken():
        processes = [
            serve_with_defaults(migrated, p, log) for p, log in zip(ports, logs, strict=True)
        ]
        try:
            for port, process, log in zip(ports, processes, logs, strict=True):
                assert health(port, process, log) == {"data": {"status": "ok", "database": "ok"}}
        finally:
            for process in processes:
                stop_process(process)
    for log in logs:
        refusals = [line for line in log.read_text().splitlines() if "metrics port" in line]
        assert refusals == [
            f"telemetry serve: metrics port 127.0.0.1:{DEFAULT_METRICS_PORT} is not available "
            "(Address already in use); serving the API without metrics (choose a free port "
            "with --metrics-port P, or turn them off with METRICS_PORT=0)"
        ]
