"""Webhooks (integrations.md section 1) end to end: `telemetry serve` as users start it
(its dispatcher inside), endpoints made with the CLI, uplinks posted to the real ingest
route, and a real receiver over a socket that verifies every request with the reference
`standardwebhooks` library and the published JSON Schemas.

The server runs with TELEMETRY_WEBHOOK_RETRY_SCALE=0.0001 (the schedule 5 s, 5 min, ...
becomes 0.5 ms, 30 ms, ...; giving up after the 10th attempt takes ~27 s), a 2 s timeout
and 4 attempts at a time per endpoint.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import signal
import subprocess
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import httpx
import pytest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from app.webhooks import safety
from app.webhooks.client import Client
from app.webhooks.delivery import Job, attempt
from app.webhooks.signing import new_secret
from testkit.factories import World, load
from testkit.processes import free_port
from tests.support import chirpstack as cs
from tests.support.helpers import bearer
from tests.support.servers import LiveServer, serving, start_server
from tests.support.webhooks import (
    SCALE,
    SERVER_ENV,
    TELEMETRY,
    Receiver,
    cli,
    create_endpoint,
    verify,
)


class Tenancy:
    """A partner with two sub-accounts, a profile with an alert rule, devices, a token."""

    def __init__(self) -> None:
        w = World()
        self.world = w
        self.partner = w.partner(plan={"apiWrite": True, "retentionDays": 30})
        self.a = w.sub_account(self.partner)
        self.b = w.sub_account(self.partner)
        self.profile = w.profile(
            self.partner,
            fields=[w.field("temperature"), w.field("battery", role="battery_pct")],
        )
        w.alert_rule(self.profile, "temperature", ">", 30, "warning")
        w.downlink_template(self.profile, key="set_interval", fPort=10)
        self.token = w.integration(self.partner)
        self.key = w.key(self.a, scopes=["devices:read", "downlinks:write"])

    def device(self, owner: dict[str, Any] | None = None, **overrides: Any) -> dict[str, Any]:
        return self.world.device(owner or self.a, self.profile, **overrides)


@pytest.fixture(scope="module")
def server(migrated: str) -> Iterator[LiveServer]:
    with serving(migrated, SERVER_ENV) as live:
        yield live


class Hooks:
    """What an end-to-end test works with: the dispatching server's HTTP client, the
    receiver, and the database (its pool, and its URL for the CLI)."""

    def __init__(
        self, http: httpx.AsyncClient, receiver: Receiver, pool: asyncpg.Pool, url: str
    ) -> None:
        self.http, self.receiver, self.pool, self.url = http, receiver, pool, url

    async def tenancy(self, **device: Any) -> tuple[Tenancy, dict[str, Any]]:
        """A loaded Tenancy with one device in sub-account A (`device`: its overrides)."""
        t = Tenancy()
        made = t.device(**device)
        await load(self.pool, t.world)
        return t, made

    def endpoint(self, *args: str) -> tuple[str, str, str]:
        """(id, secret, path) of a new endpoint pointing at a fresh path of the receiver."""
        path = f"/hook/{uuid.uuid4().hex[:8]}"
        endpoint_id, secret = create_endpoint(self.url, "--url", self.receiver.url(path), *args)
        return endpoint_id, secret, path

    def uplink_endpoint(self, t: Tenancy) -> tuple[str, str, str]:
        """An endpoint of `t`'s partner for its devices' uplinks only."""
        return self.endpoint("--partner", t.partner["id"], "--events", "device.uplink")

    async def post(self, token: str, event: str, body: str, expect: int = 204) -> None:
        await post(self.http, token, event, body, expect)

    async def up(self, t: Tenancy, device: dict[str, Any], values: Any, **uplink: Any) -> None:
        """An uplink of `device` with `values` through `t`'s integration."""
        await post(self.http, t.token, "up", cs.uplink(device["devEui"], values, **uplink))

    async def wait(self, path: str, count: int = 1, **kw: Any) -> list[Any]:
        return await wait_for(self.receiver, path, count, **kw)

    def cli(self, *args: str) -> list[str]:
        return cli(*args, env={"DATABASE_URL": self.url})

    def listed(self, endpoint_id: str) -> str:
        """The line of `telemetry webhooks list` for that endpoint."""
        return next(line for line in self.cli("webhooks", "list") if line.startswith(endpoint_id))


