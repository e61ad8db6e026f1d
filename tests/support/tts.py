"""The Things Stack's webhook messages as TTS posts them."""

from __future__ import annotations

import uuid
from typing import Any


def ids(dev_eui: str) -> dict[str, Any]:
    return {
        "device_id": "eui-" + dev_eui.lower(),
        "application_ids": {"application_id": "app1"},
        "dev_eui": dev_eui.upper(),
        "join_eui": "0000000000000000",
        "dev_addr": "260B1234",
    }


def correlation(as_up: str | None = None) -> list[str]:
    return [
        f"as:up:{as_up or uuid.uuid4().hex.upper()}",
        f"gs:conn:{uuid.uuid4().hex.upper()}",
        f"ns:uplink:{uuid.uuid4().hex.upper()}",
    ]


def event(dev_eui: str, *, as_up: str | None = None, **message: Any) -> dict[str, Any]:
    """A TTS application-up message of the device: its ids, correlation ids and `message`
    (`received_at` and one message type, as TTS's webhook posts them)."""
    return {"end_device_ids": ids(dev_eui), "correlation_ids": correlation(as_up), **message}


def uplink(
    dev_eui: str,
    decoded: dict[str, Any],
    *,
    as_up: str | None = None,
    ns_received: str | None = "2026-11-23T10:15:49.140041447Z",
    rx: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    message: dict[str, Any] = {
        "session_key_id": "AXBSH1Pk6Z0G166...",
        "f_port": 15,
        "f_cnt": 7577,
        "frm_payload": "AQI=",
        "decoded_payload": decoded,
        "rx_metadata": rx
        if rx is not None
        else [
            {
                "gateway_ids": {"gateway_id": "gtw1", "eui": "0016C001FF10A235"},
                "time": "2026-11-23T10:15:49.000Z",
                "timestamp": 2463457000,
                "rssi": -85,
                "channel_rssi": -85,
                "snr": 7.5,
                "uplink_token": "ChIKEAoEZ3R3MRII...",
                "channel_index": 2,
            }
        ],
        "settings": {
            "data_rate": {"lora": {"bandwidth": 125000, "spreading_factor": 7}},
            "frequency": "868500000",
        },
        "consumed_airtime": "0.056576s",
    }
    if ns_received is not None:
        message["received_at"] = ns_received
    return event(
        dev_eui,
        as_up=as_up,
        received_at="2026-11-23T10:15:49.416131735Z",
        uplink_message=message,
    )
