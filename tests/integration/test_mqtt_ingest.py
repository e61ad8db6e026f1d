"""Durable ingest over MQTT (integrations.md 2.1) against a real Mosquitto started by the
project's own command, with the consumer started as users start it."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from testkit.factories import World, load
from tests.support import chirpstack as cs
from tests.support.network import Broker, Process, Publisher, eventually, wait_published
from tests.support.servers import start_server

TEMPERATURES = """
SELECT d.dev_eui, r.value
  FROM readings_num r
  JOIN devices d ON d.num = r.device_num
  JOIN profile_fields f ON f.num = r.field_num
 WHERE d.id = ANY ($1::uuid[]) AND f.identifier = 'temperature'
"""


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    broker = Broker(tmp_path / "mosquitto")
    broker.start()
    yield broker
    broker.stop()


async def mqtt_world(pool: asyncpg.Pool, broker: Broker, devices: int = 3) -> dict[str, Any]:
    w = World()
    p, sa = w.tenancy({})
    profile = w.profile(p)
    devs = [w.device(sa, profile) for _ in range(devices)]
    warm = w.device(sa, profile)
    client_id = f"telemetry-test-{uuid.uuid4().hex[:8]}"
    token = w.integration(
        p,
        mqtt={"url": broker.url, "topic": "application/+/device/+/event/+", "clientId": client_id},
    )
    await load(pool, w)
    return {
        "devices": devs,
        "ids": [d["id"] for d in devs],
        "integration": token.id,
        "warm": warm,
    }


async def warm_up(publisher: Publisher, pool: asyncpg.Pool, world: dict[str, Any]) -> None:
    """Publishes to the world's spare device until one arrives: a consumer is subscribed
    (the broker keeps nothing for a session that does not exist yet)."""
    warm = world["warm"]

    async def arrived() -> int:
        publisher.publish(warm["devEui"], "up", cs.uplink(warm["devEui"], {"temperature": 1}))
        return len(await stored(pool, [warm["id"]]))

    await eventually(arrived, lambda n: n > 0, 60, "a subscribed consumer")


async def stored(pool: asyncpg.Pool, ids: list[str]) -> list[tuple[str, float]]:
    rows = await pool.fetch(TEMPERATURES, ids)
    return [(row["dev_eui"], row["value"]) for row in rows]


def publish_burst(
    publisher: Publisher, devices: list[dict[str, Any]], start: int, count: int
) -> tuple[list[Any], list[tuple[str, float]]]:
    """`count` uplinks with distinct values round-robin over the devices."""
    infos, expected = [], []
    for n in range(start, start + count):
        device = devices[n % len(devices)]
        body = cs.uplink(device["devEui"], {"temperature": n}, time=cs.at(seconds=n % 3000))
        infos.append(publisher.publish(device["devEui"], "up", body))
        expected.append((device["devEui"], float(n)))
    return infos, expected


async def lock_holders(pool: asyncpg.Pool, world: dict[str, Any]) -> int:
    """How many sessions hold the advisory lock of the world's MQTT integration."""
    holders: int = await pool.fetchval(
        """SELECT count(*) FROM pg_locks
            WHERE locktype = 'advisory' AND granted AND classid = 15015
              AND objid = hashtext($1)::oid""",
        f"mqtt:{world['integration']}",
    )
    return holders


async def until_stored(
    pool: asyncpg.Pool,
    world: dict[str, Any],
    done: Callable[[Any], bool],
    seconds: float,
    what: str,
) -> Any:
    """Until what the world's devices have stored satisfies `done`; gives what is stored."""
    return await eventually(lambda: stored(pool, world["ids"]), done, seconds, what)


async def until_all(
    pool: asyncpg.Pool, world: dict[str, Any], expected: list[Any], seconds: float, what: str
) -> None:
    """Until the world's devices have stored at least as many readings as `expected`."""
    await until_stored(pool, world, lambda r: len(r) >= len(expected), seconds, what)


async def first_uplink(
    pool: asyncpg.Pool, world: dict[str, Any], publisher: Publisher, what: str
) -> list[Any]:
    """One uplink published, taken by the broker and stored: what it is expected to store."""
    infos, expected = publish_burst(publisher, world["devices"], 0, 1)
    wait_published(infos)
    await until_stored(pool, world, lambda r: len(r) == 1, 30, what)
    return expected


