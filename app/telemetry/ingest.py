"""POST /ingest/chirpstack: ChirpStack v4's HTTP integration (operations.md section 3).

Answers 204 once the event is committed (or deliberately ignored), 400 for a body that
cannot be read, 401 for a bad token, 404 for an unknown or unassigned device. ChirpStack
never retries, so the path is kept short: a cached device context and one SQL call.
The integration token is resolved to its partner once (cached for seconds,
`IntegrationTokens`); the storing transaction checks it again (`ingest_admit_batch`), so a
revoked token is refused. Uplinks are stored through app/telemetry/batch.py, other events by
`store_event` (app/telemetry/pipeline.py). `receive_chirpstack` is the one function behind
this route and the MQTT consumer (app/mqtt/consumer.py); `txack`, `ack` and `log` events go
to app/downlinks/events.py. The TTS route (app/tts/) shares `find_device` and `refused`.
"""

from __future__ import annotations

import uuid
from typing import Any

import asyncpg
import msgspec
from litestar import Controller, Request, Response, post
from litestar.params import Parameter

from app.auth.principal import hash_secret
from app.core.api import normalize_eui
from app.core.body import UNREADABLE, unreadable
from app.core.errors import ApiError, ErrorCode, error_responses, invalid_body, not_found
from app.core.sql import QUERIES
from app.downlinks import events as downlink_events
from app.observe.metrics import observe_ingest
from app.telemetry import catalog
from app.telemetry.batch import batcher_for
from app.telemetry.catalog import DeviceContext, TtlCache
from app.telemetry.chirpstack import (
    DECODERS,
    LocationEvent,
    StatusEvent,
    UplinkEvent,
)
from app.telemetry.generations import Generations
from app.telemetry.pipeline import (
    Outcome,
    Uplink,
    dedup_key,
    event_time,
    status_battery,
    store_event,
)

DEVICE_FOR_PARTNER = QUERIES["telemetry.device_for_partner"]


class IntegrationTokens:
    """Integration token hash -> partner for one kind of integration, cached for seconds.

    The token's one check before storing: the storing transaction checks it again
    (`ingest_admit_batch`), so an uplink with a token revoked meanwhile is still refused."""

    def __init__(self, query: str, name: str) -> None:
        self.query = query
        # The integration named in the route's 401 ("integration token" for ChirpStack).
        self.name = name
        self.cache: TtlCache[bytes, uuid.UUID] = TtlCache()

    def unauthorized(self) -> ApiError:
        return ApiError(
            401,
            ErrorCode.UNAUTHORIZED,
            f"missing or unknown {self.name}",
            {"WWW-Authenticate": "Bearer"},
        )

    def token_hash(self, request: Request[Any, Any, Any]) -> bytes:
        """The hash of the request's bearer integration token, or the 401. The header is
        read from the ASGI scope: building the request's Headers object for it cost the
        ingest route more than the rest of this check."""
        raw = next((v for n, v in request.scope["headers"] if n == b"authorization"), b"")
        scheme, _, token = raw.decode("latin-1").partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise self.unauthorized()
        return hash_secret(token)

    async def partner(self, pool: asyncpg.Pool, token_hash: bytes) -> uuid.UUID:
        """The partner of the token, or the 401."""
        partner_id = self.cache.get(token_hash)
        if partner_id is None:
            partner_id = await pool.fetchval(self.query, token_hash)
            if partner_id is None:
                raise self.unauthorized()
            self.cache.put(token_hash, partner_id)
        return partner_id

    def drop(self, token_hash: bytes) -> None:
        self.cache.drop(token_hash)


_devices: TtlCache[tuple[uuid.UUID, str], DeviceContext] = TtlCache()


def _no_content() -> Response[None]:
    return Response(content=None, status_code=204)


CHIRPSTACK_TOKENS = IntegrationTokens(QUERIES["telemetry.partner_for_token"], "integration token")


