"""A customer's webhook endpoint for tests: a real HTTP server on a loopback socket whose
answers each test programs (status, delay, headers), and which records every request.
Signatures are verified with the reference `standardwebhooks` library and bodies against
the published JSON Schemas (app/webhooks/schemas/)."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jsonschema
from standardwebhooks.webhooks import Webhook

from app.core.config import PROJECT_ROOT
from tests.support.cli import TELEMETRY

SCHEMAS = {
    path.name.removesuffix(".json"): json.loads(path.read_text())
    for path in (PROJECT_ROOT / "app" / "webhooks" / "schemas").glob("*.json")
}


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float

    @property
    def event(self) -> dict[str, Any]:
        value: dict[str, Any] = json.loads(self.body)
        return value


Answer = tuple[int, dict[str, str], float]  # status, headers, delay in seconds


@dataclass
class Receiver:
    """Routes by path: `answers[path]` is a function of the attempt number on that path."""

    server: ThreadingHTTPServer
    requests: list[Received] = field(default_factory=list)
    answers: dict[str, Callable[[int], Answer]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}"

    def url(self, path: str) -> str:
        return self.base + path

    def on(self, path: str) -> list[Received]:
        with self.lock:
            return [r for r in self.requests if r.path == path]

    def wait(
        self, path: str, count: int = 1, timeout: float = 20.0, of_type: str | None = None
    ) -> list[Received]:
        deadline = time.monotonic() + timeout
        while True:
            got = [r for r in self.on(path) if of_type is None or r.event["type"] == of_type]
            if len(got) >= count or time.monotonic() > deadline:
                return got
            time.sleep(0.02)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def start_receiver() -> Receiver:
    receiver: Receiver

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            with receiver.lock:
                n = sum(1 for r in receiver.requests if r.path == self.path) + 1
                receiver.requests.append(
                    Received(
                        self.path,
                        {k.lower(): v for k, v in self.headers.items()},
                        body,
                        time.time(),
                    )
                )
                answer = receiver.answers.get(self.path, lambda _: (204, {}, 0.0))
            status, headers, delay = answer(n)
            if delay:
                time.sleep(delay)
            payload = f"answer {status} to attempt {n}".encode() if status != 204 else b""
            try:
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except OSError:
                pass

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    receiver = Receiver(server)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return receiver


def verify(secret: str, received: Received) -> dict[str, Any]:
    """The event, verified by the reference library and checked against its schema."""
    event: dict[str, Any] = Webhook(secret).verify(received.body, received.headers)
    jsonschema.validate(event, SCHEMAS[event["type"]])
    return event


def cli(*args: str, env: dict[str, str] | None = None, check: bool = True) -> list[str]:
    """`telemetry ...` as an operator runs it; its stdout lines."""
    done = subprocess.run(
        [TELEMETRY, *args],
        cwd=PROJECT_ROOT,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=60,
    )
    if check and done.returncode != 0:
        raise AssertionError(f"telemetry {' '.join(args)}: {done.stderr}")
    return done.stdout.splitlines() if check else [done.stderr]


def create_endpoint(database_url: str, *args: str) -> tuple[str, str]:
    """(endpoint id, secret) of `telemetry webhooks create ...`."""
    lines = cli(
        "webhooks",
        "create",
        *args,
        env={"DATABASE_URL": database_url, "TELEMETRY_WEBHOOKS_ALLOW_PRIVATE": "1"},
    )
    assert lines[-1].startswith("whsec_"), lines
    return lines[0].split()[0], lines[-1]


SCALE = 0.0001


SERVER_ENV = {
    "TELEMETRY_WEBHOOK_RETRY_SCALE": str(SCALE),
    "TELEMETRY_WEBHOOKS_ALLOW_PRIVATE": "1",
    "TELEMETRY_WEBHOOK_TIMEOUT_S": "2",
    "TELEMETRY_WEBHOOK_CONCURRENCY": "4",
    "TELEMETRY_WEBHOOK_DISPATCHER": "1",
}
