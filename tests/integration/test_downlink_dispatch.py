"""Downlinks delivered to ChirpStack (integrations.md section 3): `telemetry dispatch`
started as users start it, against a fake of ChirpStack's gRPC DeviceService that speaks
the real protocol with the real stubs (testkit/fake_chirpstack.py)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from chirpstack_api import integration
from litestar.testing import AsyncTestClient

from testkit.factories import World, load
from testkit.fake_chirpstack import FakeChirpStack
from tests.support.chirpstack import network_event
from tests.support.helpers import bearer
from tests.support.network import Broker, Process, Publisher, eventually

TIMEOUT_S = "0.5"  # a hung call counts as an unknown outcome after this long


class Dispatcher:
    """`telemetry dispatch` in the background; `restart()` after a kill."""

    def __init__(self, database_url: str, log: Path) -> None:
        self.database_url = database_url
        self.log = log
        self.process = self._start()

    def _start(self) -> Process:
        return Process(
            ["dispatch"],
            self.database_url,
            self.log,
            TELEMETRY_CHIRPSTACK_TIMEOUT_S=TIMEOUT_S,
            TELEMETRY_DISPATCH_BACKOFF_S="0.05",
        )

    def restart(self) -> None:
        self.process = self._start()


@pytest.fixture(scope="module")
def dispatcher(migrated: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dispatcher]:
    running = Dispatcher(migrated, tmp_path_factory.mktemp("dispatch") / "dispatch.log")
    yield running
    running.process.stop()


async def downlink_world(
    pool: asyncpg.Pool,
    fake: FakeChirpStack,
    devices: int = 1,
    confirmed: bool = True,
    faults: list[str] | None = None,
) -> dict[str, Any]:
    """A partner whose first device (of `devices`) the fake ChirpStack answers with
    `faults`, in order, before it takes the downlink."""
    w = World()
    p, sa = w.tenancy({}, plan={"apiWrite": True, "retentionDays": 30})
    profile = w.profile(p)
    w.downlink_template(profile, key="set_interval", fPort=10, confirmed=confirmed)
    devs = [w.device(sa, profile) for _ in range(devices)]
    token = w.integration(p, grpc={"url": fake.url, "apiToken": fake.token})
    key = w.key(sa, scopes=["devices:read", "downlinks:write"])
    group = w.multicast_group(sa, devs) if devices > 1 else None
    await load(pool, w)
    if faults:
        fake.service.enqueue_faults[devs[0]["devEui"]] = faults
    return {"devices": devs, "token": token, "key": key, "group": group, "sa": sa}


async def send(
    client: AsyncTestClient, world: dict[str, Any], minutes: int, device: int = 0, **extra: Any
) -> dict[str, Any]:
    dev = world["devices"][device]
    response = await client.post(
        f"/api/v1/devices/{dev['id']}/downlinks",
        json={"key": "set_interval", "data": {"minutes": minutes}, **extra},
        headers=bearer(world["key"]),
    )
    assert response.status_code == 202, response.text
    body: dict[str, Any] = response.json()["data"]
    return body


async def item(
    client: AsyncTestClient, world: dict[str, Any], queue_item_id: str, device: int = 0
) -> dict[str, Any]:
    dev = world["devices"][device]
    response = await client.get(
        f"/api/v1/devices/{dev['id']}/downlinks/{queue_item_id}", headers=bearer(world["key"])
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()["data"]
    return body


async def reaches(
    client: AsyncTestClient, world: dict[str, Any], queue_item_id: str, status: str, device: int = 0
) -> dict[str, Any]:
    return await eventually(
        lambda: item(client, world, queue_item_id, device),
        lambda body: body["status"] == status,
        20,
        f"downlink {queue_item_id} to become {status}",
    )


async def post_event(
    client: AsyncTestClient, world: dict[str, Any], event: str, dev_eui: str, **fields: Any
) -> None:
    """ChirpStack's `event` (its `network_event`) about `dev_eui`, through the ingest route."""
    response = await client.post(
        f"/ingest/chirpstack?event={event}",
        content=network_event(event, dev_eui, **fields),
        headers=bearer(world["token"]),
    )
    assert response.status_code == 204, response.text


