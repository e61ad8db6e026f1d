"""GET /api/v1/stream (analytics.md section 4, issue 24), against `telemetry serve` (two
workers): snapshot, changes, `removed`, keep-alive, resume with `Last-Event-ID`, `reset`,
revocation, the per-key limit, a slow client and a lost LISTEN connection."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import httpx

from app.notify.hub import BACKLOG_LIMIT
from testkit.factories import World, load
from tests.support import chirpstack as cs
from tests.support.chirpstack import post
from tests.support.fleet import fleet_world
from tests.support.helpers import assert_error, bearer
from tests.support.servers import LiveServer

STREAM = "/api/v1/stream"


class Events:
    """The events of an open stream, read as they come."""

    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self.lines = response.aiter_lines()
        self.comments = 0

    async def next(self, within_s: float = 5.0) -> dict[str, Any]:
        """The next event: {event, id, data (decoded)}; comments are counted."""
        fields: dict[str, Any] = {}
        deadline = time.monotonic() + within_s
        while True:
            left = deadline - time.monotonic()
            line = await asyncio.wait_for(self.lines.__anext__(), max(left, 0.01))
            if line == "":
                if fields:
                    fields["data"] = json.loads(fields["data"])
                    return fields
                continue
            if line.startswith(":"):
                self.comments += 1
                continue
            name, _, value = line.partition(": ")
            fields[name] = value

    async def take(self, count: int, within_s: float = 5.0) -> list[dict[str, Any]]:
        return [await self.next(within_s) for _ in range(count)]


@contextlib.asynccontextmanager
async def opened(
    http: httpx.AsyncClient, key: str, params: dict[str, str], **headers: str
) -> AsyncIterator[Events]:
    async with http.stream("GET", STREAM, params=params, headers=bearer(key, **headers)) as r:
        assert r.status_code == 200, (await r.aread()).decode()
        assert r.headers["content-type"].startswith("text/event-stream")
        yield Events(r)


async def uplink(http: Any, t: dict[str, Any], device: dict[str, Any], **values: Any) -> None:
    assert await post(http, t["token"], "up", cs.uplink(device["devEui"], values)) == 204


async def test_snapshot_changes_removed_and_keepalive(
    live_server: LiveServer, pool: asyncpg.Pool
) -> None:
    w, t = fleet_world()
    await load(pool, w)
    devices = sorted(t["in_site"], key=lambda d: d["id"])
    async with live_server.client() as http:
        await uplink(http, t, devices[0], temperature=1, humidity=2)
        params = {"siteId": t["site"]["id"], "fields": "temperature"}
        async with opened(http, t["key"], params) as events:
            first = await events.take(3)
            assert [e["event"] for e in first] == ["latest"] * 3
            assert [e["data"]["deviceId"] for e in first] == [d["id"] for d in devices]
            assert first[0]["data"]["values"] == {"temperature": 1}
            # Each item is fleet latest's item.
            fleet = await http.get("/api/v1/latest", params=params, headers=bearer(t["key"]))
            assert [e["data"] for e in first] == fleet.json()["data"]
            ids = [int(e["id"]) for e in first]
            assert ids == sorted(set(ids))

            started = time.monotonic()
            await uplink(http, t, devices[1], temperature=33)
            change = await events.next(3)
            assert time.monotonic() - started < 2
            assert change["event"] == "latest"
            assert change["data"]["deviceId"] == devices[1]["id"]
            assert change["data"]["values"] == {"temperature": 33}
            assert int(change["id"]) > ids[-1]

            # Moved to inventory: removed within 5 s.
            await pool.execute(
                "UPDATE devices SET status = 'inventory', sub_account_id = NULL, site_id = NULL"
                " WHERE id = $1",
                devices[2]["id"],
            )
            removed = await events.next(5)
            assert removed["event"] == "removed"
            assert removed["data"] == {"deviceId": devices[2]["id"]}
            assert removed["id"]

            # Nothing happens: a comment line within 15 s.
            comments = events.comments
            with contextlib.suppress(TimeoutError):
                await events.next(16)
            assert events.comments > comments


async def test_resume_with_last_event_id_and_reset(
    live_server: LiveServer, pool: asyncpg.Pool
) -> None:
    w, t = fleet_world()
    await load(pool, w)
    await asyncio.sleep(0.5)  # the devices' creation is not news to the resumed stream
    devices = sorted(t["in_site"], key=lambda d: d["id"])
    params = {"deviceIds": ",".join(d["id"] for d in devices)}
    async with live_server.client() as http:
        async with opened(http, t["key"], params) as events:
            snapshot = await events.take(3)
        last_id = snapshot[-1]["id"]
        # Changed while the client was away (it reconnects to either worker).
        await uplink(http, t, devices[2], temperature=9)
        await asyncio.sleep(1.5)
        async with opened(http, t["key"], params, **{"Last-Event-ID": last_id}) as events:
            resumed = await events.next(3)
            assert resumed["event"] == "latest", resumed
            assert resumed["data"]["deviceId"] == devices[2]["id"]
            assert resumed["data"]["values"]["temperature"] == 9
            assert int(resumed["id"]) > int(last_id)
            # Only that: nothing else comes at once.
            with contextlib.suppress(TimeoutError):
                extra = await events.next(1.5)
                raise AssertionError(f"more than the change was sent: {extra}")
        # An id never issued, or older than 5 minutes: reset, then the whole first send.
        old = str(int((time.time() - 600) * 1_000_000))
        for sent in ("not-an-id", old):
            async with opened(http, t["key"], params, **{"Last-Event-ID": sent}) as events:
                reset = await events.next()
                assert reset["event"] == "reset" and reset["id"], sent
                again = await events.take(3)
                assert [e["event"] for e in again] == ["latest"] * 3
                assert [e["data"]["deviceId"] for e in again] == [d["id"] for d in devices]


async def test_revocation_ends_the_stream(live_server: LiveServer, pool: asyncpg.Pool) -> None:
    w, t = fleet_world(devices=1)
    await load(pool, w)
    params = {"deviceIds": t["in_site"][0]["id"]}
    async with live_server.client() as http, opened(http, t["key"], params) as events:
        await events.next()
        await pool.execute(
            "UPDATE api_keys SET revoked_at = now() WHERE id = $1", uuid.UUID(t["key"].id)
        )
        started = time.monotonic()
        ended = False
        try:
            while time.monotonic() - started < 8:
                await events.next(8)
        except (StopAsyncIteration, httpx.RemoteProtocolError):
            ended = True
        assert ended and time.monotonic() - started < 5


async def test_at_most_ten_streams_per_key(live_server: LiveServer, pool: asyncpg.Pool) -> None:
    w, t = fleet_world(devices=1)
    await load(pool, w)
    params = {"deviceIds": t["in_site"][0]["id"]}
    async with live_server.client() as http, contextlib.AsyncExitStack() as stack:
        streams = [
            await stack.enter_async_context(opened(http, t["key"], params)) for _ in range(10)
        ]
        for events in streams:
            assert (await events.next())["event"] == "latest"
        refused = await http.get(STREAM, params=params, headers=bearer(t["key"]))
        assert_error(refused, 429, "rate_limited")
        assert int(refused.headers["retry-after"]) >= 1
        # Another key of the same tenant is not limited by this one's streams.
        assert (
            await http.get("/api/v1/latest", params=params, headers=bearer(t["key"]))
        ).status_code == 200
        await streams[0].response.aclose()
        deadline = time.monotonic() + 5.5
        while True:
            async with http.stream("GET", STREAM, params=params, headers=bearer(t["key"])) as again:
                if again.status_code == 200:
                    break
            assert time.monotonic() < deadline, "a closed stream's place was not freed in 5 s"
            await asyncio.sleep(0.5)


async def test_bad_input(live_server: LiveServer, pool: asyncpg.Pool) -> None:
    w, t = fleet_world(devices=1)
    await load(pool, w)
    async with live_server.client() as http:
        for params, name in (
            ({"limit": "5"}, "limit"),
            ({"deviceIds": "nope"}, "deviceIds"),
            ({"deviceIds": t["in_site"][0]["id"], "online": "true"}, "deviceIds"),
            ({"deviceIds": ",".join(str(uuid.uuid4()) for _ in range(201))}, "deviceIds"),
        ):
            response = await http.get(STREAM, params=params, headers=bearer(t["key"]))
            assert_error(response, 400, "invalid_parameter")
            assert name in response.json()["error"]["message"]


async def test_a_lost_listen_connection_resets_every_stream(
    live_server: LiveServer, pool: asyncpg.Pool
) -> None:
    w, t = fleet_world(devices=2)
    await load(pool, w)
    params = {"siteId": t["site"]["id"]}
    async with live_server.client() as http, opened(http, t["key"], params) as events:
        await events.take(2)
        killed = await pool.fetchval(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE datname = current_database() AND query LIKE 'LISTEN%'"
        )
        assert killed >= 2  # one per worker
        reset = await events.next(6)
        assert reset["event"] == "reset"
        fresh = await events.take(2)
        assert {e["data"]["deviceId"] for e in fresh} == {d["id"] for d in t["in_site"]}
        # And it follows changes again.
        await uplink(http, t, t["in_site"][0], temperature=77)
        change = await events.next(3)
        assert change["data"]["values"]["temperature"] == 77


async def test_a_client_that_stops_reading_is_disconnected(
    live_server: LiveServer, pool: asyncpg.Pool
) -> None:
    """The client stops reading; once its socket and the server's buffers are full its
    writes block, and past the stated backlog (app/notify/hub.py BACKLOG_LIMIT) of changes
    the server ends the stream and frees its place."""
    assert BACKLOG_LIMIT < 60 * 40 - 400
    w = World()
    p, sa = w.tenancy({})
    prof = w.profile(p, fields=[w.field("note", dataType="string")])
    devices = [w.device(sa, prof) for _ in range(40)]
    key = w.key(sa, scopes=["telemetry:read"])
    token = w.integration(p)
    await load(pool, w)
    async with live_server.client() as http:
        for device in devices:
            body = cs.uplink(device["devEui"], {"note": "x" * 16_000})
            assert await post(http, token, "up", body) == 204
    host, port = live_server.base_url.removeprefix("http://").split(":")
    ids = ",".join(d["id"] for d in devices)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((host, int(port)))
    sock.sendall(
        f"GET {STREAM}?deviceIds={ids} HTTP/1.1\r\nHost: {host}\r\n"
        f"Authorization: Bearer {key}\r\n\r\n".encode()
    )
    try:
        await asyncio.sleep(1)
        nums = [
            await pool.fetchval("SELECT num FROM devices WHERE id = $1", d["id"]) for d in devices
        ]
        # Each round changes the 40 devices' ETags: 40 events of 16 kB each for the
        # stream. After some 3 MB the server's buffers are full and its writes block;
        # the rounds after that only pile up, past the backlog's bound.
        for _ in range(60):
            await pool.execute(
                "UPDATE device_state SET latest_etag = md5(random()::text)"
                " WHERE device_num = ANY ($1::integer[])",
                nums,
            )
            await asyncio.sleep(0.02)
        deadline = time.monotonic() + 10
        while await pool.fetchval(
            "SELECT count(*) FROM live_streams WHERE key_id = $1", uuid.UUID(key.id)
        ):
            assert time.monotonic() < deadline, "the stream of a client not reading stayed open"
            await asyncio.sleep(0.2)
        # The connection is closed: reading it to the end ends.
        sock.settimeout(10)
        while sock.recv(1 << 20):
            pass
    finally:
        sock.close()
