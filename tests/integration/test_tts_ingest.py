"""POST /ingest/tts: The Things Stack's webhook JSON (integrations.md 2.2), built after its
documented data formats (uplink, join-accept and location-solved messages; empty fields
left out, nanosecond timestamps)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from litestar.testing import AsyncTestClient

from app.world.errors import WorldError
from testkit.factories import World, load
from testkit.processes import free_port
from tests.support.chirpstack import latest, readings
from tests.support.helpers import bearer, scrape_metrics
from tests.support.servers import start_server
from tests.support.tts import event, uplink

INGEST = "/ingest/tts"


async def tts_world(pool: asyncpg.Pool) -> dict[str, Any]:
    w = World()
    p, sa = w.tenancy({})
    profile = w.profile(p, fields=[w.field("temperature"), w.field("humidity")])
    dev = w.device(sa, profile)
    inventory = w.device(p, profile, status="inventory")
    gateway = w.gateway(sa)
    tts = w.integration(p, kind="tts")
    chirpstack = w.integration(p)
    key = w.key(sa, scopes=["devices:read", "telemetry:read"])
    await load(pool, w)
    return {
        "device": dev,
        "inventory": inventory,
        "gateway": gateway,
        "tts": tts,
        "chirpstack": chirpstack,
        "key": key,
    }


async def post(client: AsyncTestClient, token: str, body: Any) -> int:
    response = await client.post(
        INGEST,
        **({"json": body} if not isinstance(body, str) else {"content": body}),
        headers=bearer(token),
    )
    if response.status_code != 204:
        assert response.json()["error"]["code"], response.text
    return response.status_code


async def test_an_uplink_is_stored_once_per_as_up_correlation_id(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    t = await tts_world(pool)
    dev = t["device"]
    rx = [
        {
            "gateway_ids": {"gateway_id": "gtw1", "eui": t["gateway"]["gatewayEui"].upper()},
            "rssi": -85,
            "channel_rssi": -85,
            "snr": 7.5,
        }
    ]
    body = uplink(
        dev["devEui"], {"temperature": 21.5, "humidity": 40, "other": 1}, as_up="A1", rx=rx
    )
    assert await post(client, t["tts"], body) == 204
    # The network retries with the same as:up: id (and other correlation ids): stored once.
    again = uplink(dev["devEui"], {"temperature": 99}, as_up="A1")
    assert await post(client, t["tts"], again) == 204
    data = await latest(client, t["key"], dev)
    # The reading time is the network server's received_at (uplink_message.received_at).
    assert data["time"] == "2026-11-23T10:15:49.140041Z"
    assert data["values"] == {"temperature": 21.5, "humidity": 40}
    # Signal quality from rx_metadata (D15): rssi -85, snr 7.5 -> round(100*(0.5+0.9167)/2)
    assert data["signalQuality"] == 71
    stored = [r for r in await readings(pool, dev) if r[0] == "temperature"]
    assert len(stored) == 1
    # The receiving gateway (gateway_ids.eui) of the same partner counts as seen.
    seen = await pool.fetchval(
        "SELECT last_seen_at FROM gateways WHERE id = $1", t["gateway"]["id"]
    )
    assert seen is not None and seen.isoformat() == "2026-11-23T10:15:49.140041+00:00"


async def test_omitted_fields_take_their_defaults(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    t = await tts_world(pool)
    dev = t["device"]
    # No uplink_message.received_at (falls back to the top-level one), a reception
    # without snr (0 dB) and rssi only as channel_rssi.
    body = uplink(
        dev["devEui"],
        {"temperature": 3},
        ns_received=None,
        rx=[{"gateway_ids": {"gateway_id": "gtw2"}, "channel_rssi": -120}],
    )
    del body["uplink_message"]["f_port"]
    assert await post(client, t["tts"], body) == 204
    data = await latest(client, t["key"], dev)
    assert data["time"] == "2026-11-23T10:15:49.416132Z"  # nanoseconds rounded
    assert data["signalQuality"] == round(100 * (0 + 20 / 30) / 2)


async def test_join_accept_and_location_solved(client: AsyncTestClient, pool: asyncpg.Pool) -> None:
    t = await tts_world(pool)
    dev = t["device"]
    join = event(
        dev["devEui"],
        received_at="2026-11-23T10:00:00.5Z",
        join_accept={
            "session_key_id": "AXBSH1Pk6Z0G166...",
            "received_at": "2026-11-23T10:00:00.1Z",
        },
    )
    assert await post(client, t["tts"], join) == 204
    solved = {"latitude": 52.37, "longitude": 4.88, "altitude": 2, "accuracy": 14}
    location = event(
        dev["devEui"],
        received_at="2026-11-23T10:05:00Z",
        location_solved={
            "service": "lora-cloud-device-management-v1-wifi",
            "location": {**solved, "source": "SOURCE_WIFI_RSSI_GEOLOCATION"},
        },
    )
    assert await post(client, t["tts"], location) == 204
    state = await pool.fetchrow(
        """SELECT s.last_seen_at, s.reported_location FROM device_state s
             JOIN devices d ON d.num = s.device_num WHERE d.id = $1""",
        dev["id"],
    )
    assert state["reported_location"] == {"latitude": 52.37, "longitude": 4.88, "altitude": 2}
    assert state["last_seen_at"].isoformat() == "2026-11-23T10:05:00+00:00"
    # Other message types (downlink_ack, service_data, ...) are accepted and ignored.
    ack = event(dev["devEui"], downlink_ack={"f_port": 1, "f_cnt": 2})
    assert await post(client, t["tts"], ack) == 204


async def test_answers_and_token_kinds(client: AsyncTestClient, pool: asyncpg.Pool) -> None:
    t = await tts_world(pool)
    dev = t["device"]
    good = uplink(dev["devEui"], {"temperature": 1})
    assert await post(client, t["chirpstack"], good) == 401  # a ChirpStack token here
    assert await post(client, "not-a-token", good) == 401
    response = await client.post(INGEST, json=good)
    assert response.status_code == 401 and response.json()["error"]["code"] == "unauthorized"
    # ... and a tts token on the ChirpStack route.
    response = await client.post(
        "/ingest/chirpstack?event=up",
        content=b"{}",
        headers=bearer(t["tts"]),
    )
    assert response.status_code == 401
    assert await post(client, t["tts"], "{not json") == 400
    assert await post(client, t["tts"], {"uplink_message": {}}) == 400  # no end_device_ids
    assert await post(client, t["tts"], uplink("ffffffffffffffff", {})) == 404
    assert await post(client, t["tts"], uplink(t["inventory"]["devEui"], {})) == 404
    assert await post(client, t["tts"], good) == 204


async def test_world_file_refuses_network_settings_on_a_tts_integration(
    pool: asyncpg.Pool,
) -> None:
    w = World()
    p = w.partner()
    w.integration(p, kind="tts", grpc={"url": "127.0.0.1:8080", "apiToken": "t"})
    with pytest.raises(WorldError, match=r"partners\[0\]\.integrations\[0\]\.grpc"):
        await load(pool, w)
    w = World()
    p = w.partner()
    w.integration(p, mqtt={"url": "http://broker", "clientId": "c"})
    with pytest.raises(WorldError, match=r"partners\[0\]\.integrations\[0\]\.mqtt\.url"):
        await load(pool, w)


async def test_tts_messages_are_counted_in_the_ingest_metric(
    migrated: str, pool: asyncpg.Pool, tmp_path: Path
) -> None:
    """`telemetry_ingest_events_total` counts every network server's messages: The Things
    Stack's went uncounted while its route had a receive flow of its own."""
    t = await tts_world(pool)
    dev = t["device"]
    metrics_port = free_port()
    env = {"METRICS_PORT": str(metrics_port), "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    server = start_server(migrated, workers=1, env=env)
    try:
        async with server.client() as http:
            messages = [
                uplink(dev["devEui"], {"temperature": 20}, as_up="M1"),
                uplink(dev["devEui"], {"temperature": 20}, as_up="M1"),  # a retry: a duplicate
                uplink(dev["devEui"], {"temperature": 21}, as_up="M2"),
                event(dev["devEui"], received_at="2026-11-23T10:00:00Z", join_accept={}),
                event(dev["devEui"], downlink_ack={"f_port": 1, "f_cnt": 2}),  # ignored
            ]
            for message in messages:
                response = await http.post(INGEST, json=message, headers=bearer(t["tts"]))
                assert response.status_code == 204, response.text
        expected = {
            'telemetry_ingest_events_total{event="up",outcome="stored"}': 2.0,
            'telemetry_ingest_events_total{event="up",outcome="duplicate"}': 1.0,
            'telemetry_ingest_events_total{event="join",outcome="stored"}': 1.0,
            'telemetry_ingest_events_total{event="other",outcome="ignored"}': 1.0,
        }
        url = f"http://127.0.0.1:{metrics_port}/metrics"
        # The worker adds its counts to the shared metrics once a second.
        deadline = time.monotonic() + 10
        while True:
            samples = await scrape_metrics(url)
            counted = {name: samples.get(name) for name in expected}
            if counted == expected or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.2)
        assert counted == expected
    finally:
        server.stop()
