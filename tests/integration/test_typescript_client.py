"""The TypeScript client (clients/typescript, issue 29 item 2): its example type-checked by
`tsc --noEmit` against the generated types, then run once with node against the served
demo world. Skipped, with the reason, only where node is not installed
(scripts/install-system.sh installs it, so CI runs it)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from clients.generate import CLIENTS, node_available, npm_install
from tests.support.servers import LiveServer

PROJECT = CLIENTS / "typescript"
DEVICES = ["70b3d57ed0000001", "70b3d57ed0000007"]

pytestmark = pytest.mark.skipif(
    not node_available(),
    reason="node and npm are not installed: the TypeScript client is not checked here "
    "(scripts/install-system.sh installs them)",
)


def _tsc(*options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["node", str(PROJECT / "node_modules" / "typescript" / "bin" / "tsc"), *options],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def built() -> Path:
    npm_install(PROJECT)
    checked = _tsc("--noEmit", "-p", ".")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    # Emitted without checking again (it was just checked).
    emitted = _tsc("-p", ".", "--noCheck")
    assert emitted.returncode == 0, emitted.stdout + emitted.stderr
    return PROJECT / "dist" / "example.js"


def test_the_example_reads_fleet_latest_and_the_stream(
    built: Path, demo_served: LiveServer, demo_keys: dict[str, str]
) -> None:
    key = demo_keys["sub_account"]
    document = httpx.get(f"{demo_served.base_url}/api/v1/openapi.json").json()
    with httpx.Client(
        base_url=demo_served.base_url, headers={"Authorization": f"Bearer {key}"}
    ) as http:
        latest = {eui: http.get(f"/api/v1/devices/{eui}/latest").json()["data"] for eui in DEVICES}
    result = subprocess.run(
        ["node", str(built), demo_served.base_url, key, ",".join(DEVICES)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    steps: dict[str, Any] = {}
    for line in result.stdout.splitlines():
        step = json.loads(line)
        steps[step.pop("step")] = step
    first = latest[DEVICES[0]]
    assert steps["deviceLatest"] == {"deviceId": first["deviceId"], "time": first["time"]}

    ids = sorted(item["deviceId"] for item in latest.values())
    if "/api/v1/latest" in document["paths"]:
        fleet = steps["fleetLatest"]
        assert fleet["served"] is True and fleet["etag"]
        assert [item["deviceId"] for item in fleet["items"]] == ids
        for item in fleet["items"]:
            mine = next(v for v in latest.values() if v["deviceId"] == item["deviceId"])
            assert item["values"] == mine["values"]
        assert steps["fleetLatestAgain"] == {"status": 304}
    else:
        assert steps["fleetLatest"] == {"served": False}
    if "/api/v1/stream" in document["paths"]:
        stream = steps["stream"]
        assert stream["served"] is True
        assert sorted(event["deviceId"] for event in stream["events"]) == ids
        assert all(event["id"] for event in stream["events"])
    else:
        assert steps["stream"] == {"served": False}
