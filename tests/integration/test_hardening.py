"""Defects found by hostile clients (issue 11), each pinned by a test on the real database.

The numbers in the test names refer to the issue's list of defects.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
from litestar.testing import AsyncTestClient

from app.auth.principal import hash_secret
from app.core.config import PROJECT_ROOT
from testkit.factories import World, load, partner_key
from tests.support import chirpstack as cs
from tests.support.helpers import assert_error, bearer
from tests.support.servers import LiveServer

RFC3339_Z = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$")

UNREADABLE_BODIES = {
    "invalid UTF-8": b'{"email": "\xff\xfe@example.com", "password": "x"}',
    "nested 10,000 deep": b'{"a":' * 10_000 + b"1" + b"}" * 10_000,
    "arrays nested 12,000 deep": b"[" * 12_000 + b"]" * 12_000,
}


async def _partner_world(pool: asyncpg.Pool) -> dict[str, Any]:
    world = World()
    partner, sub_account = world.tenancy({}, plan={"apiWrite": True, "retentionDays": 90})
    key = world.key(sub_account)
    token = world.integration(partner)
    await load(pool, world)
    return {"key": key, "token": token}


async def test_1_unreadable_json_is_400_invalid_body_on_every_json_route(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    setup = await _partner_world(pool)
    api_headers = bearer(setup["key"], **{"Content-Type": "application/json"})
    routes = [
        ("/api/v1/members/validate", api_headers),
        ("/api/v1/members", api_headers),
        (f"/api/v1/devices/{uuid.uuid4()}/downlinks", api_headers),
        (f"/api/v1/multicast-groups/{uuid.uuid4()}/execute", api_headers),
        ("/ingest/chirpstack?event=up", cs.bearer(setup["token"])),
        ("/ingest/chirpstack?event=status", cs.bearer(setup["token"])),
    ]
    for path, headers in routes:
        for name, body in UNREADABLE_BODIES.items():
            response = await client.post(path, content=body, headers=headers)
            assert response.status_code == 400, (path, name, response.status_code, response.text)
            error = response.json()["error"]
            assert error["code"] == "invalid_body", (path, name, error)


def _with_time(body: str, when: str) -> bytes:
    event = json.loads(body)
    event["time"] = when
    return json.dumps(event).encode()


async def test_2_ingest_times_outside_the_window_are_stored_with_the_receive_time(
    client: AsyncTestClient, th: dict[str, Any]
) -> None:
    device, gateway = th["device"], th["gateway"]
    headers = bearer(th["key"])
    for n, when in enumerate(
        [
            "9999-12-31T23:59:59.999999Z",
            "0001-01-01T00:00:00Z",
            "1999-12-31T23:59:59Z",
            (datetime.now(UTC) + timedelta(minutes=10)).isoformat().replace("+00:00", "Z"),
        ]
    ):
        for event, body in (
            ("up", cs.uplink(device["devEui"], {"temperature": n})),
            ("status", cs.status(device["devEui"], level=50 + n)),
            ("join", cs.join(device["devEui"])),
        ):
            before = datetime.now(UTC) - timedelta(seconds=1)
            response = await client.post(
                f"/ingest/chirpstack?event={event}",
                content=_with_time(body, when),
                headers=cs.bearer(th["token"]),
            )
            after = datetime.now(UTC) + timedelta(seconds=1)
            assert response.status_code == 204, (when, event, response.text)
        latest = await client.get(f"/api/v1/devices/{device['id']}/latest", headers=headers)
        data = latest.json()["data"]
        assert data["values"]["temperature"] == n, (when, data)
        assert before <= _utc(data["time"]) <= after, (when, data["time"])
        detail = (await client.get(f"/api/v1/devices/{device['id']}", headers=headers)).json()
        assert before <= _utc(detail["data"]["lastSeenAt"]) <= after, (when, detail)
        assert detail["data"]["online"] is True
        relay = (await client.get(f"/api/v1/gateways/{gateway['id']}", headers=headers)).json()
        assert before - timedelta(seconds=60) <= _utc(relay["data"]["lastSeenAt"]) <= after
    # Inside the window the event's own time is kept.
    inside = datetime.now(UTC).replace(microsecond=0) + timedelta(minutes=2)
    body = cs.uplink(device["devEui"], {"temperature": 99}, time=inside)
    response = await client.post(
        "/ingest/chirpstack?event=up", content=body, headers=cs.bearer(th["token"])
    )
    assert response.status_code == 204
    latest = await client.get(f"/api/v1/devices/{device['id']}/latest", headers=headers)
    assert _utc(latest.json()["data"]["time"]) == inside


def _utc(text: str) -> datetime:
    assert RFC3339_Z.match(text), text
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


async def _limited_key(pool: asyncpg.Pool, per_minute: int, per_day: int = 10_000) -> Any:
    _, key = await partner_key(pool, tier={"perMinute": per_minute, "perDay": per_day})
    return key


async def test_8_retry_after_is_at_most_60_and_exact(pool: asyncpg.Pool) -> None:
    key = await _limited_key(pool, per_minute=5)
    key_hash = hash_secret(key)
    start = 1_900_000_000  # a whole second
    moment = datetime.fromtimestamp(start + 0.25, UTC)
    for _ in range(5):
        row = await pool.fetchrow("SELECT * FROM api_authenticate($1, $2)", key_hash, moment)
        assert row["outcome"] == "ok"
    # All five at s + 0.25: each frees its slot 60 s later, so the answer is 60, never 61.
    row = await pool.fetchrow("SELECT * FROM api_authenticate($1, $2)", key_hash, moment)
    assert (row["outcome"], row["retry_after"]) == ("rate_limited", 60)
    later = datetime.fromtimestamp(start + 59.5, UTC)
    row = await pool.fetchrow("SELECT * FROM api_authenticate($1, $2)", key_hash, later)
    assert (row["outcome"], row["retry_after"]) == ("rate_limited", 1)
    # At s + 60 the five are 59.75 s old: a sixth would make six within 60 s (issue 23).
    early = datetime.fromtimestamp(start + 60, UTC)
    row = await pool.fetchrow("SELECT * FROM api_authenticate($1, $2)", key_hash, early)
    assert (row["outcome"], row["retry_after"]) == ("rate_limited", 1)
    freed = datetime.fromtimestamp(start + 60.25, UTC)
    row = await pool.fetchrow("SELECT * FROM api_authenticate($1, $2)", key_hash, freed)
    assert row["outcome"] == "ok"


async def test_8_burst_429s_carry_retry_after_1_to_60(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    key = await _limited_key(pool, per_minute=20)
    headers = bearer(key)
    responses = await asyncio.gather(
        *(client.get("/api/v1/me", headers=headers) for _ in range(60))
    )
    assert sum(r.status_code == 200 for r in responses) == 20
    limited = [r for r in responses if r.status_code == 429]
    assert len(limited) == 40
    for response in limited:
        assert response.json()["error"]["code"] == "rate_limited"
        assert 1 <= int(response.headers["retry-after"]) <= 60, response.headers


async def test_9_a_request_for_an_earlier_second_does_not_clear_the_window(
    pool: asyncpg.Pool,
) -> None:
    """A request that waited on the usage row's lock arrives with the second it started in;
    api_authenticate and the leases share one window that only slides forward."""
    key = await _limited_key(pool, per_minute=5)
    key_hash = hash_secret(key)
    start = 1_900_000_100
    for _ in range(5):
        row = await pool.fetchrow(
            "SELECT * FROM api_authenticate($1, $2)",
            key_hash,
            datetime.fromtimestamp(start + 1.5, UTC),
        )
        assert row["outcome"] == "ok"
    late = await pool.fetchrow(
        "SELECT * FROM api_authenticate($1, $2)", key_hash, datetime.fromtimestamp(start + 0.9, UTC)
    )
    assert late["outcome"] == "rate_limited"
    # The leases of the key cache count in the same window.
    lease = await pool.fetchrow(
        "SELECT * FROM api_lease($1, $2, 1, 0, 0, 5, 10000)", key.id, start + 2
    )
    assert (lease["granted"], lease["outcome"]) == (0, "rate_limited")


def test_7_a_second_server_on_a_taken_port_fails_at_once(live_server: LiveServer) -> None:
    port = live_server.base_url.rsplit(":", 1)[1]
    began = time.monotonic()
    result = subprocess.run(
        [str(Path(sys.executable).parent / "telemetry"), "serve", "--port", port],
        cwd=PROJECT_ROOT,
        env={**os.environ, "DATABASE_URL": "postgresql://nobody@127.0.0.1:1/none"},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert time.monotonic() - began < 10
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert lines == [f"telemetry serve: 127.0.0.1:{port} is already in use by another process"]


async def test_10_paging_integers_are_whole_numbers_and_timestamps_are_whole(
    client: AsyncTestClient, th: dict[str, Any]
) -> None:
    headers = bearer(th["key"])
    lists = ["/api/v1/devices", "/api/v1/gateways", "/api/v1/multicast-groups"]
    for path in lists:
        for name in ("limit", "offset"):
            for value in ("1e1", "10.0", "2e2", "+5", " 5", "0x10", "5\x00"):
                response = await client.get(path, params={name: value}, headers=headers)
                assert response.status_code == 400, (path, name, value, response.text)
                error = response.json()["error"]
                assert error["code"] == "invalid_parameter", (path, name, value)
                assert error["message"].startswith(f"{name}:"), error
        good = await client.get(path, params={"limit": "10", "offset": "0"}, headers=headers)
        assert good.status_code == 200
        assert good.json()["pagination"]["limit"] == 10
    history = f"/api/v1/devices/{th['device']['id']}/history"
    for name in ("from", "to"):
        for junk in ("\x00junk", "\x00", "junk"):
            params = {"field": "temperature", "from": "2026-01-01T00:00:00Z"}
            params["to"] = "2026-01-02T00:00:00Z"
            params[name] = params[name] + junk
            response = await client.get(history, params=params, headers=headers)
            assert response.status_code == 400, (name, junk, response.text)
            error = response.json()["error"]
            assert error["code"] == "invalid_parameter" and error["message"].startswith(name)


def _raw(server: LiveServer, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """One request on a raw socket (no client library normalises the path)."""
    host, port = server.base_url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        connection.sendall(request)
        data = b""
        while chunk := connection.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(lines[0].split()[1]), headers, body


def _get(path: str, key: str, method: str = "GET", extra: str = "") -> bytes:
    return (
        f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {key}\r\n"
        f"{extra}Connection: close\r\n\r\n"
    ).encode()


async def test_11_an_id_is_one_path_segment_and_head_options_answer_like_get(
    live_server: LiveServer, th: dict[str, Any]
) -> None:
    key = th["key"]
    for path in (
        "/api/v1/devices/%2F",
        "/api/v1/devices/%2f",
        "//api/v1/devices",
        "/api/v1//devices",
        f"/api/v1/devices/{th['device']['id']}%2Flatest",
        "/api/v1/devices/a%5Cb",
    ):
        status, _, body = _raw(live_server, _get(path, key))
        assert status == 404, (path, body)
        assert json.loads(body)["error"]["code"] == "not_found", path
    detail = f"/api/v1/devices/{th['device']['id']}"
    status, got, body = _raw(live_server, _get(detail, key))
    assert status == 200
    status, headed, head_body = _raw(live_server, _get(detail, key, "HEAD"))
    assert (status, head_body) == (200, b"")
    assert headed["content-length"] == got["content-length"]
    assert headed["x-ratelimit-limit"] == got["x-ratelimit-limit"]
    status, headers, _ = _raw(live_server, _get("/api/v1/devices", "", "OPTIONS"))
    assert status in (200, 204)
    assert set(headers["allow"].replace(" ", "").split(",")) == {"GET", "HEAD", "OPTIONS"}
    status, headers, body = _raw(live_server, _get("/api/v1/devices", key, "DELETE"))
    assert status == 405
    assert json.loads(body)["error"]["code"] == "method_not_allowed"
    assert set(headers["allow"].replace(" ", "").split(",")) == {"GET", "HEAD", "OPTIONS"}
    members = f"/api/v1/members/{uuid.uuid4()}"
    status, headers, _ = _raw(live_server, _get(members, "", "OPTIONS"))
    assert set(headers["allow"].replace(" ", "").split(",")) == {"DELETE", "OPTIONS"}


async def test_12_server_level_refusals_use_the_envelope(
    live_server: LiveServer, th: dict[str, Any]
) -> None:
    key = th["key"]
    long_query = "/api/v1/devices?search=" + "a" * 20_000
    status, _, body = _raw(live_server, _get(long_query, key))
    assert status == 414 and json.loads(body)["error"]["code"] == "uri_too_long"
    big_header = "X-Filler: " + "b" * 40_000 + "\r\n"
    status, _, body = _raw(live_server, _get("/api/v1/devices", key, extra=big_header))
    assert status == 431 and json.loads(body)["error"]["code"] == "headers_too_large"
    for method in ("GET", "DELETE"):
        oversized = (
            _get(f"/api/v1/devices/{th['device']['id']}", key, method, "Content-Length: 70000\r\n")
            + b"x" * 70_000
        )
        status, _, body = _raw(live_server, oversized)
        assert status == 413, (method, body)
        assert json.loads(body)["error"]["code"] == "payload_too_large"
    chunk = b"x" * 70_000
    chunked = (
        _get("/api/v1/devices", key, "GET", "Transfer-Encoding: chunked\r\n")
        + f"{len(chunk):x}\r\n".encode()
        + chunk
        + b"\r\n0\r\n\r\n"
    )
    status, _, body = _raw(live_server, chunked)
    assert status == 413 and json.loads(body)["error"]["code"] == "payload_too_large"
    small = _get("/api/v1/devices", key, "GET", "Content-Length: 5\r\n") + b"hello"
    status, _, body = _raw(live_server, small)
    assert status == 200, body


async def test_12_every_401_of_members_validate_carries_a_challenge(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    _, key = await partner_key(pool, scopes=["members:read"])
    body = {"email": "nobody@example.com", "password": "not the password"}
    member = await client.post("/api/v1/members/validate", json=body, headers=bearer(key))
    assert_error(member, 401, "invalid_credentials")
    assert member.headers["www-authenticate"] == 'Bearer realm="members"'
    refused = await client.post(
        "/api/v1/members/validate", json=body, headers={"Authorization": "Bearer svc_live_x"}
    )
    assert_error(refused, 401, "unauthorized")
    assert refused.headers["www-authenticate"] == "Bearer"