@pytest.fixture
async def h(
    server: LiveServer, receiver: Receiver, pool: asyncpg.Pool, migrated: str
) -> AsyncIterator[Hooks]:
    async with server.client() as http:
        yield Hooks(http, receiver, pool, migrated)


async def post(
    http: httpx.AsyncClient, token: str, event: str, body: str, expect: int = 204
) -> None:
    response = await http.post(
        f"/ingest/chirpstack?event={event}", content=body, headers=cs.bearer(token)
    )
    assert response.status_code == expect, response.text


async def wait_for(receiver: Receiver, path: str, count: int = 1, **kw: Any) -> list[Any]:
    return await asyncio.to_thread(receiver.wait, path, count, **kw)


# ------------------------------------------------------------------------------ events


async def test_uplink_events_are_signed_headed_and_match_their_schemas(h: Hooks) -> None:
    t = Tenancy()
    device = t.device(site=t.world.site(t.a))
    await load(h.pool, t.world)
    endpoint_id, secret, path = h.endpoint("--partner", t.partner["id"])

    before = time.time()
    await h.up(t, device, {"temperature": 21.5, "battery": 80})
    got = await h.wait(path, 2)
    assert len(got) == 2
    events = [verify(secret, r) for r in got]
    by_type = {e["type"]: (e, r) for e, r in zip(events, got, strict=True)}
    assert set(by_type) == {"device.online", "device.uplink"}

    uplink, request = by_type["device.uplink"]
    assert request.headers["content-type"] == "application/json"
    assert request.headers["webhook-id"] == uplink["id"]
    assert before - 5 <= int(request.headers["webhook-timestamp"]) <= time.time() + 5
    assert request.headers["webhook-signature"].startswith("v1,")
    assert " " not in request.headers["webhook-signature"]  # one secret, one signature
    assert uplink["partnerId"] == t.partner["id"]
    assert uplink["subAccountId"] == t.a["id"]
    assert uplink["deviceId"] == device["id"]
    data = uplink["data"]
    assert data["devEui"] == device["devEui"]
    assert data["values"] == {"temperature": 21.5, "battery": 80}
    assert data["battery"]["value"] == 80 and data["battery"]["source"] == "field"
    assert data["fPort"] == 1 and data["fCnt"] == 7
    assert data["siteId"] == device["siteId"]
    assert data["signalQuality"] is not None

    online, _ = by_type["device.online"]
    # The first uplink of a device that never sent one brings it online, then the uplink.
    assert (online["sequence"], uplink["sequence"]) == (1, 2)
    assert online["data"]["offlineThresholdMinutes"] == 30

    log = h.cli("webhooks", "deliveries", endpoint_id)
    assert len(log) == 2
    assert all(line.split()[2] == "204" and line.endswith("ms") for line in log)
    assert {line.split()[1] for line in log} == {e["id"] for e in events}


async def test_uplink_event_shows_what_latest_shows(h: Hooks) -> None:
    # The event carries the device's state as /latest builds it (latest_body): with retain
    # last value the older field is `retained`, and calibration makes `derived`.
    w = World()
    partner, sa = w.tenancy({}, plan={"apiWrite": True, "retentionDays": 30})
    profile = w.profile(
        partner, fields=[w.field("temperature"), w.field("humidity")], retainLastValue=True
    )
    device = w.device(sa, profile, calibration={"temperature": {"scale": 2, "offset": 1}})
    token = w.integration(partner)
    key = w.key(sa, scopes=["telemetry:read"])
    await load(h.pool, w)
    _, secret, path = h.endpoint("--partner", partner["id"], "--events", "device.uplink")
    eui, t1, t2 = device["devEui"], cs.at(0, -2), cs.at(0, -1)
    await h.post(token, "up", cs.uplink(eui, {"temperature": 10.0, "humidity": 40}, time=t1))
    await h.post(token, "up", cs.uplink(eui, {"temperature": 11.0}, time=t2))
    events = sorted(
        (verify(secret, r) for r in await h.wait(path, 2)),
        key=lambda e: e["sequence"],
    )
    data = events[1]["data"]
    response = await h.http.get(f"/api/v1/devices/{device['id']}/latest", headers=bearer(key))
    assert response.status_code == 200, response.text
    latest = response.json()["data"]
    assert data["values"] == latest["values"] == {"temperature": 23.0, "humidity": 40}
    assert data["retained"] == latest["retained"] == {"humidity": cs.iso(t1)}
    assert data["derived"] == latest["derived"] == {"temperature": 23.0}
    assert data["signalQuality"] == latest["signalQuality"]
    assert data["time"] == cs.iso(t2)
    assert "retained" not in events[0]["data"]


