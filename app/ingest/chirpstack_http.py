"""POST /ingest/chirpstack: ChirpStack v4's HTTP integration (operations.md section 3).

Answers 204 once the event is committed (or deliberately ignored), 400 for a body that
cannot be read, 401 for a bad token, 404 for an unknown or unassigned device. `CHIRPSTACK`
is ChirpStack's adapter to the receive flow of app/ingest/receive.py, which this route
and the MQTT consumer (app/ingest/mqtt_consumer.py) both go through: it only translates an event
(the type from `?event=` or the topic, the JSON body) into a source-neutral message.
`txack`, `ack` and `log` events are reports on downlinks, for app/downlinks/events.py.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Controller, Request, Response, post
from litestar.params import Parameter

from app.core.api import normalize_eui
from app.core.body import UNREADABLE, unreadable
from app.core.chirpstack_events import DECODERS, LocationEvent, StatusEvent, UplinkEvent
from app.core.errors import error_responses, invalid_body
from app.core.sql import QUERIES
from app.downlinks import events as downlink_events
from app.ingest.pipeline import DeviceEvent, Uplink, dedup_key, event_time, status_battery
from app.ingest.receive import DownlinkReport, Message, Network, Receiver, Translated


def translate(body: bytes, event: str) -> Translated:
    """A ChirpStack event of type `event` as the receive flow takes it."""
    if event in downlink_events.EVENTS:
        return DownlinkReport(event, body)
    decoder = DECODERS.get(event)
    if decoder is None:
        return None
    try:
        parsed = decoder.decode(body)
    except msgspec.ValidationError as exc:
        raise invalid_body("body", f"not a ChirpStack {event} event: {exc}") from None
    except UNREADABLE as exc:
        raise unreadable(exc) from None
    if isinstance(parsed, UplinkEvent):
        return Message(parsed.device_info.dev_eui, _uplink(parsed))
    battery = location = None
    if isinstance(parsed, StatusEvent):
        battery = status_battery(
            parsed.battery_level, parsed.external_power_source, parsed.battery_level_unavailable
        )
    elif isinstance(parsed, LocationEvent) and parsed.location is not None:
        location = parsed.location.as_event_location()
    return Message(
        parsed.device_info.dev_eui,
        DeviceEvent(
            event,
            event_time(parsed.time),
            dedup_key=dedup_key(event, parsed.deduplication_id),
            battery=battery,
            location=location,
        ),
    )


def _uplink(parsed: UplinkEvent) -> Uplink:
    gateways = []
    receptions = []
    for rx in parsed.rx_info:
        receptions.append((rx.rssi, rx.snr))
        eui = normalize_eui(rx.gateway_id)
        if eui is not None:
            gateways.append(eui)
    return Uplink(
        time=event_time(parsed.time),
        values=parsed.object or {},
        receptions=receptions,
        gateways=gateways,
        dedup_key=dedup_key("up", parsed.deduplication_id),
        f_port=parsed.f_port,
        f_cnt=parsed.f_cnt,
    )


CHIRPSTACK = Network(QUERIES["ingest.chirpstack_partner_for_token"], "integration token", translate)


class IngestController(Controller):
    path = "/ingest"
    tags = ["Ingest"]

    @post(
        "/chirpstack",
        operation_id="ingestChirpStack",
        summary="Receive a ChirpStack v4 HTTP integration event",
        description=(
            "ChirpStack's HTTP integration with the JSON marshaler posts here with "
            "`?event=up|status|join|location|...` and `Authorization: Bearer <integration "
            "token>`. 204 once stored (or for an event type the service ignores); a repeated "
            "`deduplicationId` is stored once."
        ),
        status_code=204,
        responses=error_responses(400, 401, 404),
        security=[],
    )
    async def chirpstack(
        self,
        request: Request[Any, Any, Any],
        event: str = Parameter(default="", description="ChirpStack event type"),
    ) -> Response[None]:
        receiver: Receiver = request.app.state.receiver
        await receiver.receive(
            CHIRPSTACK, CHIRPSTACK.token_hash(request.scope["headers"]), request.body, event
        )
        return Response(content=None, status_code=204)
