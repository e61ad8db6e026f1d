"""The project's own local TimescaleDB cluster (`telemetry db start|stop`).

The data directory lives in the checkout (`.pgdata/`, git-ignored). PostgreSQL refuses
to run as root, so when started by root the server runs as the `postgres` system user.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import time
from pathlib import Path

from app.core.config import local_database_url, settings

DATA_DIR = Path(settings().pgdata)
PORT = settings().db_port
SUPERUSER = "telemetry"
# How long `db start` keeps trying after a crash (see _start_server).
START_RETRY_S = 20.0
DATABASE = "telemetry"

# Sized for the box this runs on (2 cores, 24 GiB) with room for the app and benchmarks.
SERVER_SETTINGS = {
    "listen_addresses": "'127.0.0.1'",
    "port": str(PORT),
    "unix_socket_directories": "''",
    "shared_preload_libraries": "'timescaledb'",
    "timescaledb.telemetry_level": "off",
    "max_connections": "200",
    "shared_buffers": "'3GB'",
    "effective_cache_size": "'12GB'",
    "work_mem": "'32MB'",
    "maintenance_work_mem": "'1GB'",
    "random_page_cost": "1.1",
    "effective_io_concurrency": "200",
    "max_wal_size": "'8GB'",
    "checkpoint_timeout": "'15min'",
    "wal_compression": "on",
    # Short queries dominate; JIT compilation only adds latency to them.
    "jit": "off",
    "max_worker_processes": "16",
    "max_parallel_workers_per_gather": "2",
    "timescaledb.max_background_workers": "4",
    "log_min_duration_statement": "1000",
    "timezone": "'UTC'",
}


def pg_bindir() -> Path:
    output = subprocess.run(
        ["pg_config", "--bindir"], check=True, capture_output=True, text=True
    ).stdout.strip()
    return Path(output)


def _as_owner(args: list[str]) -> list[str]:
    """A server binary's command line, run as `postgres` when we are root."""
    return ["runuser", "-u", "postgres", "--", *args] if os.geteuid() == 0 else args


def _run_as_owner(args: list[str], stdout: int | None = None) -> None:
    subprocess.run(_as_owner(args), check=True, text=True, stdout=stdout)


def _prepare_data_dir() -> None:
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        owner = pwd.getpwnam("postgres")
        os.chown(DATA_DIR, owner.pw_uid, owner.pw_gid)
        # The server user must be able to reach the data directory inside the checkout.
        for parent in DATA_DIR.parents:
            mode = parent.stat().st_mode
            if not mode & 0o001:
                os.chmod(parent, mode | 0o001)
    os.chmod(DATA_DIR, 0o700)


def _initdb() -> None:
    _prepare_data_dir()
    bindir = pg_bindir()
    _run_as_owner(
        [
            str(bindir / "initdb"),
            "-D",
            str(DATA_DIR),
            "-U",
            SUPERUSER,
            "--auth=trust",
            "--encoding=UTF8",
            "--locale=C.UTF-8",
        ],
        stdout=subprocess.DEVNULL,
    )
    conf = DATA_DIR / "postgresql.conf"
    with conf.open("a") as handle:
        handle.write("\n# telemetry: settings for this box\n")
        for name, value in SERVER_SETTINGS.items():
            handle.write(f"{name} = {value}\n")
    (DATA_DIR / "pg_hba.conf").write_text(
        "# Loopback only; the cluster belongs to the checkout.\nhost all all 127.0.0.1/32 trust\n"
    )
    if os.geteuid() == 0:
        owner = pwd.getpwnam("postgres")
        for path in (conf, DATA_DIR / "pg_hba.conf"):
            os.chown(path, owner.pw_uid, owner.pw_gid)


def is_running() -> bool:
    """True when this checkout's server is up and accepting connections on PORT."""
    return accepting(DATA_DIR, PORT)


def accepting(directory: Path, port: int) -> bool:
    """True when the server of the data directory is up and accepting connections on port
    (the cluster's, or a standby's, app/ops/standby.py)."""
    if not (directory / "postmaster.pid").exists():
        return False
    result = subprocess.run(
        [str(pg_bindir() / "pg_isready"), "-h", "127.0.0.1", "-p", str(port)],
        capture_output=True,
        check=False,
    )
    return result.returncode == 0