async def test_alerts_status_join_and_location_events(h: Hooks) -> None:
    t, device = await h.tenancy()
    _, secret, path = h.endpoint(
        "--partner",
        t.partner["id"],
        "--events",
        "device.alert.raised,device.alert.cleared,device.status,device.joined,device.location",
    )
    eui = device["devEui"]
    await h.post(t.token, "up", cs.uplink(eui, {"temperature": 35.0}, time=cs.at(0, -3)))
    await h.post(t.token, "up", cs.uplink(eui, {"temperature": 20.0}, time=cs.at(0, -2)))
    await h.post(t.token, "status", cs.status(eui, level=55))
    await h.post(t.token, "status", cs.status(eui, level=55))  # no change: no event
    await h.post(t.token, "join", cs.join(eui))
    await h.post(t.token, "location", cs.location(eui, 52.1, 4.3))
    got = await h.wait(path, 5)
    events = sorted((verify(secret, r) for r in got), key=lambda e: e["sequence"])
    assert [e["type"] for e in events] == [
        "device.alert.raised",
        "device.alert.cleared",
        "device.status",
        "device.joined",
        "device.location",
    ]
    raised, cleared = events[0]["data"], events[1]["data"]
    assert (raised["field"], raised["op"], raised["threshold"], raised["level"]) == (
        "temperature",
        ">",
        30,
        "warning",
    )
    assert raised["value"] == 35.0 and cleared["value"] == 20.0
    assert raised["time"] == cs.iso(cs.at(0, -3)) or raised["time"] < cleared["time"]
    assert events[2]["data"]["battery"]["value"] == 55
    assert events[2]["data"]["battery"]["source"] == "status"
    assert events[4]["data"]["location"]["latitude"] == 52.1
    # Sequences count every event of the device (online and uplinks went elsewhere).
    assert [e["sequence"] for e in events] == sorted({e["sequence"] for e in events})
    await asyncio.sleep(0.5)
    assert len(h.receiver.on(path)) == 5


async def test_type_device_and_scope_filters(h: Hooks) -> None:
    t = Tenancy()
    in_a, other_in_a, in_b = t.device(), t.device(), t.device(t.b)
    await load(h.pool, t.world)
    _, secret_a, path_a = h.endpoint("--sub-account", t.a["id"], "--events", "device.uplink")
    _, secret_b, path_b = h.endpoint("--sub-account", t.b["id"])
    two = f"{in_b['id']},{other_in_a['id']}"
    _, secret_p, path_p = h.endpoint("--partner", t.partner["id"], "--devices", two)
    for device in (in_a, other_in_a, in_b):
        await h.up(t, device, {"temperature": 1.0})

    a = [verify(secret_a, r) for r in await h.wait(path_a, 2)]
    b = [verify(secret_b, r) for r in await h.wait(path_b, 2)]
    p = [verify(secret_p, r) for r in await h.wait(path_p, 4)]
    await asyncio.sleep(0.5)
    # Sub-account A, uplinks only: both of its devices' uplinks, nothing of B, no online.
    assert sorted((e["type"], e["deviceId"]) for e in a) == sorted(
        [("device.uplink", in_a["id"]), ("device.uplink", other_in_a["id"])]
    )
    assert len(h.receiver.on(path_a)) == 2
    # Sub-account B: only its own device (online + uplink), never A's.
    assert {e["deviceId"] for e in b} == {in_b["id"]} and len(h.receiver.on(path_b)) == 2
    assert all(e["subAccountId"] == t.b["id"] for e in b)
    # Partner endpoint filtered to two devices across both sub-accounts.
    assert {e["deviceId"] for e in p} == {in_b["id"], other_in_a["id"]}
    assert len(h.receiver.on(path_p)) == 4


