"""Hot standbys of the local cluster (`telemetry db start|stop --standby [--port P]`).

A standby is PostgreSQL's own streaming replication, for development and tests: a base
backup of the running primary (`pg_basebackup -R`) taken through a physical replication
slot of its own (`standby_<port>`, so the primary keeps the WAL the standby still needs),
started in hot-standby mode on its own port and data directory (`<pgdata>-standby-<port>`
beside the primary's). `stop` keeps the data directory and the slot, so the next start
resumes streaming; `stop --drop` also removes both (a stopped standby's slot holds WAL on
the primary until it is dropped).
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import time
from pathlib import Path

from app.ops import cluster

REPLICATION_RULE = "host replication all 127.0.0.1/32 trust"
# A standby of this box needs less memory than the primary; hot_standby_feedback keeps
# the primary from removing rows a long standby read still needs (no recovery conflicts).
STANDBY_OPTIONS = (
    "-c shared_buffers=512MB -c hot_standby_feedback=on -c max_standby_streaming_delay=5s"
)


def default_port() -> int:
    return cluster.PORT + 10


def data_dir(port: int) -> Path:
    return cluster.DATA_DIR.parent / f"{cluster.DATA_DIR.name}-standby-{port}"


def slot_name(port: int) -> str:
    return f"standby_{port}"


def url(port: int, database: str = cluster.DATABASE) -> str:
    return f"postgresql://{cluster.SUPERUSER}@127.0.0.1:{port}/{database}"


def _psql(sql: str) -> str:
    return subprocess.run(
        [str(cluster.pg_bindir() / "psql"), cluster.database_url("postgres"), "-tAc", sql],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def allow_replication() -> None:
    """Lets loopback replication connections in (initdb's rules only allow databases)."""
    hba = cluster.DATA_DIR / "pg_hba.conf"
    if REPLICATION_RULE not in hba.read_text():
        with hba.open("a") as handle:
            handle.write(REPLICATION_RULE + "\n")
        _psql("SELECT pg_reload_conf()")


def _prepare(directory: Path) -> None:
    directory.mkdir(parents=True)
    if os.geteuid() == 0:
        owner = pwd.getpwnam("postgres")
        os.chown(directory, owner.pw_uid, owner.pw_gid)
    os.chmod(directory, 0o700)


def _pg_ctl(directory: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        cluster._as_owner([str(cluster.pg_bindir() / "pg_ctl"), "-D", str(directory), *args]),
        capture_output=True,
        text=True,
        check=False,
    )


def is_running(port: int) -> bool:
    return cluster.accepting(data_dir(port), port)


def base_backup(port: int) -> None:
    """A fresh copy of the primary, streaming its WAL through a new slot of its own."""
    directory = data_dir(port)
    shutil.rmtree(directory, ignore_errors=True)
    slot = slot_name(port)
    _psql(
        f"SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
        f"WHERE slot_name = '{slot}'"
    )
    _prepare(directory)
    subprocess.run(
        cluster._as_owner(
            [
                str(cluster.pg_bindir() / "pg_basebackup"),
                "-h", "127.0.0.1",
                "-p", str(cluster.PORT),
                "-U", cluster.SUPERUSER,
                "-D", str(directory),
                "-X", "stream",
                "-c", "fast",
                "-C", "-S", slot,
                "-R",
            ]
        ),
        check=True,
        capture_output=True,
        text=True,
    )  # fmt: skip
    # The primary's own log came along in the copy; the standby starts its own.
    (directory / "server.log").unlink(missing_ok=True)


def start(port: int | None = None) -> str:
    """Starts (creating the first time) a hot standby of the running local cluster."""
    port = port or default_port()
    if port == cluster.PORT:
        raise RuntimeError(f"port {port} is the primary's; give the standby another --port")
    cluster.start()
    allow_replication()
    directory = data_dir(port)
    if not (directory / "PG_VERSION").exists():
        base_backup(port)
    if not is_running(port):
        log = directory / "server.log"
        result = _pg_ctl(directory, *cluster.start_arguments(directory, port, STANDBY_OPTIONS))
        if result.returncode != 0:
            tail = log.read_text()[-500:] if log.exists() else result.stderr
            raise RuntimeError(f"standby did not start: {tail.strip().splitlines()[-1:]}")
        for _ in range(100):
            if is_running(port):
                break
            time.sleep(0.1)
    return url(port)


def stop(port: int | None = None, drop: bool = False) -> None:
    """Stops the standby; with `drop`, removes its data directory and its slot as well."""
    port = port or default_port()
    directory = data_dir(port)
    if (directory / "postmaster.pid").exists():
        _pg_ctl(directory, "-m", "fast", "-w", "stop")
    if drop:
        slot = slot_name(port)
        shutil.rmtree(directory, ignore_errors=True)
        # The primary's sender of that slot exits a moment after the standby stops.
        for _ in range(50):
            active = f"SELECT 1 FROM pg_replication_slots WHERE slot_name = '{slot}' AND active"
            if not cluster.is_running() or not _psql(active):
                break
            time.sleep(0.1)
        if cluster.is_running():
            _psql(
                f"SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
                f"WHERE slot_name = '{slot}'"
            )
