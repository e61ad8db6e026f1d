"""`telemetry serve` for the tests, over the suite's database or another one."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager

import httpx

from testkit.processes import Server
from testkit.processes import start_server as served

# D6: every timestamp the API writes is RFC 3339 UTC with `Z`. Checked here, once, on every
# JSON response any test receives from the app or a live server.
RFC3339_Z = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$")


TIMESTAMP_KEYS = re.compile(r"(At|^time|^from|^to|^retentionCutoff)$")


def _bad_timestamps(value: object, path: str = "") -> list[str]:
    if isinstance(value, dict):
        bad = []
        for key, item in value.items():
            where = f"{path}.{key}"
            if isinstance(item, str) and TIMESTAMP_KEYS.search(key) and not RFC3339_Z.match(item):
                bad.append(f"{where}={item!r}")
            else:
                bad.extend(_bad_timestamps(item, where))
        return bad
    if isinstance(value, list):
        return [b for i, item in enumerate(value) for b in _bad_timestamps(item, f"{path}[{i}]")]
    return []


async def check_timestamps(response: httpx.Response) -> None:
    if not response.headers.get("content-type", "").startswith("application/json"):
        return
    await response.aread()
    try:
        document = json.loads(response.content)
    except ValueError:
        return
    bad = _bad_timestamps(document)
    assert not bad, f"timestamps not RFC 3339 UTC with Z in {response.url}: {bad}"


class LiveServer(Server):
    """`telemetry serve` started by a test (`start_server`), with a client of its own."""

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            base_url=self.base_url, timeout=10, event_hooks={"response": [check_timestamps]}
        )


def start_server(
    database_url: str, workers: int = 2, env: dict[str, str] | None = None
) -> LiveServer:
    """`telemetry serve` as users start it, on a free loopback port (`env`: extra settings;
    metrics on another port), in a process group of its own so that a test can kill the
    server and its workers at once.

    Its webhook dispatcher, MQTT consumers and downlink dispatcher are off unless `env`
    switches them on, so that the tests that own those loops (with their own settings) are
    not raced by the shared server."""
    loops_off = {
        "TELEMETRY_WEBHOOK_DISPATCHER": "0",
        "TELEMETRY_MQTT_INGEST": "0",
        "TELEMETRY_DOWNLINK_DISPATCH": "0",
    }
    server = served(database_url, workers, {**loops_off, **(env or {})}, new_session=True)
    return LiveServer(server.base_url, server.process)


@contextmanager
def serving(database_url: str, env: dict[str, str] | None = None) -> Iterator[LiveServer]:
    """`start_server` (two workers) for a fixture's lifetime, stopped however it ends."""
    server = start_server(database_url, workers=2, env=env)
    try:
        yield server
    finally:
        server.stop()