def consumer(database_url: str, log: Path) -> Process:
    return Process(["ingest", "mqtt"], database_url, log)


@dataclass
class Session:
    """An MQTT world with a consumer subscribed to it and a publisher, once one uplink has
    been stored (`expected`). A test that replaces the consumer or the publisher puts the
    new one here, and the fixture stops whichever it holds at the end."""

    world: dict[str, Any]
    consumer: Process
    publisher: Publisher
    expected: list[tuple[str, float]] = field(default_factory=list)


@pytest.fixture
async def session(
    pool: asyncpg.Pool, migrated: str, broker: Broker, tmp_path: Path
) -> AsyncIterator[Session]:
    world = await mqtt_world(pool, broker)
    running = Session(world, consumer(migrated, tmp_path / "consumer.log"), Publisher(broker))
    try:
        await running.consumer.wait_for_output("subscribed to")
        running.expected = await first_uplink(pool, world, running.publisher, "the first uplink")
        yield running
    finally:
        running.publisher.close()
        running.consumer.stop()


async def test_kill_9_during_a_burst_loses_nothing_and_stores_once(
    pool: asyncpg.Pool, migrated: str, session: Session
) -> None:
    world, log = session.world, session.consumer.log
    infos, more = publish_burst(session.publisher, world["devices"], 1, 1500)
    expected = session.expected + more
    # Kill the consumer while the burst is being stored.
    at_kill = await until_stored(pool, world, lambda r: len(r) >= 100, 60, "storing to begin")
    session.consumer.kill()
    at_kill_after = await stored(pool, world["ids"])
    assert len(at_kill_after) < len(expected), "the burst was over before the kill"
    wait_published(infos)
    session.consumer = consumer(migrated, log)
    await until_all(pool, world, expected, 90, "every event after the restart")
    # A moment more lets a late duplicate show itself.
    await asyncio.sleep(1)
    session.consumer.stop()
    rows = await stored(pool, world["ids"])
    assert sorted(rows) == sorted(expected), log.read_text()[-2000:]
    assert len(at_kill) >= 100


async def test_broker_restarts_keep_the_session_and_its_queued_messages(
    pool: asyncpg.Pool, migrated: str, broker: Broker, session: Session
) -> None:
    world, expected = session.world, session.expected
    session.consumer.stop()
    # Published while no consumer runs: the broker keeps them for the session ...
    infos, more = publish_burst(session.publisher, world["devices"], 1, 300)
    wait_published(infos)
    expected += more
    session.publisher.close()
    # ... across its own restart (persistence on).
    broker.stop()
    broker.start()
    session.consumer = consumer(migrated, session.consumer.log)
    await until_all(pool, world, expected, 60, "the messages queued across the broker restart")
    # The broker restarts under a running consumer, which reconnects by itself.
    broker.stop()
    broker.start()
    session.publisher = Publisher(broker)
    infos, more = publish_burst(session.publisher, world["devices"], 301, 200)
    wait_published(infos)
    expected += more
    await until_all(pool, world, expected, 60, "the messages published after the second restart")
    assert sorted(await stored(pool, world["ids"])) == sorted(expected)


async def test_serve_runs_one_consumer_per_integration_across_workers(
    pool: asyncpg.Pool, migrated: str, broker: Broker
) -> None:
    world = await mqtt_world(pool, broker, devices=2)
    server = start_server(migrated, workers=2, env={"TELEMETRY_MQTT_INGEST": "1"})
    publisher = Publisher(broker)
    try:
        await warm_up(publisher, pool, world)
        infos, expected = publish_burst(publisher, world["devices"], 0, 50)
        # What the HTTP route refuses with 400 or 404 is acknowledged and dropped, without
        # holding up the messages behind it.
        infos.append(publisher.publish("0000000000000000", "up", cs.uplink("0000000000000000", {})))
        infos.append(publisher.publish(world["devices"][0]["devEui"], "up", "{not json"))
        more_infos, more = publish_burst(publisher, world["devices"], 50, 50)
        wait_published(infos + more_infos)
        expected += more
        await until_all(pool, world, expected, 60, "the uplinks consumed by serve")
        assert sorted(await stored(pool, world["ids"])) == sorted(expected)
        # Both workers run the loop; one holds the integration's lock, the other waits.
        assert await lock_holders(pool, world) == 1
    finally:
        publisher.close()
        server.process.terminate()
        server.process.wait(timeout=20)
