"""Hostile input is a 400-class answer in the envelope, never a 500 nor an empty body.

Input the database cannot store (found by fuzzing the OpenAPI document with schemathesis),
and refusals at the HTTP layer (issue 23, item 6) sent on raw sockets to `telemetry serve`,
so that no client library normalises the request.
"""

from __future__ import annotations

import contextlib
import json
import socket
import uuid

import asyncpg
from litestar.testing import AsyncTestClient

from app.server.granian import MAX_HEAD_BUFFER_BYTES
from testkit.factories import World, load, partner_key
from tests.support.helpers import assert_error
from tests.support.servers import LiveServer


async def test_nul_characters_are_refused_in_bodies_and_queries(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    _, key = await partner_key(pool)
    headers = {"Authorization": f"Bearer {key}"}

    response = await client.post(
        "/api/v1/members/validate",
        content=b'{"email": "a\\u0000b@example.com", "password": "whatever-long"}',
        headers={**headers, "Content-Type": "application/json"},
    )
    assert_error(response, 400, "invalid_body")

    response = await client.get("/api/v1/devices?search=a%00b", headers=headers)
    assert_error(response, 400, "invalid_parameter")


async def test_offsets_beyond_any_list_are_invalid(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    _, key = await partner_key(pool)
    headers = {"Authorization": f"Bearer {key}"}
    for path in ("/api/v1/devices", "/api/v1/multicast-groups", "/api/v1/device-profiles"):
        response = await client.get(f"{path}?offset=504715958699948507136", headers=headers)
        assert response.status_code == 400, path
        assert response.json()["error"]["code"] == "invalid_parameter"


async def test_a_nul_character_in_a_path_id_is_not_found(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    world = World()
    partner = world.partner(features={"networks": True, "multiSite": True})
    key = world.key(
        partner, scopes=["devices:read", "telemetry:read", "profiles:read", "downlinks:write"]
    )
    await load(pool, world)
    headers = {"Authorization": f"Bearer {key}"}
    # D6: a path id that names nothing in the key's scope is 404, never 400, NUL or not.
    for path in (
        "/devices/a%00b",
        "/devices/a%00b/latest",
        "/devices/a%00b/history?field=x&from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z",
        "/devices/a%00b/downlinks",
        "/gateways/a%00b",
        "/device-profiles/a%00b",
        "/networks/a%00b",
        "/sites/a%00b",
        "/multicast-groups/a%00b",
        "/sub-accounts/a%00b",
    ):
        response = await client.get(f"/api/v1{path}", headers=headers)
        assert response.status_code == 404, (path, response.text)
        assert response.json()["error"]["code"] == "not_found"
        unknown = await client.get(
            f"/api/v1{path.replace('a%00b', str(uuid.uuid4()))}", headers=headers
        )
        assert (unknown.status_code, unknown.content) == (404, response.content), path
    response = await client.get("/api/v1/devices?search=a%00b", headers=headers)
    assert response.json()["error"]["message"] == "search: must not contain NUL characters"


def _exchange(server: LiveServer, request: bytes, *, half_close: bool = False) -> tuple[int, bytes]:
    """(status, body) of one request sent as these bytes on a raw socket; `half_close` ends
    the sending side after them (a client that stops sending mid-body)."""
    host, port = server.base_url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        # Refused before all of it was sent, the answer is still there to read.
        with contextlib.suppress(OSError):
            connection.sendall(request)
        if half_close:
            connection.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := connection.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body


def _request(target: str = "/api/v1/devices", fields: str = "", method: str = "GET") -> bytes:
    return (
        f"{method} {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n{fields}Connection: close\r\n\r\n"
    ).encode("latin-1")


def _envelope(body: bytes) -> tuple[str, str]:
    error = json.loads(body)["error"]
    return error["code"], error["message"]


async def test_refusals_a_client_can_provoke_carry_the_envelope(
    live_server: LiveServer, pool: asyncpg.Pool
) -> None:
    """Issue 23, item 6: each of these was granian's empty answer (or a 500) before."""
    _, key = await partner_key(pool)
    auth = f"Authorization: Bearer {key}\r\n"

    # The longest target granian's parser passes on (65,534 bytes) meets the service's 8 KiB.
    target = "/api/v1/devices?search="
    target += "a" * (65_534 - len(target))
    assert _exchange(live_server, _request(target, auth)) == (
        414,
        b'{"error":{"code":"uri_too_long","message":"request target over 8 KiB"}}',
    )
    # A head of 1,000,000 bytes: past granian's default buffer (408 KiB), an empty 431 then.
    filler = "X-Filler: " + "b" * 1_000_000 + "\r\n"
    assert _exchange(live_server, _request(fields=auth + filler)) == (
        431,
        b'{"error":{"code":"headers_too_large","message":"request headers over 32 KiB"}}',
    )
    # An upgrade to WebSocket is an HTTP request like any other (granian answered an empty
    # 403 itself), so its refusals are the service's.
    upgrade = (
        "Upgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        "Sec-WebSocket-Version: 13\r\n"
    )
    status, body = _exchange(live_server, _request(fields=upgrade))
    assert (status, _envelope(body)[0]) == (401, "unauthorized")
    # A chunked body that cannot be parsed reached the route as a disconnect: a 500.
    json_post = auth + "Content-Type: application/json\r\n"
    malformed = (
        _request("/api/v1/members/validate", json_post + "Transfer-Encoding: chunked\r\n", "POST")
        + b"zz\r\n{}\r\n0\r\n\r\n"
    )
    cut_short = (
        _request("/api/v1/members/validate", json_post + "Content-Length: 100\r\n", "POST")
        + b'{"email": '
    )
    for request, half_close in ((malformed, False), (cut_short, True)):
        status, body = _exchange(live_server, request, half_close=half_close)
        assert (status, _envelope(body)) == (
            400,
            (
                "invalid_body",
                "body: ended before its declared length, or its chunked encoding is malformed",
            ),
        )


def test_granian_answers_first_only_where_the_readme_says(live_server: LiveServer) -> None:
    """README, "Before routing": the inputs refused by granian's HTTP/1 parser before any of
    the service's code runs, hence with an empty body. If a granian upgrade moves one of
    these bounds, this test says the README is out of date."""
    hundred_fields = "".join(f"X-{number}: v\r\n" for number in range(97))
    # Host, Connection and one more make 100 header fields: the service answers...
    status, body = _exchange(live_server, _request(fields=hundred_fields + "X-Last: v\r\n"))
    assert (status, _envelope(body)[0]) == (401, "unauthorized")
    too_long = "/api/v1/devices?search=" + "a" * 65_534
    # granian checks its buffer after each read, so a head a few bytes over it can still
    # arrive whole in the read that crosses it; twice the buffer never does.
    head_over_buffer = "X-Filler: " + "b" * 2 * MAX_HEAD_BUFFER_BYTES + "\r\n"
    for request, status in (
        # ...101 are granian's.
        (_request(fields=hundred_fields + "X-Last: v\r\nX-Over: v\r\n"), 431),
        (_request(too_long), 414),
        (_request(fields=head_over_buffer), 431),
        (_request(fields="X" * 65_536 + ": v\r\n"), 431),
        # Not HTTP/1.1 grammar: a control character or space in the target, a target that is
        # not origin-form, a version other than HTTP/1.0 and HTTP/1.1, a header line that is
        # not `token: value`, folded, or holding a control character, an unreadable
        # Content-Length, a Transfer-Encoding that does not end in chunked.
        (b"GET /api/v1/a\x01b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 400),
        (_request("/api/v1/a b"), 400),
        (_request("api/v1/health"), 400),
        (b"GET /api/v1/health HTTP/1.2\r\nHost: x\r\nConnection: close\r\n\r\n", 400),
        (_request(fields="Bad Name: v\r\n"), 400),
        (_request(fields="X-Folded: a\r\n b\r\n"), 400),
        (_request(fields="X-Control: a\x01b\r\n"), 400),
        (_request("/api/v1/members/validate", "Content-Length: abc\r\n", "POST"), 400),
        (_request("/api/v1/members/validate", "Transfer-Encoding: gzip\r\n", "POST"), 400),
    ):
        assert _exchange(live_server, request) == (status, b""), request[:80]
