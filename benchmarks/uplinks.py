"""ChirpStack uplinks for the benchmarks that ingest (bench_ingest, bench_live, bench_network,
bench_peer, bench_webhooks, scaleout): one gateway per partner, an `up` event in ChirpStack
v4's JSON, and a run of them as wrk requests spread over the dataset's devices."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import msgspec

from benchmarks.common import Context, Request
from testkit.databases import connect

# Between consecutive uplinks of a run (and of one device: this times the devices).
UPLINK_SPACING = timedelta(microseconds=100)
_ENCODE = msgspec.json.Encoder().encode


async def partner_gateways(database_url: str) -> dict[str, str]:
    """One gateway EUI per partner, so the gateway path is part of the work."""
    connection = await connect(database_url)
    try:
        rows = await connection.fetch(
            "SELECT DISTINCT ON (partner_id) partner_id::text, gateway_eui FROM gateways"
            " ORDER BY partner_id, gateway_eui"
        )
    finally:
        await connection.close()
    return {r["partner_id"]: r["gateway_eui"] for r in rows}


def chirpstack_uplink(device: Any, index: int, run_id: str, at: datetime, gateway: str) -> bytes:
    """An `up` event in ChirpStack v4's JSON (protobuf JSON mapping, compact)."""
    return _ENCODE(
        {
            "deduplicationId": f"bench-{run_id}-{index}",
            "time": at.isoformat().replace("+00:00", "Z"),
            "deviceInfo": {
                "tenantId": "52f14cd4-c6f1-4fbd-8f87-4025e1d49242",
                "applicationId": "a2e2ef8d-0ca4-45ba-8f5a-1c3e0e3e0d7f",
                "deviceName": device.id[:8],
                "devEui": device.dev_eui,
            },
            "devAddr": "01020304",
            "dr": 5,
            "fCnt": index,
            "fPort": 1,
            "data": "AQIDBA==",
            "object": {
                "temperature": 18.0 + (index % 70) / 10,
                "humidity": 40.0 + index % 20,
                "battery": 90.0 - index % 10,
                "status": "ok" if index % 7 else "check",
            },
            "rxInfo": [
                {
                    "gatewayId": gateway,
                    "uplinkId": index,
                    "rssi": -70 - index % 40,
                    "snr": 9.5 - index % 15,
                    "context": "AAAAAA==",
                }
            ],
        }
    )


def uplink_requests(
    ctx: Context, run_id: str, count: int, gateways: dict[str, str], start: datetime
) -> list[Request]:
    devices = ctx.manifest.devices
    out: list[Request] = []
    for index in range(count):
        device = devices[index % len(devices)]
        token = ctx.manifest.tokens[device.partner_id]
        at = start + index * UPLINK_SPACING
        body = chirpstack_uplink(
            device, index, run_id, at, gateways.get(device.partner_id, "0" * 16)
        )
        out.append(
            Request(
                "POST",
                "/ingest/chirpstack?event=up",
                {"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
                body.decode(),
            )
        )
    return out
