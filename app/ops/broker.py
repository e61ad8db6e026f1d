"""The project's own local Mosquitto broker (`telemetry mqtt start|stop`), the MQTT twin of
`telemetry db start`: for development, tests and the demo.

Its data directory lives in the checkout (`.mosquitto/`, git-ignored; Settings.mqtt_dir,
TELEMETRY_MQTT_DIR, moves it) and it listens on 127.0.0.1 only, on Settings.mqtt_port
(TELEMETRY_MQTT_PORT, default 25883). Every function takes the Settings to use (the
process's when None), so a test or benchmark can run a broker of its own.
Persistence is on, so a persistent session's queued QoS 1 messages survive a restart.
Mosquitto writes its persistence file on a clean shutdown and every
`autosave_interval` seconds: a broker killed with -9 loses what arrived since the last
save, so `stop` always shuts it down cleanly.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from app.core.config import Settings, settings


def data_dir(config: Settings | None = None) -> Path:
    return Path((config or settings()).mqtt_dir)


def port(config: Settings | None = None) -> int:
    return (config or settings()).mqtt_port


def url(config: Settings | None = None) -> str:
    return f"mqtt://127.0.0.1:{port(config)}"


def _binary() -> str:
    found = shutil.which("mosquitto") or (
        "/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None
    )
    if found is None:
        raise RuntimeError("mosquitto is not installed (run scripts/install-system.sh)")
    return found


def _config(directory: Path, listen_port: int) -> str:
    # Mosquitto started by root drops to the `mosquitto` user unless told otherwise; the
    # data directory belongs to whoever runs the command.
    user = pwd.getpwuid(os.geteuid()).pw_name
    return "\n".join(
        [
            "# Written by `telemetry mqtt start`; rewritten on every start.",
            f"listener {listen_port} 127.0.0.1",
            "allow_anonymous true",
            f"user {user}",
            "persistence true",
            f"persistence_location {directory}/",
            "autosave_interval 1",
            # A persistent session of an offline consumer keeps every QoS 1 message: the
            # default limit (1000) would silently drop the rest.
            "max_queued_messages 0",
            "max_queued_bytes 0",
            "max_inflight_messages 1000",
            # $SYS figures every second: the benchmark reads the broker's stored-message count.
            "sys_interval 1",
            f"pid_file {directory}/mosquitto.pid",
            f"log_dest file {directory}/mosquitto.log",
            "",
        ]
    )


def _pid(directory: Path) -> int | None:
    try:
        pid = int((directory / "mosquitto.pid").read_text().strip())
    except (FileNotFoundError, ValueError):
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    return pid


def _accepts(listen_port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", listen_port), timeout=0.5):
            return True
    except OSError:
        return False


def start(config: Settings | None = None) -> str:
    """Starts the broker unless it runs; returns its URL. Idempotent."""
    directory, listen_port = data_dir(config), port(config)
    directory.mkdir(parents=True, exist_ok=True)
    if _pid(directory) is not None:
        if _accepts(listen_port):
            return url(config)
        stop(config)  # This directory's broker, on another port: restarted on the one asked for.
    if _accepts(listen_port):
        raise RuntimeError(f"port {listen_port} is taken by another program")
    conf = directory / "mosquitto.conf"
    conf.write_text(_config(directory, listen_port))
    subprocess.run([_binary(), "-c", str(conf), "-d"], check=True)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if _accepts(listen_port):
            return url(config)
        time.sleep(0.05)
    raise RuntimeError(f"mosquitto did not start; see {directory / 'mosquitto.log'}")


def stop(config: Settings | None = None) -> None:
    """Shuts the broker down cleanly (it saves its persistence file) and waits for it."""
    directory = data_dir(config)
    pid = _pid(directory)
    if pid is None:
        return
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if _pid(directory) is None:
            return
        time.sleep(0.05)
    raise RuntimeError(f"mosquitto (pid {pid}) did not stop within 10 s")
