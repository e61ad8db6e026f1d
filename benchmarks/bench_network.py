"""Network servers both ways: uplinks/s through MQTT, downlinks/s dispatched to ChirpStack.

MQTT ingest (integrations.md 2.1), next to `bench_ingest`'s HTTP rows in the same run: a
local Mosquitto (`app.ops.broker`, persistence on) and `telemetry ingest mqtt` (one
consumer process per the contract: one consumer per integration) on the dataset. One MQTT
integration per partner of the dataset subscribes to its own application's topic; the
benchmark publishes N distinct ChirpStack `up` events (the same JSON as bench_ingest's)
with QoS 1 as fast as paho takes them, round-robin over every device. The figure is
published -> committed: N / (time from the first publish until all N are in
`ingest_dedup`). The consumer acknowledges each message right after its batch commits;
that every message was acknowledged is checked on the broker's own count of stored
messages (`$SYS/broker/store/messages/count`, published every second, so the ack check
has a one-second resolution; the count includes a few dozen retained $SYS messages, so
"all acknowledged" means back within 100 of the level before the burst). Per-message
latency: publish time -> `ingest_dedup.received_at` (the start of the batch's
transaction, same clock); under a burst it is mostly time spent queued.

Downlinks (integrations.md 3): a fake of ChirpStack's gRPC DeviceService with the real
stubs (testkit/fake_chirpstack.py) answering each Enqueue after 1 ms, and `telemetry serve`
(its dispatcher). Throughput: N items queued in one transaction over every device, until
all are `submitted` (one call in flight per device, in order per device, so the dataset's
device count bounds the concurrency). Latency: M downlinks POSTed through the API at a
modest rate, p50/p99 of `submitted_at - created_at` (created_at is the POST's transaction,
committed just before its 202).

Every row this module adds (integrations, a downlink template per profile, queue items) is
deleted afterwards; the devices' downlink rate is raised for the run and put back.

Run alone (after `telemetry bench generate --scale S`):
`python -m benchmarks.bench_network [--quick]`.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import msgspec
import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from benchmarks.common import ROOT, Context, Measure, measure, module_main
from benchmarks.uplinks import chirpstack_uplink, partner_gateways
from testkit.databases import connect
from testkit.processes import free_port

WAIT_S = 180.0
SYS_SLACK = 100


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _telemetry(
    args: list[str], database_url: str, log: Path, **env: str
) -> subprocess.Popen[bytes]:
    handle = log.open("ab")
    return subprocess.Popen(
        [str(Path(sys.executable).parent / "telemetry"), *args],
        cwd=ROOT,
        env={**os.environ, "DATABASE_URL": database_url, **env},
        stdout=handle,
        stderr=subprocess.STDOUT,
    )


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


# ------------------------------------------------------------------------------- MQTT


class StoreWatch:
    """The broker's count of stored messages, from $SYS (every second)."""

    def __init__(self, port: int) -> None:
        self.count: int | None = None
        self.updated = 0.0
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        self.client.on_message = self._on_message
        self.client.on_connect = lambda c, *_: c.subscribe("$SYS/broker/store/messages/count")
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def _on_message(self, _c: Any, _u: Any, message: mqtt.MQTTMessage) -> None:
        self.count = int(message.payload)
        self.updated = time.monotonic()

    def wait_at_most(self, limit: int, seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.count is not None and self.count <= limit:
                return True
            time.sleep(0.1)
        return False

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


async def _integration_per_partner(
    connection: Any, columns: str, values: str, run_id: str, *args: Any
) -> list[str]:
    """One ChirpStack integration per partner that has devices, its token hash from `run_id`
    and the partner, with `columns` set to `values` ($2 on are `args`); their ids."""
    rows = await connection.fetch(
        f"""INSERT INTO integrations (id, partner_id, kind, token_hash, {columns})
            SELECT gen_random_uuid(), p.id, 'chirpstack',
                   sha256(convert_to('mqtt-' || $1 || p.id::text, 'UTF8')), {values}
              FROM partners p
             WHERE EXISTS (SELECT 1 FROM devices d WHERE d.partner_id = p.id)
            RETURNING id::text""",
        run_id,
        *args,
    )
    return [r["id"] for r in rows]


async def _add_mqtt_integrations(database_url: str, broker_url: str, run_id: str) -> list[str]:
    connection = await connect(database_url)
    try:
        return await _integration_per_partner(
            connection,
            "mqtt_url, mqtt_topic, mqtt_client_id",
            """$2, 'application/' || p.id || '/device/+/event/+',
               'bench-' || $1 || '-' || left(p.id::text, 8)""",
            run_id,
            broker_url,
        )
    finally:
        await connection.close()


async def _delete_integrations(database_url: str, ids: list[str]) -> None:
    connection = await connect(database_url)
    try:
        await connection.execute("DELETE FROM integrations WHERE id = ANY ($1::uuid[])", ids)
    finally:
        await connection.close()


async def _received(database_url: str, prefix: str) -> list[tuple[str, datetime]]:
    connection = await connect(database_url)
    try:
        rows = await connection.fetch(
            "SELECT deduplication_id, received_at FROM ingest_dedup WHERE deduplication_id LIKE $1",
            prefix + "%",
        )
    finally:
        await connection.close()
    return [(r["deduplication_id"], r["received_at"]) for r in rows]


async def _count(database_url: str, prefix: str) -> int:
    connection = await connect(database_url)
    try:
        count: int = await connection.fetchval(
            "SELECT count(*) FROM ingest_dedup WHERE deduplication_id LIKE $1", prefix + "%"
        )
    finally:
        await connection.close()
    return count


def _wait_count(database_url: str, prefix: str, wanted: int, seconds: float) -> int:
    deadline = time.monotonic() + seconds
    count = 0
    while time.monotonic() < deadline:
        count = asyncio.run(_count(database_url, prefix))
        if count >= wanted:
            return count
        time.sleep(0.05)
    return count


def _topic(device: Any) -> str:
    return f"application/{device.partner_id}/device/{device.dev_eui}/event/up"


def mqtt_ingest(ctx: Context) -> list[Measure]:
    from app.core.config import settings
    from app.ops import broker

    own = msgspec.structs.replace(
        settings(), mqtt_dir=str(ctx.work_dir / "mosquitto"), mqtt_port=free_port()
    )
    run_id = secrets.token_hex(4)
    count = 2000 if ctx.quick else int(max(1500 * ctx.duration, 10000))
    devices = ctx.manifest.devices
    gateways = asyncio.run(partner_gateways(ctx.database_url))
    start = datetime.now(UTC) - timedelta(hours=1)
    bodies = [
        (
            _topic(devices[i % len(devices)]),
            chirpstack_uplink(
                devices[i % len(devices)],
                i,
                run_id,
                start + timedelta(milliseconds=i),
                gateways.get(devices[i % len(devices)].partner_id, "0" * 16),
            ),
        )
        for i in range(count)
    ]
    broker.start(own)
    integrations: list[str] = []
    consumer = None
    publisher = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    publisher.max_inflight_messages_set(1000)
    publisher.max_queued_messages_set(0)
    watch = None
    try:
        integrations = asyncio.run(
            _add_mqtt_integrations(ctx.database_url, broker.url(own), run_id)
        )
        consumer = _telemetry(["ingest", "mqtt"], ctx.database_url, ctx.work_dir / "mqtt.log")
        publisher.connect("127.0.0.1", broker.port(own))
        publisher.loop_start()
        watch = StoreWatch(broker.port(own))
        # Warm-up: until a message is stored, every consumer is subscribed.
        warm = f"warm-{run_id}"
        deadline = time.monotonic() + 60
        while asyncio.run(_count(ctx.database_url, f"up:{warm}")) == 0:
            if time.monotonic() > deadline:
                raise RuntimeError("the MQTT consumer did not start")
            for device in {d.partner_id: d for d in devices}.values():
                body = chirpstack_uplink(device, 0, run_id, start - timedelta(minutes=1), "0" * 16)
                body = body.replace(f"bench-{run_id}-0".encode(), f"{warm}-{device.id}".encode())
                publisher.publish(_topic(device), body, qos=1)
            time.sleep(0.5)
        # The store also holds the retained $SYS messages (a few dozen, slowly growing):
        # the burst counts as acknowledged once the count is back near this level.
        time.sleep(2)
        baseline = (watch.count or 0) + SYS_SLACK

        published: list[float] = []
        infos = []
        began = time.time()
        for topic, body in bodies:
            published.append(time.time())
            infos.append(publisher.publish(topic, body, qos=1))
        for info in infos:
            info.wait_for_publish(WAIT_S)
        publish_s = time.time() - began
        committed = _wait_count(ctx.database_url, f"up:bench-{run_id}-", count, WAIT_S)
        elapsed = time.time() - began
        acked = watch.wait_at_most(baseline, 10)
        ack_s = time.time() - began
        received = asyncio.run(_received(ctx.database_url, f"up:bench-{run_id}-"))
        stored_after = watch.count
    finally:
        if watch is not None:
            watch.close()
        publisher.disconnect()
        publisher.loop_stop()
        if consumer is not None:
            _stop(consumer)
        asyncio.run(_delete_integrations(ctx.database_url, integrations))
        broker.stop(own)
    latencies = [
        (at.timestamp() - published[int(key.rsplit("-", 1)[1])]) * 1000 for key, at in received
    ]
    if committed != count or not acked:
        raise RuntimeError(
            f"MQTT ingest lost messages: {count} published, {committed} committed, "
            f"all acknowledged: {acked}"
        )
    return [
        measure(
            "MQTT ingest up (4 fields), published -> committed, 1 consumer",
            count / elapsed,
            "uplinks/s",
            group="ingest",
            details={
                "published": count,
                "committed": committed,
                "acked_all": acked,
                "acked_within_s": round(ack_s, 1),
                "broker_stored_after": stored_after,
                "publish_s": round(publish_s, 3),
                "elapsed_s": round(elapsed, 3),
                "p50_ms": _percentile(latencies, 0.5),
                "p99_ms": _percentile(latencies, 0.99),
                "integrations": len(integrations),
                "route": "mqtt up",
            },
        )
    ]


# -------------------------------------------------------------------------- downlinks


async def _downlink_setup(database_url: str, fake_url: str, api_token: str, run_id: str) -> Any:
    connection = await connect(database_url)
    try:
        async with connection.transaction():
            templates = await connection.fetch(
                """INSERT INTO downlink_templates (id, profile_id, key, name, f_port, confirmed,
                                                   layout, sample_data)
                   SELECT gen_random_uuid(), p.id, 'bench_' || $1, 'Bench ' || $1, 10, false,
                          '[{"field": "minutes", "type": "uint16be"}]', '{"minutes": 15}'
                     FROM device_profiles p
                   RETURNING id::text, profile_id::text""",
                run_id,
            )
            integrations = await _integration_per_partner(
                connection, "grpc_url, grpc_api_token", "$2, $3", run_id, fake_url, api_token
            )
            rates = await connection.fetch(
                "SELECT num, downlink_rate_per_hour FROM devices WHERE status = 'assigned'"
            )
            await connection.execute(
                "UPDATE devices SET downlink_rate_per_hour = 1000000 WHERE status = 'assigned'"
            )
    finally:
        await connection.close()
    return (
        {r["profile_id"]: r["id"] for r in templates},
        integrations,
        [(r["num"], r["downlink_rate_per_hour"]) for r in rates],
    )


async def _downlink_cleanup(
    database_url: str, templates: list[str], integrations: list[str], rates: list[Any]
) -> None:
    connection = await connect(database_url)
    try:
        async with connection.transaction():
            await connection.execute(
                "DELETE FROM downlink_queue WHERE template_id = ANY ($1::uuid[])", templates
            )
            await connection.execute(
                "DELETE FROM downlink_early_events WHERE device_num = ANY ($1::int[])",
                [num for num, _ in rates],
            )
            await connection.execute(
                "DELETE FROM downlink_templates WHERE id = ANY ($1::uuid[])", templates
            )
            await connection.execute(
                "DELETE FROM integrations WHERE id = ANY ($1::uuid[])", integrations
            )
            await connection.executemany(
                "UPDATE devices SET downlink_rate_per_hour = $2 WHERE num = $1", rates
            )
    finally:
        await connection.close()


async def _submitted(database_url: str, ids: list[Any]) -> list[Any]:
    connection = await connect(database_url)
    try:
        return list(
            await connection.fetch(
                """SELECT created_at, submitted_at FROM downlink_queue
                    WHERE id = ANY ($1::uuid[]) AND status = 'submitted'""",
                ids,
            )
        )
    finally:
        await connection.close()


async def _downlinks(ctx: Context) -> list[Measure]:
    sys.path.insert(0, str(ROOT))
    from testkit.fake_chirpstack import FakeChirpStack

    fake = FakeChirpStack()
    fake.service.latency_s = 0.001
    await fake.start()
    run_id = secrets.token_hex(4)
    templates, integrations, rates = await _downlink_setup(
        ctx.database_url, fake.url, fake.token, run_id
    )
    devices = ctx.manifest.devices
    count = 500 if ctx.quick else 3000
    posts = 100 if ctx.quick else 400
    try:
        base_url = await asyncio.to_thread(ctx.server)  # its dispatcher sends them
        # Throughput: a backlog queued in one transaction.
        connection = await connect(ctx.database_url)
        try:
            began = time.time()
            rows = await connection.fetch(
                """INSERT INTO downlink_queue (device_num, template_id, f_port, payload,
                                               confirmed)
                   SELECT d.num, t.template_id::uuid, 10, '\\x000f'::bytea, false
                     FROM unnest($1::int[], $2::text[]) AS t (device_num, template_id)
                     JOIN devices d ON d.num = t.device_num
                   RETURNING id""",
                [devices[i % len(devices)].num for i in range(count)],
                [templates[devices[i % len(devices)].profile_id] for i in range(count)],
            )
        finally:
            await connection.close()
        backlog = [r["id"] for r in rows]
        deadline = time.monotonic() + WAIT_S
        while len(await _submitted(ctx.database_url, backlog)) < count:
            if time.monotonic() > deadline:
                raise RuntimeError("the backlog of downlinks was not dispatched in time")
            await asyncio.sleep(0.05)
        dispatch_s = time.time() - began
        enqueued = len(fake.service.enqueued)

        # Latency: POSTs through the API, 8 at a time.
        keys = {k.partner_id: k.secret for k in ctx.manifest.keys if k.sub_account_id is None}
        ids: list[str] = []
        async with httpx.AsyncClient(base_url=base_url, timeout=10) as client:
            gate = asyncio.Semaphore(8)

            async def post(index: int) -> None:
                device = devices[index % len(devices)]
                async with gate:
                    response = await client.post(
                        f"/api/v1/devices/{device.id}/downlinks",
                        json={"key": f"bench_{run_id}", "data": {"minutes": index % 60000}},
                        headers={"Authorization": f"Bearer {keys[device.partner_id]}"},
                    )
                if response.status_code != 202:
                    raise RuntimeError(f"POST downlink: {response.status_code} {response.text}")
                ids.append(response.json()["data"]["queueItemId"])

            await asyncio.gather(*(post(i) for i in range(posts)))
        deadline = time.monotonic() + WAIT_S
        while len(done := await _submitted(ctx.database_url, ids)) < posts:
            if time.monotonic() > deadline:
                raise RuntimeError("the POSTed downlinks were not dispatched in time")
            await asyncio.sleep(0.05)
        latencies = [(r["submitted_at"] - r["created_at"]).total_seconds() * 1000 for r in done]
    finally:
        await _downlink_cleanup(ctx.database_url, list(templates.values()), integrations, rates)
        await fake.stop()
    if enqueued != count or len(fake.service.enqueued) != count + posts:
        raise RuntimeError(f"{count + posts} downlinks, {len(fake.service.enqueued)} enqueued")
    return [
        measure(
            "downlinks dispatched to ChirpStack (fake, 1 ms per Enqueue)",
            count / dispatch_s,
            "downlinks/s",
            group="downlinks",
            details={
                "items": count,
                "devices": len(devices),
                "seconds": round(dispatch_s, 3),
                "enqueued_once": enqueued == count,
            },
        ),
        measure(
            "downlink POST 202 -> submitted, p50",
            statistics.median(latencies),
            "ms",
            group="downlinks",
            higher_is_better=False,
            details={
                "p50_ms": _percentile(latencies, 0.5),
                "p99_ms": _percentile(latencies, 0.99),
                "max_ms": max(latencies),
                "posts": posts,
                "concurrency": 8,
            },
        ),
    ]


def run(ctx: Context) -> list[Measure]:
    from testkit.databases import migrate_database

    asyncio.run(migrate_database(ctx.database_url))
    out = mqtt_ingest(ctx)
    out += asyncio.run(_downlinks(ctx))
    return out


if __name__ == "__main__":
    raise SystemExit(module_main(run))
