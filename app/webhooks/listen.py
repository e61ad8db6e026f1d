"""`telemetry webhooks listen`: a local receiver for development (what `stripe listen` is
to Stripe). Each request is verified against the secret, when one is given, and printed
as one line: time, webhook-id, type, device, sequence, verification, data. Answers 204,
or 400 with the reason when a signature does not verify.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TextIO

import msgspec

from app.webhooks.signing import SignatureError, verify

MAX_BODY = 1024 * 1024
_decode = msgspec.json.Decoder().decode
_encode = msgspec.json.Encoder().encode


def describe(body: bytes, verdict: str) -> str:
    """The printed line of one event."""
    try:
        event: dict[str, Any] = _decode(body)
    except msgspec.DecodeError:
        return f"{datetime.now(UTC):%H:%M:%S} (not JSON: {len(body)} bytes) {verdict}"
    device = event.get("deviceId") or "-"
    sequence = event.get("sequence")
    data = _encode(event.get("data")).decode()
    if len(data) > 160:
        data = data[:157] + "..."
    return (
        f"{datetime.now(UTC):%H:%M:%S} {event.get('id')} {event.get('type')} device={device} "
        f"seq={sequence if sequence is not None else '-'} {verdict} {data}"
    )


def make_handler(secret: str | None, out: TextIO) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            if length > MAX_BODY:
                self.send_error(413)
                return
            body = self.rfile.read(length)
            headers = {k.lower(): v for k, v in self.headers.items()}
            verdict = "unverified"
            status = 204
            if secret is not None:
                try:
                    verify(secret, headers, body)
                    verdict = "verified"
                except SignatureError as exc:
                    verdict = f"REFUSED ({exc})"
                    status = 400
            print(describe(body, verdict), file=out, flush=True)
            self.send_response(status)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            return

    return Handler


def serve(port: int, secret: str | None, host: str = "127.0.0.1") -> None:
    server = ThreadingHTTPServer((host, port), make_handler(secret, sys.stdout))
    print(
        f"listening on http://{host}:{server.server_port}/ "
        + ("(verifying signatures)" if secret else "(no --secret: signatures not checked)"),
        flush=True,
    )
    try:
        server.serve_forever()
    finally:
        server.server_close()