def payload(minutes: int) -> bytes:
    return minutes.to_bytes(2, "big")


async def test_a_downlink_reaches_chirpstack_and_walks_to_acknowledged(
    client: AsyncTestClient, pool: asyncpg.Pool, fake: FakeChirpStack, dispatcher: Dispatcher
) -> None:
    world = await downlink_world(pool, fake)
    dev = world["devices"][0]
    queued = await send(client, world, 30, expiresInSeconds=600)
    assert queued["status"] == "queued"
    submitted = await reaches(client, world, queued["queueItemId"], "submitted")
    [sent] = fake.service.items_of(dev["devEui"])
    assert (sent.f_port, sent.data, sent.confirmed) == (10, payload(30), True)
    expires = datetime.fromisoformat(queued["expiresAt"].replace("Z", "+00:00"))
    assert abs((sent.expires_at.ToDatetime(tzinfo=UTC) - expires).total_seconds()) < 0.001
    assert submitted["submittedAt"] is not None and submitted["sentAt"] is None
    assert submitted["byteCount"] == 2 and submitted["confirmed"] is True

    await post_event(client, world, "txack", dev["devEui"], queue_item_id=sent.id, f_cnt_down=12)
    body = await item(client, world, queued["queueItemId"])
    assert (body["status"], body["fCntDown"]) == ("sent", 12) and body["sentAt"] is not None
    await post_event(
        client, world, "ack", dev["devEui"], queue_item_id=sent.id, acknowledged=True, f_cnt_down=12
    )
    body = await item(client, world, queued["queueItemId"])
    assert body["status"] == "acknowledged" and body["acknowledgedAt"] is not None
    # A late or repeated event changes nothing.
    await post_event(client, world, "txack", dev["devEui"], queue_item_id=sent.id, f_cnt_down=12)
    assert (await item(client, world, queued["queueItemId"]))["status"] == "acknowledged"
    assert fake.service.enqueue_calls[dev["devEui"]] == 1


async def test_nack_and_downlink_error_logs(
    client: AsyncTestClient, pool: asyncpg.Pool, fake: FakeChirpStack, dispatcher: Dispatcher
) -> None:
    world = await downlink_world(pool, fake)
    dev = world["devices"][0]
    first = await send(client, world, 1)
    await reaches(client, world, first["queueItemId"], "submitted")
    second = await send(client, world, 2)
    await reaches(client, world, second["queueItemId"], "submitted")
    one, two = fake.service.items_of(dev["devEui"])
    await post_event(client, world, "ack", dev["devEui"], queue_item_id=one.id, acknowledged=False)
    assert (await item(client, world, first["queueItemId"]))["status"] == "nacked"

    async def log_about_two(code: int, description: str, **level: Any) -> None:
        fields = {"code": code, "description": description, **level}
        await post_event(
            client, world, "log", dev["devEui"], context={"queue_item_id": two.id}, **fields
        )

    # A log event that is not a downlink error is ignored; a DOWNLINK_* one fails the item.
    await log_about_two(integration.LogCode.UPLINK_CODEC, "codec")
    assert (await item(client, world, second["queueItemId"]))["status"] == "submitted"
    error = integration.LogLevel.ERROR
    await log_about_two(integration.LogCode.DOWNLINK_GATEWAY, "gateway refused", level=error)
    body = await item(client, world, second["queueItemId"])
    assert body["status"] == "failed"
    assert body["error"] == "DOWNLINK_GATEWAY: gateway refused"


async def test_items_go_in_order_per_device_even_when_the_first_is_retried(
    client: AsyncTestClient, pool: asyncpg.Pool, fake: FakeChirpStack, dispatcher: Dispatcher
) -> None:
    world = await downlink_world(pool, fake, faults=["unavailable", "unavailable"])
    dev_eui = world["devices"][0]["devEui"]
    ids = [(await send(client, world, n))["queueItemId"] for n in (1, 2, 3)]
    for queue_item_id in ids:
        await reaches(client, world, queue_item_id, "submitted")
    assert [i.data for i in fake.service.items_of(dev_eui)] == [payload(1), payload(2), payload(3)]