async def test_webhook_test_event_and_disabled_endpoint_misses_events(h: Hooks) -> None:
    t, device = await h.tenancy()
    endpoint_id, secret, path = h.endpoint("--partner", t.partner["id"])
    line = h.cli("webhooks", "test", endpoint_id)[0]
    event = verify(secret, (await h.wait(path, 1))[0])
    assert event["id"] == line.split()[0]
    assert (event["type"], event["deviceId"], event["sequence"], event["data"]) == (
        "webhook.test",
        None,
        None,
        {},
    )

    assert h.cli("webhooks", "disable", endpoint_id) == [f"{endpoint_id} disabled"]
    await h.up(t, device, {"temperature": 1.0})
    h.cli("webhooks", "enable", endpoint_id)
    await h.up(t, device, {"temperature": 2.0})
    got = await h.wait(path, 2, of_type="device.uplink", timeout=5)
    uplinks = [verify(secret, r) for r in h.receiver.on(path)[1:]]
    # What happened while it was disabled is not sent; what happened after is.
    assert [
        e["data"]["values"]["temperature"] for e in uplinks if e["type"] == "device.uplink"
    ] == [2.0]
    assert len(got) == 1


async def test_downlink_queued_event(h: Hooks) -> None:
    t, device = await h.tenancy()
    _, secret, path = h.endpoint("--sub-account", t.a["id"], "--events", "downlink.queued")
    response = await h.http.post(
        f"/api/v1/devices/{device['id']}/downlinks",
        json={"key": "set_interval", "data": {"minutes": 10}},
        headers=bearer(t.key),
    )
    assert response.status_code == 202, response.text
    queued = response.json()["data"]
    event = verify(secret, (await h.wait(path, 1))[0])
    assert event["type"] == "downlink.queued"
    assert event["data"]["queueItemId"] == queued["queueItemId"]
    assert (event["data"]["status"], event["data"]["fPort"]) == ("queued", 10)


async def test_offline_from_the_ticker_then_online_on_the_next_uplink(h: Hooks) -> None:
    t, device = await h.tenancy(offlineThresholdMinutes=1)
    _, secret, path = h.endpoint(
        "--partner",
        t.partner["id"],
        "--events",
        "device.online,device.offline",
    )
    # An uplink 58 s old: online now, offline 2 s from now with nobody asking.
    sent_at = datetime.now(UTC).replace(microsecond=0) - timedelta(seconds=58)
    await h.up(t, device, {"temperature": 1}, time=sent_at)
    got = await h.wait(path, 2, timeout=15)
    events = [verify(secret, r) for r in got]
    assert [e["type"] for e in events] == ["device.online", "device.offline"]
    offline = events[1]
    assert offline["data"]["lastUplinkAt"] == cs.iso(sent_at)
    assert offline["timestamp"] == cs.iso(sent_at + timedelta(minutes=1))
    assert offline["sequence"] == events[0]["sequence"] + 1

    await h.up(t, device, {"temperature": 2})
    back = verify(secret, (await h.wait(path, 3))[2])
    assert back["type"] == "device.online"
    # Online is emitted before the uplink that brings it; no endpoint of this partner
    # takes uplinks, so they were never events and took no number.
    assert back["sequence"] == offline["sequence"] + 1


