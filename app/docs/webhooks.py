"""The webhook events in the OpenAPI document: its 3.1 `webhooks` object.

Every event type is one webhook of the document, an operation the service calls on the
receiver: a POST whose body is the event (its schema is the JSON Schema the dispatcher's
events are tested against, loaded from app/webhooks/schemas/ when the document is built, so
that the document cannot drift from them), the three Standard Webhooks headers that sign
it, and an example. Generated clients type the events from here.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

SCHEMAS = Path(__file__).resolve().parent.parent / "webhooks" / "schemas"

# Fixed ids of the examples, in the demo world's style (any UUIDs would do).
PARTNER_ID = "0b5d8b2e-5d2c-5f39-9c43-3f1b2a6b7c10"
SUB_ACCOUNT_ID = "6f2a3c1d-1e4b-5a8f-8d2c-9b7e6a5f4d30"
DEVICE_ID = "2c9e1f4a-7b3d-5e6f-a1b2-c3d4e5f60718"
QUEUE_ITEM_ID = "9a8b7c6d-5e4f-5a3b-8c2d-1e0f9a8b7c6d"
DEV_EUI = "70b3d57ed0000001"
TIME = "2026-11-23T08:15:00Z"
BATTERY = {"state": "pct", "value": 87, "at": TIME, "source": "field"}

# The envelope's fields (integrations.md 1.2); the schema files leave them undescribed.
ENVELOPE_DOCS = {
    "id": "The event's id, `msg_` and 26 characters; also the `webhook-id` header.",
    "type": "The event type.",
    "timestamp": "When it happened (RFC 3339 UTC): the message's time for uplink, status, "
    "join and location events, else the time of the change.",
    "partnerId": "The partner the device belongs to.",
    "subAccountId": "The device's sub-account; null for a partner's own device.",
    "deviceId": "The device; null for events about no device (`webhook.test`).",
    "sequence": "Per device, +1 for each event of that device, from 1: gaps and order show "
    "here (no order is promised across events); null without a device.",
    "data": "What the event type carries (integrations.md 1.2).",
}

SIGNATURE_HEADERS: list[dict[str, Any]] = [
    {
        "name": "webhook-id",
        "in": "header",
        "required": True,
        "description": "The event's id (`id` of the body): the same on every attempt and "
        "redelivery, so a receiver can drop one it has already handled.",
        "schema": {"type": "string", "pattern": "^msg_[0-9a-z]{26}$"},
    },
    {
        "name": "webhook-timestamp",
        "in": "header",
        "required": True,
        "description": "Unix seconds of this attempt; refuse one more than five minutes "
        "from your clock.",
        "schema": {"type": "string", "pattern": "^[0-9]+$"},
    },
    {
        "name": "webhook-signature",
        "in": "header",
        "required": True,
        "description": "`v1,` + base64 of HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}."
        "{body}` with the endpoint's secret (the bytes after `whsec_`, base64-decoded); "
        "during a secret rotation two signatures separated by a space (Standard Webhooks).",
        "schema": {"type": "string", "pattern": "^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$"},
    },
]


def _downlink(status: str) -> dict[str, Any]:
    return {"devEui": DEV_EUI, "queueItemId": QUEUE_ITEM_ID, "status": status, "fPort": 10}


def _data(event_type: str) -> dict[str, Any]:
    """The `data` of an example event of each type (integrations.md 1.2)."""
    presence = {"devEui": DEV_EUI, "lastUplinkAt": "2026-11-23T07:40:00Z"}
    alert = {
        "devEui": DEV_EUI,
        "field": "temperature",
        "op": ">",
        "threshold": 28,
        "level": "warning",
        "time": TIME,
    }
    examples: dict[str, dict[str, Any]] = {
        "device.uplink": {
            "devEui": DEV_EUI,
            "time": TIME,
            "values": {"temperature": 21.4, "humidity": 48},
            "signalQuality": 82,
            "battery": BATTERY,
            "siteId": None,
            "fPort": 1,
            "fCnt": 4711,
        },
        "device.status": {"devEui": DEV_EUI, "battery": BATTERY},
        "device.joined": {"devEui": DEV_EUI, "time": TIME},
        "device.location": {
            "devEui": DEV_EUI,
            "location": {"latitude": 53.5461, "longitude": 9.9661, "altitude": None},
            "time": TIME,
        },
        "device.alert.raised": {**alert, "value": 29.1},
        "device.alert.cleared": {**alert, "value": 26.8},
        "device.offline": {**presence, "offlineThresholdMinutes": 30},
        "device.online": {**presence, "offlineThresholdMinutes": 30},
        "downlink.queued": _downlink("queued"),
        "downlink.submitted": _downlink("submitted"),
        "downlink.sent": {**_downlink("sent"), "fCntDown": 12},
        "downlink.acknowledged": {**_downlink("acknowledged"), "fCntDown": 12},
        "downlink.nacked": {**_downlink("nacked"), "fCntDown": 12},
        "downlink.failed": {**_downlink("failed"), "error": "device queue full"},
        "downlink.expired": _downlink("expired"),
        "webhook.test": {},
    }
    return examples[event_type]


def example(event_type: str) -> dict[str, Any]:
    """A whole example event of the type, as the dispatcher would send it."""
    about_device = event_type != "webhook.test"
    return {
        "id": "msg_01jf3m5q8r2v6x9z4b7c1d0e5g",
        "type": event_type,
        "timestamp": TIME,
        "partnerId": PARTNER_ID,
        "subAccountId": SUB_ACCOUNT_ID,
        "deviceId": DEVICE_ID if about_device else None,
        "sequence": 42 if about_device else None,
        "data": _data(event_type),
    }


def schema_name(event_type: str) -> str:
    """`device.alert.raised` -> `DeviceAlertRaisedEvent` (its name in components)."""
    return "".join(part.capitalize() for part in event_type.split(".")) + "Event"


def event_schemas() -> dict[str, dict[str, Any]]:
    """Each event type's JSON Schema, by type, as app/webhooks/schemas/ holds it."""
    schemas = {}
    for path in sorted(SCHEMAS.glob("*.json")):
        schemas[path.stem] = json.loads(path.read_text())
    return schemas


