"""compose.yaml, checked without Docker (not available where the tests run).

What is checked: the file is YAML that compose's merge keys resolve; the services are the
primary, a standby, PgBouncer, Mosquitto, a one-shot migration, two API instances and a
load balancer; every `depends_on`, build context and mounted file exists; images are pinned;
the API instances reach the database through PgBouncer with named prepared statements off,
LISTEN straight on the primary and reads on the standby; PgBouncer pools by transaction;
nginx balances over both instances; the shell scripts parse. Not checked: that the images
pull and the containers start.
"""

from __future__ import annotations

import configparser
import re
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from app.core.config import PROJECT_ROOT

COMPOSE = PROJECT_ROOT / "compose.yaml"


def compose() -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    return document


def test_services_and_their_dependencies() -> None:
    services = compose()["services"]
    assert set(services) == {
        "db", "standby", "pgbouncer", "mosquitto", "migrate", "api1", "api2", "lb",
    }  # fmt: skip
    for name, service in services.items():
        assert "image" in service or "build" in service, name
        if "image" in service:
            assert re.fullmatch(r"[\w./-]+:[\w.-]+", service["image"]), name
            assert not service["image"].endswith(":latest"), name
        if "build" in service:
            assert (PROJECT_ROOT / service["build"] / "Dockerfile").exists(), name
        for dependency in service.get("depends_on", []):
            assert dependency in services, (name, dependency)
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith("./"):
                assert (PROJECT_ROOT / source).exists(), (name, source)
            else:
                assert source in compose()["volumes"], (name, source)


def test_api_instances_go_through_pgbouncer_and_read_on_the_standby() -> None:
    services = compose()["services"]
    assert services["api1"] == services["api2"]
    environment = services["api1"]["environment"]
    assert urlsplit(environment["DATABASE_URL"]).hostname == "pgbouncer"
    assert urlsplit(environment["DATABASE_URL"]).port == 6432
    assert environment["DB_STATEMENT_CACHE"] == "0"
    assert urlsplit(environment["DATABASE_LISTEN_URL"]).hostname == "db"
    assert urlsplit(environment["DATABASE_READ_URL"]).hostname == "standby"
    assert services["api1"]["depends_on"]["migrate"] == {
        "condition": "service_completed_successfully"
    }
    # Migrations hold a session advisory lock: straight to the primary.
    assert urlsplit(services["migrate"]["environment"]["DATABASE_URL"]).hostname == "db"


def test_primary_streams_to_the_standby() -> None:
    services = compose()["services"]
    command = services["db"]["command"]
    assert "wal_level=replica" in command and "max_wal_senders" in command
    init = PROJECT_ROOT / "deploy/primary-init.sh"
    assert "pg_create_physical_replication_slot('standby1')" in init.read_text()
    entrypoint = (PROJECT_ROOT / "deploy/standby-entrypoint.sh").read_text()
    assert "pg_basebackup -h db" in entrypoint and "-S standby1 -R" in entrypoint
    assert "hot_standby=on" in entrypoint


def test_pgbouncer_pools_by_transaction() -> None:
    config = configparser.ConfigParser()
    config.read(PROJECT_ROOT / "deploy/pgbouncer/pgbouncer.ini")
    assert config["pgbouncer"]["pool_mode"] == "transaction"
    assert "statement_timeout" in config["pgbouncer"]["ignore_startup_parameters"]
    assert config["databases"]["telemetry"].startswith("host=db port=5432")
    assert config["pgbouncer"]["listen_port"] == "6432"


def test_the_load_balancer_spreads_over_both_instances() -> None:
    nginx = (PROJECT_ROOT / "deploy/nginx.conf").read_text()
    assert "server api1:8000" in nginx and "server api2:8000" in nginx
    assert compose()["services"]["lb"]["ports"] == ["8000:80"]


def test_shell_scripts_parse() -> None:
    for script in Path(PROJECT_ROOT / "deploy").glob("*.sh"):
        result = subprocess.run(["bash", "-n", str(script)], capture_output=True, check=False)
        assert result.returncode == 0, (script, result.stderr)