async def test_moving_a_device_to_inventory_ends_its_events(h: Hooks) -> None:
    t, device = await h.tenancy()
    endpoint_id, _, path = h.endpoint("--partner", t.partner["id"])
    h.receiver.answers[path] = lambda n: (500, {}, 0.0)
    await h.up(t, device, {"temperature": 1})
    await h.wait(path, 2)
    h.cli("devices", "set-status", device["id"], "inventory")
    seen = len(h.receiver.on(path))
    await asyncio.sleep(1.0)  # the retries would have come by now (30 ms, 180 ms, ...)
    assert len(h.receiver.on(path)) <= seen + 2  # at most attempts already under way
    listed = h.listed(endpoint_id)
    assert "pending=0" in listed


# ------------------------------------------------------------------------------ delivery


async def test_retries_follow_the_scaled_schedule_then_recover_the_endpoint(h: Hooks) -> None:
    t, device = await h.tenancy()
    endpoint_id, secret, path = h.uplink_endpoint(t)
    h.receiver.answers[path] = lambda n: (500, {}, 0.0) if n <= 4 else (204, {}, 0.0)
    await h.up(t, device, {"temperature": 1})
    got = await h.wait(path, 5)
    assert len(got) == 5
    assert len({r.headers["webhook-id"] for r in got}) == 1  # same id on every attempt
    for r in got:
        verify(secret, r)
    gaps = [b.at - a.at for a, b in itertools.pairwise(got)]
    # 5 s, 5 min, 30 min, 2 h scaled, each -10 % at most (and never before it is due).
    for gap, step in zip(gaps, (5, 300, 1800, 7200), strict=True):
        assert gap >= step * SCALE * 0.9 - 0.01, (gaps, step)
    await asyncio.sleep(0.3)
    log = h.cli("webhooks", "deliveries", endpoint_id)
    assert [line.split()[2] for line in log] == ["204", "500", "500", "500", "500"]
    assert len(h.cli("webhooks", "deliveries", endpoint_id, "--failed")) == 4
    listed = h.listed(endpoint_id)
    assert " enabled " in listed and "delivered=1" in listed and "pending=0" in listed
    row = await h.pool.fetchrow(
        "SELECT count(*) AS n, max(length(response)) AS longest FROM webhook_attempts"
        " WHERE endpoint_id = $1",
        uuid.UUID(endpoint_id),
    )
    assert row["n"] == 5 and row["longest"] == len("answer 500 to attempt 1")


async def test_gone_auto_disables_and_enable_resumes_kept_messages(h: Hooks) -> None:
    t, device = await h.tenancy()
    endpoint_id, secret, path = h.uplink_endpoint(t)
    h.receiver.answers[path] = lambda n: (410, {}, 0.0) if n == 1 else (204, {}, 0.0)
    await h.up(t, device, {"temperature": 1})
    await h.wait(path, 1)
    await asyncio.sleep(0.5)
    await h.up(t, device, {"temperature": 2})
    await asyncio.sleep(1.0)
    assert len(h.receiver.on(path)) == 1  # nothing more while auto_disabled
    listed = h.listed(endpoint_id)
    assert " auto_disabled " in listed and "pending=2" in listed
    h.cli("webhooks", "enable", endpoint_id)
    got = await h.wait(path, 3)
    temperatures = sorted(verify(secret, r)["data"]["values"]["temperature"] for r in got[1:])
    assert temperatures == [1, 2]


async def test_429_with_retry_after_waits_as_told_and_is_not_an_attempt(h: Hooks) -> None:
    t, device = await h.tenancy()
    endpoint_id, _, path = h.uplink_endpoint(t)
    h.receiver.answers[path] = lambda n: (
        (429, {"Retry-After": "1"}, 0.0) if n == 1 else (204, {}, 0.0)
    )
    await h.up(t, device, {"temperature": 1})
    got = await h.wait(path, 2, timeout=10)
    assert len(got) == 2
    assert got[1].at - got[0].at >= 0.95  # as given, not scaled (scaled would be 0.1 ms)
    await asyncio.sleep(0.3)
    attempts = await h.pool.fetchval(
        "SELECT attempts FROM webhook_messages WHERE endpoint_id = $1", uuid.UUID(endpoint_id)
    )
    assert attempts == 1  # the 429 did not count
    log = h.cli("webhooks", "deliveries", endpoint_id)
    assert [line.split()[2] for line in log] == ["204", "429"]