@pytest.mark.parametrize(
    "code", ["not_found", "invalid_argument", "failed_precondition", "permission_denied"]
)
async def test_a_refusal_is_final(
    client: AsyncTestClient,
    pool: asyncpg.Pool,
    fake: FakeChirpStack,
    dispatcher: Dispatcher,
    code: str,
) -> None:
    world = await downlink_world(pool, fake, faults=[code])
    dev_eui = world["devices"][0]["devEui"]
    queued = await send(client, world, 5)
    body = await reaches(client, world, queued["queueItemId"], "failed")
    assert body["error"].startswith(code.upper() + ": ")
    after = await send(client, world, 6)  # the device's next item is not held up
    await reaches(client, world, after["queueItemId"], "submitted")
    assert fake.service.enqueue_calls[dev_eui] == 2
    assert [i.data for i in fake.service.items_of(dev_eui)] == [payload(6)]


async def test_a_wrong_api_token_is_a_refusal(
    client: AsyncTestClient, pool: asyncpg.Pool, fake: FakeChirpStack, dispatcher: Dispatcher
) -> None:
    w = World()
    p, sa = w.tenancy({}, plan={"apiWrite": True})
    profile = w.profile(p)
    w.downlink_template(profile, key="set_interval")
    dev = w.device(sa, profile)
    w.integration(p, grpc={"url": fake.url, "apiToken": "wrong"})
    key = w.key(sa, scopes=["devices:read", "downlinks:write"])
    await load(pool, w)
    world = {"devices": [dev], "key": key}
    queued = await send(client, world, 5)
    body = await reaches(client, world, queued["queueItemId"], "failed")
    assert body["error"].startswith("UNAUTHENTICATED")
    assert fake.service.items_of(dev["devEui"]) == []


# Every way an Enqueue can fail short of a refusal, before or after ChirpStack queued the
# item: the item must reach ChirpStack exactly once.
RETRY_PATHS = [
    *[
        f"{code}{when}"
        for code in ("unavailable", "internal", "resource_exhausted", "unknown")
        for when in ("", "_after")
    ],
    "hang",
    "hang_after",
]


@pytest.mark.parametrize("fault", RETRY_PATHS)
async def test_no_retry_path_enqueues_twice(
    client: AsyncTestClient,
    pool: asyncpg.Pool,
    fake: FakeChirpStack,
    dispatcher: Dispatcher,
    fault: str,
) -> None:
    world = await downlink_world(pool, fake, faults=[fault])
    dev_eui = world["devices"][0]["devEui"]
    queued = await send(client, world, 7)
    await reaches(client, world, queued["queueItemId"], "submitted")
    assert [i.data for i in fake.service.items_of(dev_eui)] == [payload(7)]
    calls = [method for method, eui in fake.service.calls if eui == dev_eui]
    queued_first = fault.endswith("_after")
    # The retry is preceded by a look at ChirpStack's queue; found there, no second call.
    assert calls == (
        ["Enqueue", "GetQueue"] if queued_first else ["Enqueue", "GetQueue", "Enqueue"]
    )


async def test_a_dispatcher_killed_mid_call_is_reconciled_by_its_successor(
    client: AsyncTestClient, pool: asyncpg.Pool, fake: FakeChirpStack, dispatcher: Dispatcher
) -> None:
    world = await downlink_world(pool, fake)
    dev_eui = world["devices"][0]["devEui"]
    # Queued at ChirpStack, answer never sent; and the process dies before its deadline.
    fake.service.enqueue_faults[dev_eui] = ["hang_after"]
    fake.service.getqueue_down.add(dev_eui)
    queued = await send(client, world, 9)
    await eventually(
        lambda: _count(fake, dev_eui), lambda n: n == 1, 20, "the call to reach ChirpStack"
    )
    dispatcher.process.kill()
    dispatcher.restart()
    # The successor must not enqueue while it cannot see ChirpStack's queue ...
    await eventually(
        lambda: _getqueue_calls(fake, dev_eui), lambda n: n >= 2, 20, "reconciliation attempts"
    )
    assert (await item(client, world, queued["queueItemId"]))["status"] == "queued"
    fake.service.getqueue_down.discard(dev_eui)
    # ... and once it can, it finds the item there.
    await reaches(client, world, queued["queueItemId"], "submitted")
    assert fake.service.enqueue_calls[dev_eui] == 1
    assert len(fake.service.items_of(dev_eui)) == 1


