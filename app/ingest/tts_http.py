"""POST /ingest/tts: The Things Stack's webhook integration (integrations.md 2.2).

The same receive flow and answers as `POST /ingest/chirpstack` (operations.md section 3,
app/ingest/receive.py): 204 once committed (or for a message type the service
ignores), 400 for a body that cannot be read, 401 for a token that is not a `tts`
integration's, 404 for an unknown or unassigned device. `TTS` is The Things Stack's
adapter to that flow: uplinks, join-accepts and solved locations become `up`, `join` and
`location` events, each stored once per `as:up:` correlation id.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Controller, Request, Response, post

from app.core.api import normalize_eui
from app.core.body import UNREADABLE, unreadable
from app.core.errors import error_responses, invalid_body
from app.core.sql import QUERIES
from app.ingest.pipeline import DeviceEvent, Uplink, dedup_key, event_time
from app.ingest.receive import Message, Network, Receiver, Translated
from app.ingest.tts_messages import DECODER, ApplicationUp


def translate(body: bytes, _event: str) -> Translated:
    """A webhook message as the receive flow takes it (its type is in the body)."""
    try:
        message = DECODER.decode(body)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise invalid_body("body", f"not a The Things Stack message: {exc}") from None
    except UNREADABLE as exc:
        raise unreadable(exc) from None
    dev_eui = message.end_device_ids.dev_eui
    if message.uplink_message is not None:
        return Message(dev_eui, uplink_of(message))
    if message.join_accept is not None:
        received = message.join_accept.received_at or message.received_at
        return Message(dev_eui, DeviceEvent("join", event_time(received), _dedup("join", message)))
    if message.location_solved is not None:
        location = message.location_solved.location.as_event_location()
        return Message(
            dev_eui,
            DeviceEvent(
                "location",
                event_time(message.received_at),
                _dedup("location", message),
                location=location,
            ),
        )
    return None


def _dedup(kind: str, message: ApplicationUp) -> str | None:
    """The key of the message's `as:up:` correlation id (the Application Server's)."""
    for correlation in message.correlation_ids:
        if correlation.startswith("as:up:"):
            return dedup_key(kind, correlation)
    return None


def uplink_of(message: ApplicationUp) -> Uplink:
    up = message.uplink_message
    assert up is not None
    receptions = []
    gateways = []
    for rx in up.rx_metadata:
        receptions.append((rx.rssi or rx.channel_rssi, rx.snr))
        eui = normalize_eui(rx.gateway_ids.eui)
        if eui is not None:
            gateways.append(eui)
    return Uplink(
        time=event_time(up.received_at or message.received_at),
        values=up.decoded_payload or {},
        receptions=receptions,
        gateways=gateways,
        dedup_key=_dedup("up", message),
        f_port=up.f_port,
        f_cnt=up.f_cnt,
    )


TTS = Network(
    QUERIES["ingest.tts_partner_for_token"], "The Things Stack integration token", translate
)


class TtsIngestController(Controller):
    path = "/ingest"
    tags = ["ingest"]

    @post(
        "/tts",
        operation_id="ingestTheThingsStack",
        summary="Receive a The Things Stack webhook message",
        description=(
            "The Things Stack's webhook integration (JSON) posts uplinks, join-accepts and "
            "solved locations here with `Authorization: Bearer <integration token>` of an "
            "integration of kind `tts`. 204 once stored (or for a message type the service "
            "ignores); a repeated `as:up:` correlation id is stored once."
        ),
        status_code=204,
        responses=error_responses(400, 401, 404),
        security=[],
    )
    async def tts(self, request: Request[Any, Any, Any]) -> Response[None]:
        receiver: Receiver = request.app.state.receiver
        await receiver.receive(TTS, TTS.token_hash(request.scope["headers"]), request.body)
        return Response(content=None, status_code=204)