async def find_device(
    pool: asyncpg.Pool,
    tokens: IntegrationTokens,
    token_hash: bytes,
    partner_id: uuid.UUID,
    dev_eui_text: str,
) -> DeviceContext:
    """The assigned device with this DevEUI in the token's partner, or 401/404."""
    dev_eui = normalize_eui(dev_eui_text)
    key = (partner_id, dev_eui or "")
    context = _devices.get(key)
    if context is not None:
        return context
    row = await pool.fetchrow(DEVICE_FOR_PARTNER, partner_id, dev_eui) if dev_eui else None
    if row is None or row["status"] != "assigned":
        # A token revoked since it was cached is a 401, not a 404.
        tokens.drop(token_hash)
        await tokens.partner(pool, token_hash)
        raise not_found("device")
    context = await catalog.context_from_row(pool, row)
    return _devices.put(key, context)


def refused(
    outcome: Outcome, tokens: IntegrationTokens, token_hash: bytes, context: DeviceContext
) -> ApiError:
    """The error of an uplink or event the storing transaction refused, after dropping what
    was cached about its device (and its token when that was the reason)."""
    _devices.clear()
    catalog.forget(context.num)
    if outcome == Outcome.UNAUTHORIZED:
        tokens.drop(token_hash)
        return tokens.unauthorized()
    return not_found("device")


def _decode(event: str, body: bytes) -> Any:
    try:
        return DECODERS[event].decode(body)
    except msgspec.ValidationError as exc:
        raise invalid_body("body", f"not a ChirpStack {event} event: {exc}") from None
    except UNREADABLE as exc:
        raise unreadable(exc) from None


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


async def _store(
    pool: asyncpg.Pool, event: str, parsed: Any, context: DeviceContext, token_hash: bytes
) -> Outcome:
    if event == "up":
        return await batcher_for(pool).store(context, _uplink(parsed), token_hash)
    battery = location = None
    if isinstance(parsed, StatusEvent):
        battery = status_battery(
            parsed.battery_level, parsed.external_power_source, parsed.battery_level_unavailable
        )
    elif isinstance(parsed, LocationEvent) and parsed.location is not None:
        location = {
            "latitude": parsed.location.latitude,
            "longitude": parsed.location.longitude,
            "altitude": parsed.location.altitude,
        }
    return await store_event(
        pool,
        context,
        event,
        event_time(parsed.time),
        dedup_key=dedup_key(event, parsed.deduplication_id),
        battery=battery,
        location=location,
        token_hash=token_hash,
    )


async def receive_chirpstack(
    pool: asyncpg.Pool,
    token_hash: bytes,
    event: str,
    body: bytes,
    generations: Generations | None,
) -> None:
    """One ChirpStack event, as the HTTP route and the MQTT consumer receive it: returns once
    it is committed (or deliberately ignored); raises the ApiError of a 400, 401 or 404."""
    partner_id = await CHIRPSTACK_TOKENS.partner(pool, token_hash)
    if event in downlink_events.EVENTS:
        await downlink_events.receive(pool, token_hash, event, body)
        return
    if event not in DECODERS:
        observe_ingest("other", "ignored")
        return
    parsed = _decode(event, body)
    context = await find_device(
        pool, CHIRPSTACK_TOKENS, token_hash, partner_id, parsed.device_info.dev_eui
    )
    outcome = await _store(pool, event, parsed, context, token_hash)
    observe_ingest(event, outcome)
    if outcome == Outcome.STORED and generations is not None:
        # Read-your-writes: the notification of the commit may still be unread by this
        # instance's workers when the client's next request reaches one of them; the bump
        # makes their cached answer a miss before the answer is sent.
        generations.bump(context.num)
    if outcome in (Outcome.STORED, Outcome.DUPLICATE):
        return
    raise refused(outcome, CHIRPSTACK_TOKENS, token_hash, context)


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
        await receive_chirpstack(
            request.app.state.pool,
            CHIRPSTACK_TOKENS.token_hash(request),
            event,
            await request.body(),
            request.app.state.latest_generations,
        )
        return _no_content()
