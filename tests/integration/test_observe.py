"""Request ids, JSON access logs, error records and Prometheus metrics (issue 12).

The server is `telemetry serve --workers 2` as users start it, its stdout read back from a
file and its metrics scraped from the separate metrics port.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
from litestar import get
from litestar.testing import AsyncTestClient

from app.core.config import PROJECT_ROOT, Settings
from app.main import create_app
from app.observe.logs import configure_logging
from testkit.factories import World, load
from testkit.processes import free_port, wait_until_up
from tests.support import chirpstack as cs
from tests.support.helpers import assert_error, bearer, scrape_metrics


class Served:
    def __init__(self, base_url: str, metrics_url: str, log: Path, metrics_dir: Path) -> None:
        self.base_url = base_url
        self.metrics_url = metrics_url
        self.log = log
        self.metrics_dir = metrics_dir

    def records(self) -> list[dict[str, Any]]:
        lines = self.log.read_text().splitlines()
        return [json.loads(line) for line in lines if line.startswith("{")]

    async def metrics(self) -> dict[str, float]:
        return await scrape_metrics(self.metrics_url)


@pytest.fixture(scope="module")
def served(migrated: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    directory = tmp_path_factory.mktemp("observe")
    log = directory / "stdout.log"
    port, metrics_port = free_port(), free_port()
    env = {
        **os.environ,
        "DATABASE_URL": migrated,
        "METRICS_PORT": str(metrics_port),
        "PROMETHEUS_MULTIPROC_DIR": str(directory / "metrics"),
        "LOG_FORMAT": "json",
    }
    with log.open("wb") as out:
        process = subprocess.Popen(
            [
                str(Path(sys.executable).parent / "telemetry"),
                *("serve", "--port", str(port), "--workers", "2"),
            ],
            cwd=PROJECT_ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base_url = f"http://127.0.0.1:{port}"
    wait_until_up(f"{base_url}/api/v1/health", process, log=log)
    yield Served(base_url, f"http://127.0.0.1:{metrics_port}/metrics", log, directory / "metrics")
    process.terminate()
    process.wait(timeout=15)


def test_serve_prints_where_it_listens(served: Served) -> None:
    banner = served.log.read_text()
    assert f"listening on {served.base_url}" in banner
    assert f"{served.base_url}/api/v1/docs" in banner
    assert f"{served.metrics_url} (no key)" in banner
    assert re.search(r"database: +postgresql://telemetry@127\.0\.0\.1:\d+/telemetry_test_", banner)


async def test_access_log_line_per_request_with_request_id(
    served: Served, pool: asyncpg.Pool
) -> None:
    w = World()
    p, _, device = w.tenancy_with_device()
    key = w.key(p, ["devices:read"])
    await load(pool, w)
    async with httpx.AsyncClient(base_url=served.base_url, timeout=10) as http:
        given = await http.get(
            f"/api/v1/devices/{device['id']}",
            headers=bearer(key, **{"X-Request-ID": "trace-42.a:b"}),
        )
        generated = await http.get("/api/v1/devices", headers=bearer("nope"))
        hostile = await http.get("/api/v1/health", headers={"X-Request-ID": "a b\tc" * 50})
    assert given.status_code == 200
    assert given.headers["x-request-id"] == "trace-42.a:b"
    assert generated.status_code == 401
    assert re.fullmatch(r"[0-9a-f]{32}", generated.headers["x-request-id"])
    # An id that is not a sane token is replaced, never echoed into headers or logs.
    assert re.fullmatch(r"[0-9a-f]{32}", hostile.headers["x-request-id"])
    await asyncio.sleep(0.3)
    records = served.records()
    by_id = {r.get("request_id"): r for r in records if r.get("event") == "request"}
    line = by_id["trace-42.a:b"]
    assert line["logger"] == "telemetry.access"
    assert line["method"] == "GET"
    assert line["route"] == "/api/v1/devices/{device_id}"
    assert line["status"] == 200
    assert line["key_id"] == key.id
    assert 0 < line["duration_ms"] < 10_000
    assert line["level"] == "info"
    assert line["timestamp"].endswith("Z")
    failed = by_id[generated.headers["x-request-id"]]
    assert failed["status"] == 401 and failed["key_id"] is None
    assert failed["route"] == "/api/v1/devices"
    # The secret never reaches the log, in any line.
    assert str(key) not in served.log.read_text()


async def test_metrics_add_up_over_workers(served: Served, pool: asyncpg.Pool) -> None:
    w = World()
    p, sa, device = w.tenancy_with_device([w.field("temperature")])
    w.gateway(sa, gatewayEui="0016c001ff10a235")
    key = w.key(p, ["telemetry:read"])
    token = w.integration(p)
    await load(pool, w)
    health = 'telemetry_http_requests_total{method="GET",route="/api/v1/health",status="200"}'
    await asyncio.sleep(1.2)  # earlier requests reach the shared metrics within a second
    before = (await served.metrics()).get(health, 0)
    # New connections each time, so that both workers answer some.
    for _ in range(40):
        async with httpx.AsyncClient(base_url=served.base_url, timeout=5) as fresh:
            assert (await fresh.get("/api/v1/health")).status_code == 200
    headers = bearer(key)
    async with httpx.AsyncClient(base_url=served.base_url, timeout=10) as http:
        stored = await http.post(
            "/ingest/chirpstack?event=up",
            content=cs.uplink(device["devEui"], {"temperature": 21.5}),
            headers={**cs.bearer(token), "Content-Type": "application/json"},
        )
        assert stored.status_code == 204
        for _ in range(5):
            assert (
                await http.get(f"/api/v1/devices/{device['id']}/latest", headers=headers)
            ).status_code == 200
    await asyncio.sleep(1.5)  # the workers copy pool and cache counts once a second
    after = await served.metrics()
    assert after[health] - before == 40
    assert after['telemetry_ingest_events_total{event="up",outcome="stored"}'] >= 1
    latest = (
        'telemetry_http_requests_total{method="GET",'
        'route="/api/v1/devices/{device_ref}/latest",status="200"}'
    )
    assert after[latest] >= 5
    assert (
        after['telemetry_http_request_duration_seconds_count{method="GET",route="/api/v1/health"}']
        >= 40
    )
    lookups = sum(
        v for k, v in after.items() if k.startswith('telemetry_cache_lookups_total{cache="latest"')
    )
    assert lookups >= 5
    assert after['telemetry_cache_lookups_total{cache="auth",result="hit"}'] >= 1
    # Each of the two workers keeps at least one connection open: the gauge is their sum.
    assert after["telemetry_db_pool_connections"] >= 2
    assert "telemetry_db_pool_waiting" in after and "telemetry_db_pool_connections_in_use" in after
    # Both workers counted requests, each in its own file, and the scrape added them up.
    pids = {f.stem.rsplit("_", 1)[-1] for f in served.metrics_dir.glob("counter_*.db")}
    assert len(pids) == 2, pids


def test_metrics_need_no_key_and_are_not_on_the_api_port(served: Served) -> None:
    assert httpx.get(served.metrics_url, timeout=5).status_code == 200
    api = httpx.get(f"{served.base_url}/metrics", timeout=5)
    assert_error(api, 404, "not_found")


@get("/api/v1/boom", opt={"public": True}, sync_to_thread=False)
def _boom() -> None:
    raise RuntimeError("boom in a handler")


async def test_error_is_one_json_record_with_traceback(
    settings: Settings, migrated: str, capfd: pytest.CaptureFixture[str]
) -> None:
    app = create_app(settings)
    app.register(_boom)
    async with AsyncTestClient(app=app) as client:
        capfd.readouterr()
        response = await client.get("/api/v1/boom", headers={"X-Request-ID": "boom-1"})
    assert response.status_code == 500
    assert response.json() == {"error": {"code": "internal_error", "message": "internal error"}}
    out = capfd.readouterr().out
    records = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    errors = [r for r in records if r.get("level") == "error"]
    assert len(errors) == 1, out
    error = errors[0]
    assert error["request_id"] == "boom-1"
    assert error["logger"] == "telemetry.errors"
    assert "Traceback (most recent call last)" in error["exception"]
    assert "RuntimeError: boom in a handler" in error["exception"]
    # The whole traceback is inside that one line.
    assert not [line for line in out.splitlines() if line.startswith("  File ")]
    access = [r for r in records if r.get("event") == "request"]
    assert access and access[0]["status"] == 500 and access[0]["request_id"] == "boom-1"


def test_console_format_is_for_humans(
    settings: Settings, capfd: pytest.CaptureFixture[str]
) -> None:
    import logging

    configure_logging(Settings(database_url=settings.database_url, log_format="console"))
    try:
        capfd.readouterr()
        logging.getLogger("telemetry.test").warning("disk almost full", extra={})
        out = capfd.readouterr().out
        assert "disk almost full" in out
        assert not out.lstrip().startswith("{")
        assert "warning" in out.lower()
    finally:
        configure_logging(settings)
