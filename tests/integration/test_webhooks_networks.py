"""Webhooks from the network-server side (integrations.md 1.2 with sections 2 and 3): the
`device.uplink` of an uplink from The Things Stack and from ChirpStack's MQTT integration
carries its fPort and fCnt, and every delivery state of a downlink is one `downlink.<status>`
event.

One `telemetry serve` runs all its background loops here (webhook dispatcher, MQTT
consumers, downlink dispatcher), as users start it; ChirpStack's gRPC API is the fake of
testkit/fake_chirpstack.py, the broker a real Mosquitto, the endpoint a real receiver.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import asyncpg
import httpx
import jsonschema
import pytest
from litestar.testing import AsyncTestClient

from app.downlinks.states import transition
from testkit.factories import World, load
from testkit.fake_chirpstack import FakeChirpStack
from tests.support import chirpstack as cs
from tests.support.chirpstack import network_event
from tests.support.helpers import bearer
from tests.support.network import Broker, Publisher, eventually
from tests.support.servers import LiveServer, serving
from tests.support.tts import uplink as tts_uplink
from tests.support.webhooks import (
    SCHEMAS,
    SERVER_ENV,
    Receiver,
    create_endpoint,
    verify,
)

DOWNLINK_EVENTS = ",".join(
    f"downlink.{s}"
    for s in ("queued", "submitted", "sent", "acknowledged", "nacked", "failed", "expired")
)


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Broker]:
    broker = Broker(tmp_path_factory.mktemp("mosquitto"))
    broker.start()
    yield broker
    broker.stop()


@pytest.fixture(scope="module")
def server(migrated: str) -> Iterator[LiveServer]:
    """`telemetry serve` with all three loops on (conftest's default turns them off)."""
    env = {
        **SERVER_ENV,
        "TELEMETRY_MQTT_INGEST": "1",
        "TELEMETRY_DOWNLINK_DISPATCH": "1",
        "TELEMETRY_CHIRPSTACK_TIMEOUT_S": "0.5",
        "TELEMETRY_DISPATCH_BACKOFF_S": "0.05",
    }
    with serving(migrated, env) as live:
        yield live


@pytest.fixture
async def http(server: LiveServer) -> AsyncIterator[httpx.AsyncClient]:
    async with server.client() as client:
        yield client


def writer(w: World, **profile: Any) -> tuple[dict[str, Any], ...]:
    """A partner whose plan lets it write (30 days kept), its sub-account, and a profile."""
    partner, sa = w.tenancy({}, plan={"apiWrite": True, "retentionDays": 30})
    return partner, sa, w.profile(partner, **profile)


def endpoint(database_url: str, receiver: Receiver, partner: dict[str, Any], events: str) -> Any:
    path = f"/hook/{uuid.uuid4().hex[:8]}"
    _, secret = create_endpoint(
        database_url, "--url", receiver.url(path), "--partner", partner["id"], "--events", events
    )
    return secret, path


async def events_of(receiver: Receiver, secret: str, path: str, count: int) -> list[Any]:
    got = await asyncio.to_thread(receiver.wait, path, count)
    assert len(got) >= count, f"{len(got)} of {count} events arrived"
    return sorted((verify(secret, r) for r in got), key=lambda e: e["sequence"])


# ------------------------------------------------------------------------- uplinks


async def test_a_tts_uplink_event_carries_fport_and_fcnt(
    receiver: Receiver, http: httpx.AsyncClient, pool: asyncpg.Pool, migrated: str
) -> None:
    w = World()
    partner, sa, profile = writer(w, fields=[w.field("temperature")])
    device = w.device(sa, profile)
    token = w.integration(partner, kind="tts")
    await load(pool, w)
    secret, path = endpoint(migrated, receiver, partner, "device.uplink")

    body = tts_uplink(device["devEui"], {"temperature": 19.5})
    response = await http.post("/ingest/tts", json=body, headers=bearer(token))
    assert response.status_code == 204, response.text
    [event] = await events_of(receiver, secret, path, 1)
    data = event["data"]
    assert (event["type"], event["deviceId"]) == ("device.uplink", device["id"])
    assert (data["fPort"], data["fCnt"]) == (15, 7577)
    assert data["values"] == {"temperature": 19.5}


async def test_an_mqtt_uplink_event_carries_fport_and_fcnt(
    server: LiveServer,
    receiver: Receiver,
    broker: Broker,
    pool: asyncpg.Pool,
    migrated: str,
) -> None:
    w = World()
    partner, sa, profile = writer(w, fields=[w.field("temperature")])
    device = w.device(sa, profile)
    w.integration(
        partner,
        mqtt={
            "url": broker.url,
            "topic": "application/+/device/+/event/+",
            "clientId": f"telemetry-test-{uuid.uuid4().hex[:8]}",
        },
    )
    await load(pool, w)
    secret, path = endpoint(migrated, receiver, partner, "device.uplink")

    # The server's consumers find the new integration within 10 s; until one has
    # subscribed the broker keeps nothing, so publish until an event arrives.
    publisher = Publisher(broker)
    try:

        async def delivered() -> int:
            publisher.publish(
                device["devEui"], "up", cs.uplink(device["devEui"], {"temperature": 3}, f_port=42)
            )
            return len(await asyncio.to_thread(receiver.wait, path, 1, 1.0))

        await eventually(delivered, lambda n: n > 0, 60, "a device.uplink from MQTT")
    finally:
        publisher.close()
    event = verify(secret, receiver.on(path)[0])
    assert event["type"] == "device.uplink" and event["deviceId"] == device["id"]
    assert (event["data"]["fPort"], event["data"]["fCnt"]) == (42, 7)


# ----------------------------------------------------------------------- downlinks


async def test_a_downlink_walking_to_acknowledged_delivers_each_state_once(
    receiver: Receiver,
    http: httpx.AsyncClient,
    fake: FakeChirpStack,
    pool: asyncpg.Pool,
    migrated: str,
) -> None:
    w = World()
    partner, sa, profile = writer(w)
    w.downlink_template(profile, key="set_interval", fPort=10, confirmed=True)
    device = w.device(sa, profile)
    token = w.integration(partner, grpc={"url": fake.url, "apiToken": fake.token})
    key = w.key(sa, scopes=["devices:read", "downlinks:write"])
    await load(pool, w)
    secret, path = endpoint(migrated, receiver, partner, DOWNLINK_EVENTS)
    eui = device["devEui"]

    response = await http.post(
        f"/api/v1/devices/{device['id']}/downlinks",
        json={"key": "set_interval", "data": {"minutes": 30}},
        headers=bearer(key),
    )
    assert response.status_code == 202, response.text
    item_id = response.json()["data"]["queueItemId"]
    # Submitted once the server's dispatcher has enqueued it in the fake ChirpStack.
    await events_of(receiver, secret, path, 2)
    [sent] = fake.service.items_of(eui)

    async def network(event: str, **fields: Any) -> None:
        answer = await http.post(
            f"/ingest/chirpstack?event={event}",
            content=network_event(event, eui, queue_item_id=sent.id, **fields),
            headers=bearer(token),
        )
        assert answer.status_code == 204, answer.text

    await network("txack", f_cnt_down=12)
    await network("ack", acknowledged=True, f_cnt_down=12)
    events = await events_of(receiver, secret, path, 4)
    assert [e["type"] for e in events] == [
        "downlink.queued",
        "downlink.submitted",
        "downlink.sent",
        "downlink.acknowledged",
    ]
    for event in events:
        assert (event["deviceId"], event["subAccountId"]) == (device["id"], sa["id"])
        data = event["data"]
        assert (data["devEui"], data["queueItemId"], data["fPort"]) == (eui, item_id, 10)
        assert data["status"] == event["type"].removeprefix("downlink.")
    assert [e["data"].get("fCntDown") for e in events] == [None, None, 12, 12]
    sequences = [e["sequence"] for e in events]
    assert sequences == list(range(sequences[0], sequences[0] + 4))

    # A repeated network event changes nothing, so it writes no event: the outbox is
    # written in the transaction that answered 204, so counting it now is exact.
    await network("txack", f_cnt_down=12)
    written = await pool.fetchval(
        "SELECT count(*) FROM webhook_events e JOIN devices d ON d.num = e.device_num"
        " WHERE d.id = $1 AND e.type LIKE 'downlink.%'",
        uuid.UUID(device["id"]),
    )
    assert written == 4


async def test_nacked_failed_and_expired_are_one_event_each_with_their_data(
    client: AsyncTestClient, pool: asyncpg.Pool, migrated: str, receiver: Receiver
) -> None:
    # The states i15's dispatcher and network events write, through the one place that
    # writes them (app/downlinks/states.py), with the in-process app (no dispatcher).
    w = World()
    partner, sa, profile = writer(w)
    w.downlink_template(profile, key="set_interval", fPort=10, confirmed=True)
    device = w.device(sa, profile)
    key = w.key(sa, scopes=["devices:read", "downlinks:write"])
    await load(pool, w)
    endpoint(migrated, receiver, partner, DOWNLINK_EVENTS)

    async def queue() -> uuid.UUID:
        response = await client.post(
            f"/api/v1/devices/{device['id']}/downlinks",
            json={"key": "set_interval", "data": {"minutes": 5}},
            headers=bearer(key),
        )
        assert response.status_code == 202, response.text
        return uuid.UUID(response.json()["data"]["queueItemId"])

    nacked, failed, expired = await queue(), await queue(), await queue()
    assert await transition(pool, nacked, "submitted", network_id=str(uuid.uuid4()))
    assert await transition(pool, nacked, "nacked", f_cnt_down=3)
    assert await transition(pool, nacked, "failed", error="too late") is None
    assert await transition(pool, failed, "failed", error="NOT_FOUND: no such device")
    assert await transition(pool, expired, "expired", error="expiresAt passed")
    assert await transition(pool, expired, "expired", error="again") is None

    rows = await pool.fetch(
        "SELECT e.type, e.body FROM webhook_events e JOIN devices d ON d.num = e.device_num"
        " WHERE d.id = $1 ORDER BY e.num",
        uuid.UUID(device["id"]),
    )
    events = [json.loads(row["body"]) for row in rows]
    for event in events:
        jsonschema.validate(event, SCHEMAS[event["type"]])
    seen = [(e["data"]["queueItemId"], e["type"]) for e in events]
    assert seen == [
        (str(nacked), "downlink.queued"),
        (str(failed), "downlink.queued"),
        (str(expired), "downlink.queued"),
        (str(nacked), "downlink.submitted"),
        (str(nacked), "downlink.nacked"),
        (str(failed), "downlink.failed"),
        (str(expired), "downlink.expired"),
    ]
    data = {(e["data"]["queueItemId"], e["type"]): e["data"] for e in events}
    assert data[(str(nacked), "downlink.nacked")]["fCntDown"] == 3
    assert "error" not in data[(str(nacked), "downlink.nacked")]
    assert data[(str(failed), "downlink.failed")]["error"] == "NOT_FOUND: no such device"
    assert data[(str(expired), "downlink.expired")]["error"] == "expiresAt passed"
