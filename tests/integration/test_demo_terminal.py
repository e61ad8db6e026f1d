"""README command 1 keeps its terminal readable (issue 23, defect 9).

`scripts/demo.sh` is run as users run it, on a scratch database of the project's cluster and
free ports. Before the fix its terminal was flooded with a JSON access-log line for every
simulator request (8 uplinks every 3 s); now the server's log goes to `serve.log` and the
terminal keeps the banner, the key, the URLs and the signed events.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import uuid
from pathlib import Path

from app.core.config import PROJECT_ROOT
from app.ops import cluster
from testkit.processes import free_port

EVENTS_WANTED = 3


def test_the_demo_terminal_shows_the_banner_key_urls_and_events_and_no_log_lines(
    tmp_path: Path,
) -> None:
    name = f"telemetry_demo_{uuid.uuid4().hex[:10]}"
    cluster.ensure_database(name)
    port, webhook_port = free_port(), free_port()
    terminal = tmp_path / "terminal.txt"
    out = tmp_path / "out"
    env = {
        **os.environ,
        "DATABASE_URL": cluster.database_url(name),
        "PORT": str(port),
        "WEBHOOK_PORT": str(webhook_port),
        "WORKERS": "1",
        "DEMO_OUT": str(out),
        "METRICS_PORT": "0",
        "TELEMETRY_MQTT_INGEST": "0",
        "TELEMETRY_DOWNLINK_DISPATCH": "0",
    }
    with terminal.open("wb") as sink:
        demo = subprocess.Popen(
            ["bash", "scripts/demo.sh"],
            cwd=PROJECT_ROOT,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            assert demo.poll() is None, terminal.read_text()
            if terminal.read_text().count(" verified ") >= EVENTS_WANTED:
                break
            time.sleep(0.5)
        else:
            raise AssertionError(f"no {EVENTS_WANTED} events in time:\n{terminal.read_text()}")
    finally:
        os.killpg(demo.pid, signal.SIGTERM)
        demo.wait(timeout=30)
        cluster.drop_database(name, check=False)
    shown = terminal.read_text()
    assert "API key (partner, shown once): svc_live_" in shown
    assert 'curl -s -H "Authorization: Bearer svc_live_' in shown
    assert f"telemetry serve: listening on http://127.0.0.1:{port}" in shown
    assert f"http://127.0.0.1:{port}/api/v1/docs" in shown
    assert f"Server log (a JSON line per request): {out}/serve.log" in shown
    assert not [line for line in shown.splitlines() if line.startswith("{")]
    assert "telemetry.access" not in shown
    records = [
        json.loads(line)
        for line in (out / "serve.log").read_text().splitlines()
        if line.startswith("{")
    ]
    ingests = [
        record
        for record in records
        if record.get("logger") == "telemetry.access"
        and record.get("route") == "/ingest/chirpstack"
    ]
    assert ingests, records[-5:]