def add_webhooks(document: dict[str, Any]) -> None:
    """Adds `webhooks` and the events' schemas (components) to the document, in place."""
    components = document["components"]["schemas"]
    webhooks: dict[str, Any] = {}
    for event_type, loaded in event_schemas().items():
        schema = copy.deepcopy(loaded)
        # The schema's own dialect and id are those of the document here: an `$id` would
        # change the base that references inside the document resolve against.
        schema.pop("$schema", None)
        source = schema.pop("$id", None)
        name = schema_name(event_type)
        schema["title"] = name
        if source:
            schema["description"] = f"{schema.get('description', '')} Source: `{source}`."
        for field, prop in schema.get("properties", {}).items():
            if field in ENVELOPE_DOCS and "description" not in prop:
                prop["description"] = ENVELOPE_DOCS[field]
        components[name] = schema
        webhooks[event_type] = {
            "post": {
                "operationId": "webhook" + name,
                "summary": f"The `{event_type}` event",
                "description": loaded.get("description", ""),
                "tags": ["Webhooks"],
                "security": [],
                "parameters": copy.deepcopy(SIGNATURE_HEADERS),
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": {"$ref": f"#/components/schemas/{name}"},
                            "example": example(event_type),
                        }
                    },
                },
                "responses": {
                    "2XX": {"description": "Delivered: any 2xx within the timeout (15 s)."},
                    "default": {
                        "description": "Not delivered: retried on the schedule of "
                        "integrations.md 1.3 (a 3xx too); `429` or `503` with `Retry-After` "
                        "postpone the next attempt; `410 Gone` disables the endpoint."
                    },
                },
            }
        }
    document["webhooks"] = webhooks
    document.setdefault("tags", []).append(
        {
            "name": "Webhooks",
            "description": "Events the service POSTs to your endpoints, signed by Standard "
            "Webhooks (integrations.md section 1).",
        }
    )