async def test_redirects_are_refused(h: Hooks) -> None:
    t, device = await h.tenancy()
    endpoint_id, _, path = h.uplink_endpoint(t)
    target = path + "/moved"
    h.receiver.answers[path] = lambda n: (302, {"Location": h.receiver.url(target)}, 0.0)
    await h.up(t, device, {"temperature": 1})
    await h.wait(path, 2)
    await asyncio.sleep(0.3)
    assert h.receiver.on(target) == []
    failed = h.cli("webhooks", "deliveries", endpoint_id, "--failed")
    assert failed and all(line.split()[2] == "302" for line in failed)


async def test_a_slow_endpoint_never_delays_another(h: Hooks) -> None:
    t, device = await h.tenancy()
    _, _, slow = h.uplink_endpoint(t)
    _, _, fast = h.uplink_endpoint(t)
    h.receiver.answers[slow] = lambda n: (204, {}, 1.5)
    for i in range(20):
        await h.up(t, device, {"temperature": i}, time=cs.at(0, -i))
    got = await h.wait(fast, 20, timeout=10)
    assert len(got) == 20
    # By the time the fast endpoint has all 20, the slow one has been sent at most its
    # concurrency (4) per 1.5 s answer: its own slots, not the fast endpoint's.
    assert len(h.receiver.on(slow)) <= 12


async def test_secret_rotation_signs_with_both_during_the_overlap(h: Hooks) -> None:
    t = Tenancy()
    await load(h.pool, t.world)
    endpoint_id, old, path = h.endpoint("--partner", t.partner["id"])
    lines = h.cli("webhooks", "rotate-secret", endpoint_id, "--overlap", "1h")
    new = lines[-1]
    assert new.startswith("whsec_") and new != old
    h.cli("webhooks", "test", endpoint_id)
    during = (await h.wait(path, 1))[0]
    assert len(during.headers["webhook-signature"].split()) == 2
    verify(old, during)
    verify(new, during)

    newest = h.cli("webhooks", "rotate-secret", endpoint_id, "--overlap", "0")[-1]
    h.cli("webhooks", "test", endpoint_id)
    after = (await h.wait(path, 2))[1]
    assert len(after.headers["webhook-signature"].split()) == 1
    verify(newest, after)
    with pytest.raises(WebhookVerificationError):
        Webhook(new).verify(after.body, after.headers)
    # The secret never shows up again: not in the list, not in the log.
    listing = "\n".join(h.cli("webhooks", "list") + h.cli("webhooks", "deliveries", endpoint_id))
    assert old not in listing and new not in listing and newest not in listing


async def test_redeliver_sends_the_same_webhook_id_again(h: Hooks) -> None:
    t = Tenancy()
    await load(h.pool, t.world)
    one, secret, path_one = h.endpoint("--partner", t.partner["id"])
    event_id = h.cli("webhooks", "test", one)[0].split()[0]
    await h.wait(path_one, 1)
    assert h.cli("webhooks", "redeliver", event_id) == [f"{event_id} queued again for {one}"]
    again = await h.wait(path_one, 2)
    assert [verify(secret, r)["id"] for r in again] == [event_id, event_id]
    h.cli("webhooks", "redeliver", event_id, "--endpoint", one)
    assert len(await h.wait(path_one, 3)) == 3
    refused = cli("webhooks", "redeliver", "msg_nope", env={"DATABASE_URL": h.url}, check=False)
    assert "no event msg_nope" in refused[0]


