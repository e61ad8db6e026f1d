"""POST /ingest/tts: The Things Stack's webhook integration (integrations.md 2.2).

The same pipeline and answers as `POST /ingest/chirpstack` (operations.md section 3): 204
once committed (or for a message type the service ignores), 400 for a body that cannot
be read, 401 for a token that is not a `tts` integration's, 404 for an unknown or
unassigned device. Uplinks, join-accepts and solved locations become `up`, `join` and
`location` events; each is stored once per `as:up:` correlation id.
"""

from __future__ import annotations

import uuid
from typing import Any

import asyncpg
import msgspec
from litestar import Controller, Request, Response, post

from app.core.api import normalize_eui
from app.core.body import UNREADABLE, unreadable
from app.core.errors import error_responses, invalid_body
from app.core.sql import QUERIES
from app.telemetry.batch import batcher_for
from app.telemetry.catalog import DeviceContext
from app.telemetry.ingest import IntegrationTokens, find_device, refused
from app.telemetry.pipeline import Outcome, Uplink, dedup_key, event_time, store_event
from app.tts.structs import DECODER, ApplicationUp

TTS_TOKENS = IntegrationTokens(
    QUERIES["tts.partner_for_token"], "The Things Stack integration token"
)


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


async def _store(
    pool: asyncpg.Pool, message: ApplicationUp, token_hash: bytes, partner_id: uuid.UUID
) -> tuple[Outcome | None, DeviceContext | None]:
    """The outcome of storing the message and its device; None for a type the service
    ignores."""
    kind = (
        "up"
        if message.uplink_message is not None
        else "join"
        if message.join_accept is not None
        else "location"
        if message.location_solved is not None
        else None
    )
    if kind is None:
        return None, None
    context = await find_device(
        pool, TTS_TOKENS, token_hash, partner_id, message.end_device_ids.dev_eui
    )
    if kind == "up":
        return await batcher_for(pool).store(context, uplink_of(message), token_hash), context
    received = message.received_at
    location = None
    if message.join_accept is not None:
        received = message.join_accept.received_at or received
    elif message.location_solved is not None:
        solved = message.location_solved.location
        location = {
            "latitude": solved.latitude,
            "longitude": solved.longitude,
            "altitude": solved.altitude,
        }
    outcome = await store_event(
        pool,
        context,
        kind,
        event_time(received),
        dedup_key=_dedup(kind, message),
        location=location,
        token_hash=token_hash,
    )
    return outcome, context


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
        pool: asyncpg.Pool = request.app.state.pool
        token_hash = TTS_TOKENS.token_hash(request)
        partner_id = await TTS_TOKENS.partner(pool, token_hash)
        try:
            message = DECODER.decode(await request.body())
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise invalid_body("body", f"not a The Things Stack message: {exc}") from None
        except UNREADABLE as exc:
            raise unreadable(exc) from None
        outcome, context = await _store(pool, message, token_hash, partner_id)
        if outcome == Outcome.STORED and context is not None:
            # Read-your-writes across this instance's workers, as on the ChirpStack route.
            request.app.state.latest_generations.bump(context.num)
        if outcome is None or context is None or outcome in (Outcome.STORED, Outcome.DUPLICATE):
            return Response(content=None, status_code=204)
        raise refused(outcome, TTS_TOKENS, token_hash, context)
