"""The Python client's retries on 503 (clients/python/telemetry_client/retry.py) against a
real HTTP server standing in for a proxy in front of the service (the 429s of the service
itself are in tests/integration/test_python_client.py): reads are asked again after
`Retry-After`, writes are not, since a 503 may follow a committed write."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
from telemetry_client import ApiError, TelemetryClient


class Unavailable(BaseHTTPRequestHandler):
    """503 with `Retry-After: 2` for the first two requests of each path, then 200."""

    seen: dict[str, int] = {}

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        count = self.seen[self.path] = self.seen.get(self.path, 0) + 1
        if count <= 2:
            body = json.dumps({"error": {"code": "unavailable", "message": "try again"}})
            self.send_response(503)
            self.send_header("Retry-After", "2")
        else:
            body = json.dumps({"data": {"answer": count}})
            self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())

    do_GET = _answer
    do_POST = _answer

    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.fixture
def server() -> Iterator[str]:
    Unavailable.seen = {}
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Unavailable)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_a_read_waits_out_retry_after_and_is_asked_again(server: str) -> None:
    slept: list[float] = []
    with TelemetryClient(server, "svc_live_x", sleep=slept.append) as client:
        assert client.get("/devices") == {"data": {"answer": 3}}
        assert client.request("POST", "/query", body={}).json() == {"data": {"answer": 3}}
    assert slept == [2.0, 2.0, 2.0, 2.0]


def test_a_write_is_not_asked_again_after_a_503(server: str) -> None:
    slept: list[float] = []
    with (
        TelemetryClient(server, "svc_live_x", sleep=slept.append) as client,
        pytest.raises(ApiError) as raised,
    ):
        client.request("POST", "/devices/70b3d57ed0000001/downlinks", body={"key": "x"})
    assert (raised.value.status, raised.value.code, raised.value.retry_after) == (
        503,
        "unavailable",
        2.0,
    )
    assert slept == []
    assert Unavailable.seen == {"/api/v1/devices/70b3d57ed0000001/downlinks": 1}


@pytest.mark.parametrize("zone", ["GMT", "+0000", "-0000"])
def test_retry_after_as_an_http_date_in_any_utc_spelling(zone: str) -> None:
    """An HTTP date in `Retry-After` is read whichever way it writes UTC: `-0000` (RFC 5322's
    "UTC, zone unknown") parses to a naive datetime, which the client once subtracted from an
    aware one and failed with a TypeError instead of an ApiError."""
    when = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=60)
    header = when.strftime("%a, %d %b %Y %H:%M:%S ") + zone
    response = httpx.Response(
        503,
        headers={"Retry-After": header},
        json={"error": {"code": "unavailable", "message": "try again"}},
    )
    error = ApiError.from_response(response)
    assert (error.status, error.code) == (503, "unavailable")
    assert error.retry_after is not None and 50 < error.retry_after <= 60, error.retry_after
