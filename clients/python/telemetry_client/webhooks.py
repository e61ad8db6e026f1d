"""Webhook receivers: the signature checked (Standard Webhooks) and the event typed.

    event = verify_webhook(secret, request.headers, body)   # raises WebhookVerificationError

The event is the generated model of its type (`DeviceUplinkEvent`, ...: the document's
`webhooks` schemas, generated with the rest), or a dict for a type this client predates.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

__all__ = ["WebhookVerificationError", "event_model", "verify_webhook"]


def event_model(event_type: str) -> Any | None:
    """The generated model class of an event type (`device.alert.raised` ->
    `DeviceAlertRaisedEvent`), or None when the generated models have none."""
    name = "".join(part.capitalize() for part in event_type.split(".")) + "Event"
    models = importlib.import_module("telemetry_client.generated.models")
    return getattr(models, name, None)


def verify_webhook(secret: str, headers: Mapping[str, str], body: bytes | str) -> Any:
    """The event of a request whose `webhook-signature` is the secret's and whose
    `webhook-timestamp` is within five minutes; WebhookVerificationError otherwise."""
    lowered = {key.lower(): value for key, value in headers.items()}
    payload = body if isinstance(body, bytes) else body.encode()
    event: Any = Webhook(secret).verify(payload, lowered)
    model = event_model(str(event.get("type", ""))) if isinstance(event, dict) else None
    if model is None:
        return event
    return model.from_dict(event)