async def test_recover_replays_what_was_given_up(h: Hooks) -> None:
    t, device = await h.tenancy()
    endpoint_id, secret, path = h.uplink_endpoint(t)
    h.receiver.answers[path] = lambda n: (500, {}, 0.0) if n <= 10 else (204, {}, 0.0)
    start = datetime.now(UTC)
    await h.up(t, device, {"temperature": 1})
    # Ten attempts over the scaled schedule (~27 s), then the message is given up.
    await h.wait(path, 10, timeout=60)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        state = await h.pool.fetchval(
            "SELECT state FROM webhook_messages WHERE endpoint_id = $1", uuid.UUID(endpoint_id)
        )
        if state == "failed":
            break
        await asyncio.sleep(0.2)
    assert state == "failed"
    listed = h.listed(endpoint_id)
    assert "failed=1" in listed
    recovered = h.cli("webhooks", "recover", endpoint_id, "--since", start.isoformat())
    assert len(recovered) == 1
    got = await h.wait(path, 11)
    assert len(got) == 11 and verify(secret, got[-1])["id"] == recovered[0].split()[0]


# ------------------------------------------------------------------------------ safety


async def test_private_and_plain_http_addresses_are_refused_at_the_attempt(
    receiver: Receiver, migrated: str
) -> None:
    path = "/hook/ssrf"
    job = Job(
        event_num=1,
        endpoint_id=str(uuid.uuid4()),
        attempts=0,
        event_id="msg_" + "0" * 26,
        body=b"{}",
        url=receiver.url(path),
        secrets=["whsec_" + "A" * 32],
    )
    client = Client()
    try:
        refused = await attempt(client, job, timeout_s=2, scale=SCALE, allow_private=False)
        https_loopback = await attempt(
            client,
            msgspec_replace(job, url=f"https://127.0.0.1:{receiver.server.server_port}{path}"),
            timeout_s=2,
            scale=SCALE,
            allow_private=False,
        )
        allowed = await attempt(client, job, timeout_s=2, scale=SCALE, allow_private=True)
    finally:
        client.close()
    assert (refused.error, refused.result, refused.status) == ("refused_scheme", "retry", None)
    assert https_loopback.error == "refused_address"
    assert allowed.status == 204 and allowed.result == "ok"
    assert len(receiver.on(path)) == 1  # only the allowed attempt reached the socket
    for address in ("127.0.0.1", "10.1.2.3", "192.168.1.1", "169.254.169.254", "::1", "fe80::1"):
        assert not safety.public(address), address
    assert safety.public("93.184.216.34")
    refusal = cli(
        "webhooks",
        "create",
        "--partner",
        str(uuid.uuid4()),
        "--url",
        "http://example.com/hook",
        env={"DATABASE_URL": migrated, "TELEMETRY_WEBHOOKS_ALLOW_PRIVATE": "0"},
        check=False,
    )
    assert "no partner" in refusal[0] or "only https" in refusal[0]


def msgspec_replace(job: Job, **changes: Any) -> Job:
    import msgspec

    return msgspec.structs.replace(job, **changes)


async def test_auto_disable_after_five_scaled_days_of_failure(pool: asyncpg.Pool) -> None:
    t = Tenancy()
    await load(pool, t.world)
    endpoint_id = uuid.uuid4()
    await pool.execute(
        "INSERT INTO webhook_endpoints (id, partner_id, url, secret, state, failing_since)"
        " VALUES ($1, $2, 'https://127.0.0.1:9/', $3, 'failing', now() - interval '50 s')",
        endpoint_id,
        uuid.UUID(t.partner["id"]),
        new_secret(),
    )
    event = await pool.fetchval(
        "SELECT webhook_emit('webhook.test', $1, NULL, NULL, NULL, now(), '{}', $2)",
        uuid.UUID(t.partner["id"]),
        endpoint_id,
    )
    num = await pool.fetchval("SELECT num FROM webhook_events WHERE id = $1", event)
    five_days = timedelta(days=5).total_seconds() * SCALE  # 43.2 s
    await pool.execute(
        "SELECT webhook_attempt_done($1, $2, now(), 500, NULL, 3, 'no', 'retry',"
        " now() + interval '1 s', false, make_interval(secs => $3))",
        num,
        endpoint_id,
        five_days,
    )
    state = await pool.fetchval("SELECT state FROM webhook_endpoints WHERE id = $1", endpoint_id)
    kept = await pool.fetchval(
        "SELECT state FROM webhook_messages WHERE endpoint_id = $1", endpoint_id
    )
    assert (state, kept) == ("auto_disabled", "pending")