def start_arguments(directory: Path, port: int, options: str = "") -> list[str]:
    """pg_ctl's arguments that start the server of the data directory on port, logging to
    its server.log and waiting up to 60 s for it. The port of this run wins over the one
    written at initdb."""
    server_options = f"-p {port} {options}".rstrip()
    return ["-l", str(directory / "server.log"), "-w", "-t", "60", "-o", server_options, "start"]


def _postmaster_state() -> str:
    """`none` (no pid file), `alive`, or `stale`: the pid file names a process that is gone
    or a zombie. A postmaster killed with SIGKILL leaves its pid file behind, and where
    nothing reaps it (a container without an init) its pid stays a zombie that both
    `pg_ctl status` and the new postmaster's lock-file check take for a running server."""
    try:
        pid = int((DATA_DIR / "postmaster.pid").read_text().split("\n", 1)[0])
    except (OSError, ValueError):
        return "none"
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return "stale"
    # The state is the field after the parenthesised command name.
    command, rest = stat.split("(", 1)[1].rsplit(")", 1)
    if rest.split()[0] in ("Z", "X"):
        return "stale"
    # After a reboot or in a fresh container the number may now belong to something else:
    # another program, or a thread of one (/proc/<tid> exists for every thread, though no
    # process of that number does), which would keep the data directory locked for good.
    return "alive" if command.startswith("postgres") and _leads_its_thread_group(pid) else "stale"


def _leads_its_thread_group(pid: int) -> bool:
    """Whether `pid` is a process and not one of the threads of another."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    tgid = next((line.split()[1] for line in status.splitlines() if line.startswith("Tgid:")), "")
    return tgid == str(pid)


def _start_server() -> None:
    """pg_ctl start, retried for a bounded time: right after a crash, backends of the dead
    postmaster may still hold its shared memory for a moment, and PostgreSQL refuses to
    start until they have exited."""
    command = [str(pg_bindir() / "pg_ctl"), "-D", str(DATA_DIR), *start_arguments(DATA_DIR, PORT)]
    deadline = time.monotonic() + START_RETRY_S
    while True:
        if _postmaster_state() == "stale":
            (DATA_DIR / "postmaster.pid").unlink(missing_ok=True)
        try:
            _run_as_owner(command, stdout=subprocess.DEVNULL)
            return
        except subprocess.CalledProcessError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def database_url(database: str = DATABASE) -> str:
    return local_database_url(database, PORT)


def start() -> str:
    if not (DATA_DIR / "PG_VERSION").exists():
        if shutil.which("pg_config") is None:
            raise RuntimeError("PostgreSQL is not installed; run scripts/install-system.sh")
        _initdb()
    if not is_running():
        if _postmaster_state() == "alive":
            # Up, but not on this run's port (TELEMETRY_DB_PORT changed): restart it.
            stop()
        _start_server()
        for _ in range(100):
            if is_running():
                break
            time.sleep(0.1)
    ensure_database(DATABASE)
    return database_url()


def ensure_database(name: str) -> None:
    psql = str(pg_bindir() / "psql")
    base = [psql, "-h", "127.0.0.1", "-p", str(PORT), "-U", SUPERUSER, "-d", "postgres", "-tA"]
    exists = subprocess.run(
        [*base, "-c", f"SELECT 1 FROM pg_database WHERE datname = '{name}'"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    if not exists:
        subprocess.run([*base, "-c", f'CREATE DATABASE "{name}"'], check=True, capture_output=True)


def drop_database(name: str, check: bool = True) -> None:
    """Drops a scratch database of the local cluster, ending its sessions (a test run's or
    a generator's); `check=False` for a clean-up that must not hide the error before it."""
    subprocess.run(
        [
            str(pg_bindir() / "psql"),
            database_url("postgres"),
            "-qc",
            f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)',
        ],
        check=check,
        capture_output=True,
    )


def stop() -> None:
    state = _postmaster_state()
    if state == "stale":
        (DATA_DIR / "postmaster.pid").unlink(missing_ok=True)
    elif state == "alive":
        _run_as_owner(
            [str(pg_bindir() / "pg_ctl"), "-D", str(DATA_DIR), "-m", "fast", "-w", "stop"],
            stdout=subprocess.DEVNULL,
        )