async def test_a_connection_lost_mid_call_is_reconciled_when_chirpstack_is_back(
    client: AsyncTestClient, pool: asyncpg.Pool, dispatcher: Dispatcher
) -> None:
    own = FakeChirpStack()
    await own.start()
    try:
        world = await downlink_world(pool, own)
        dev_eui = world["devices"][0]["devEui"]
        own.service.enqueue_faults[dev_eui] = ["hang_after"]
        queued = await send(client, world, 13)
        await eventually(
            lambda: _count(own, dev_eui), lambda n: n == 1, 20, "the item at ChirpStack"
        )
        # ChirpStack goes away with the call in progress: the connection is lost, and the
        # retries (GetQueue first) fail until it is back.
        await own.stop()
        await eventually(
            lambda: item(client, world, queued["queueItemId"]),
            lambda body: body["status"] == "queued",
            5,
            "the item to wait",
        )
        await own.restart()
        await reaches(client, world, queued["queueItemId"], "submitted")
        assert own.service.enqueue_calls[dev_eui] == 1
        assert [i.data for i in own.service.items_of(dev_eui)] == [payload(13)]
        assert own.service.getqueue_calls[dev_eui] >= 1
    finally:
        await own.stop()


async def test_an_item_sent_before_its_answer_arrived_is_found_by_its_txack(
    client: AsyncTestClient, pool: asyncpg.Pool, fake: FakeChirpStack, dispatcher: Dispatcher
) -> None:
    world = await downlink_world(pool, fake, confirmed=False)
    dev_eui = world["devices"][0]["devEui"]
    fake.service.enqueue_faults[dev_eui] = ["unavailable_after"]
    fake.service.getqueue_down.add(dev_eui)
    queued = await send(client, world, 11)
    await eventually(lambda: _count(fake, dev_eui), lambda n: n == 1, 20, "the item at ChirpStack")
    # The network transmits it (it leaves ChirpStack's queue) and reports the txack before
    # the dispatcher knows the item's id.
    sent = fake.service.transmit(dev_eui)
    await post_event(client, world, "txack", dev_eui, queue_item_id=sent.id, f_cnt_down=3)
    fake.service.getqueue_down.discard(dev_eui)
    body = await reaches(client, world, queued["queueItemId"], "sent")
    assert body["fCntDown"] == 3
    assert fake.service.enqueue_calls[dev_eui] == 1


async def test_expiry_before_sent(
    client: AsyncTestClient, pool: asyncpg.Pool, fake: FakeChirpStack, dispatcher: Dispatcher
) -> None:
    world = await downlink_world(pool, fake, devices=2)
    down, up = (d["devEui"] for d in world["devices"])
    # ChirpStack stays unavailable for the first device: retried until it expires.
    fake.service.enqueue_faults[down] = ["unavailable"] * 1000
    queued = await send(client, world, 1, expiresInSeconds=1)
    body = await reaches(client, world, queued["queueItemId"], "expired")
    assert body["sentAt"] is None and body["submittedAt"] is None
    fake.service.enqueue_faults[down].clear()
    # Submitted but never transmitted: expired as well.
    other = await send(client, world, 2, device=1, expiresInSeconds=1)
    await reaches(client, world, other["queueItemId"], "submitted", device=1)
    await reaches(client, world, other["queueItemId"], "expired", device=1)
    assert fake.service.items_of(down) == [] and len(fake.service.items_of(up)) == 1