# ------------------------------------------------------------------------ world and listen


def start_listener(port: int, secret: str) -> subprocess.Popen[str]:
    """`telemetry webhooks listen`, once it says it is listening."""
    listener = subprocess.Popen(
        [TELEMETRY, "webhooks", "listen", "--port", str(port), "--secret", secret],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert listener.stdout is not None
    assert "listening on" in listener.stdout.readline()
    return listener


async def test_world_file_endpoint_and_webhooks_listen_verify_and_print(
    server: LiveServer, pool: asyncpg.Pool, migrated: str
) -> None:
    """An endpoint of a world file (under a sub-account) pointing at `telemetry webhooks
    listen`, which verifies each signature with the world's secret and prints the event."""
    port = free_port()
    secret = new_secret()
    listener = await asyncio.to_thread(start_listener, port, secret)
    try:
        assert listener.stdout is not None
        t = Tenancy()
        hook_id = str(uuid.uuid4())
        t.a["webhooks"] = [
            {"id": hook_id, "url": f"http://127.0.0.1:{port}/events", "secret": secret}
        ]
        await load(pool, t.world)
        row = await pool.fetchrow(
            "SELECT sub_account_id, state, event_types FROM webhook_endpoints WHERE id = $1",
            uuid.UUID(hook_id),
        )
        assert (str(row["sub_account_id"]), row["state"], row["event_types"]) == (
            t.a["id"],
            "enabled",
            None,
        )
        event_id = cli("webhooks", "test", hook_id, env={"DATABASE_URL": migrated})[0].split()[0]
        line = await asyncio.wait_for(asyncio.to_thread(listener.stdout.readline), 20)
        assert event_id in line and "webhook.test" in line and " verified " in line
        # A request signed with another secret is refused and printed as such.
        body = b'{"id":"msg_forged","type":"webhook.test","data":{}}'
        forged = Webhook(new_secret()).sign("msg_forged", datetime.now(UTC), body.decode())
        async with httpx.AsyncClient() as plain:
            answer = await plain.post(
                f"http://127.0.0.1:{port}/events",
                content=body,
                headers={
                    "webhook-id": "msg_forged",
                    "webhook-timestamp": str(int(time.time())),
                    "webhook-signature": forged,
                },
            )
        assert answer.status_code == 400
        line = await asyncio.wait_for(asyncio.to_thread(listener.stdout.readline), 20)
        assert "msg_forged" in line and "REFUSED" in line
    finally:
        listener.terminate()
        listener.wait(timeout=10)


# ------------------------------------------------------------------------------ durability


async def test_kill_9_between_acknowledged_uplink_and_delivery_loses_nothing(
    server: LiveServer, migrated: str, h: Hooks, pool: asyncpg.Pool
) -> None:
    """Last in this module: it kills the module's server (the dispatching one)."""
    t, device = await h.tenancy()
    _, secret, path = h.uplink_endpoint(t)
    # The first attempt hangs at the receiver: the server dies with it under way.
    h.receiver.answers[path] = lambda n: (204, {}, 1.8) if n == 1 else (204, {}, 0.0)
    await h.up(t, device, {"temperature": 7})
    await h.wait(path, 1)
    os.killpg(server.process.pid, signal.SIGKILL)  # granian and its workers, at once
    server.process.wait(timeout=10)
    restarted = start_server(migrated, workers=2, env=SERVER_ENV)
    try:
        # The claimed message's lease (timeout + 10 s) ends; the new leader sends it.
        got = await h.wait(path, 2, timeout=40)
        assert len(got) >= 2
        events = [verify(secret, r) for r in got]
        assert len({e["id"] for e in events}) == 1
        assert events[-1]["data"]["values"] == {"temperature": 7}
        await asyncio.sleep(0.3)
        state = await pool.fetchval(
            "SELECT m.state FROM webhook_messages m JOIN webhook_events e ON e.num = m.event_num"
            " WHERE e.id = $1",
            events[0]["id"],
        )
        assert state == "delivered"
    finally:
        restarted.process.terminate()
        restarted.process.wait(timeout=15)