async def test_multicast_sends_go_the_same_way(
    client: AsyncTestClient, pool: asyncpg.Pool, fake: FakeChirpStack, dispatcher: Dispatcher
) -> None:
    world = await downlink_world(pool, fake, devices=3)
    response = await client.post(
        f"/api/v1/multicast-groups/{world['group']['id']}/execute",
        json={"key": "set_interval", "data": {"minutes": 42}},
        headers=bearer(world["key"]),
    )
    assert response.status_code == 202, response.text
    per_device = response.json()["data"]["perDevice"]
    index = {d["id"]: n for n, d in enumerate(world["devices"])}
    for member in per_device:
        await reaches(client, world, member["queueItemId"], "submitted", index[member["deviceId"]])
    for device in world["devices"]:
        [sent] = fake.service.items_of(device["devEui"])
        assert sent.data == payload(42)


async def test_get_downlink_tenancy_and_unknown_ids(
    client: AsyncTestClient, pool: asyncpg.Pool, fake: FakeChirpStack
) -> None:
    world = await downlink_world(pool, fake, devices=2)
    other = await downlink_world(pool, fake)
    queued = await send(client, world, 1)
    base = f"/api/v1/devices/{world['devices'][0]['id']}/downlinks"
    for path, key in [
        (f"{base}/{queued['queueItemId']}", other["key"]),  # another tenant's key
        (f"{base}/{uuid.uuid4()}", world["key"]),  # unknown id
        (f"{base}/not-a-uuid", world["key"]),
        # the id of another device's item
        (
            f"/api/v1/devices/{world['devices'][1]['id']}/downlinks/{queued['queueItemId']}",
            world["key"],
        ),
    ]:
        response = await client.get(path, headers=bearer(key))
        assert response.status_code == 404, path
        assert response.json()["error"]["code"] == "not_found"
    body = await item(client, world, queued["queueItemId"])
    assert body["queueItemId"] == queued["queueItemId"] and body["fPort"] == 10


async def _count(fake: FakeChirpStack, dev_eui: str) -> int:
    return len(fake.service.items_of(dev_eui))


async def _getqueue_calls(fake: FakeChirpStack, dev_eui: str) -> int:
    return fake.service.getqueue_calls[dev_eui]


async def test_network_events_over_mqtt_move_downlinks_too(
    client: AsyncTestClient,
    pool: asyncpg.Pool,
    fake: FakeChirpStack,
    dispatcher: Dispatcher,
    migrated: str,
    tmp_path: Path,
) -> None:
    broker = Broker(tmp_path / "mosquitto")
    broker.start()
    w = World()
    p, sa = w.tenancy({}, plan={"apiWrite": True})
    profile = w.profile(p)
    w.downlink_template(profile, key="set_interval", fPort=10, confirmed=True)
    dev = w.device(sa, profile)
    w.integration(
        p,
        grpc={"url": fake.url, "apiToken": fake.token},
        mqtt={"url": broker.url, "clientId": f"dl-{uuid.uuid4().hex[:8]}"},
    )
    key = w.key(sa, scopes=["devices:read", "downlinks:write"])
    await load(pool, w)
    world = {"devices": [dev], "key": key}
    consumer = Process(["ingest", "mqtt"], migrated, tmp_path / "consumer.log")
    publisher = Publisher(broker)
    try:
        await consumer.wait_for_output("subscribed to")
        queued = await send(client, world, 21)
        await reaches(client, world, queued["queueItemId"], "submitted")
        [sent] = fake.service.items_of(dev["devEui"])
        txack = network_event("txack", dev["devEui"], queue_item_id=sent.id, f_cnt_down=5)
        publisher.publish(dev["devEui"], "txack", txack)
        await reaches(client, world, queued["queueItemId"], "sent")
        ack = network_event(
            "ack", dev["devEui"], queue_item_id=sent.id, acknowledged=True, f_cnt_down=5
        )
        publisher.publish(dev["devEui"], "ack", ack)
        body = await reaches(client, world, queued["queueItemId"], "acknowledged")
        assert body["fCntDown"] == 5 and body["sentAt"] is not None
    finally:
        publisher.close()
        consumer.stop()
        broker.stop()
