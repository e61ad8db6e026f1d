"""POST /ingest/chirpstack: ChirpStack v4's HTTP integration (operations.md section 3).

Answers 204 once the event is committed (or deliberately ignored), 400 for a body that
cannot be read, 401 for a bad token, 404 for an unknown or unassigned device. ChirpStack
never retries, so the path is kept short: a cached device context and one SQL call.
The integration token is resolved to its partner once (cached for seconds, `_partner`);
the storing transaction checks it again (`ingest_admit`), so a revoked token is refused.
Uplinks are stored through app/telemetry/batch.py, other events by `store_event`
(app/telemetry/pipeline.py).
"""

from __future__ import annotations

import logging
import uuid
from datetime import UTC, datetime, timedelta
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
from app.telemetry import catalog
from app.telemetry.batch import batcher_for
from app.telemetry.catalog import DeviceContext, TtlCache
from app.telemetry.chirpstack import (
    DECODERS,
    LocationEvent,
    StatusEvent,
    UplinkEvent,
)
from app.telemetry.pipeline import (
    Outcome,
    Uplink,
    dedup_key,
    status_battery,
    store_event,
)

DEVICE_FOR_PARTNER = QUERIES["telemetry.device_for_partner"]
PARTNER_FOR_TOKEN = QUERIES["telemetry.partner_for_token"]

log = logging.getLogger(__name__)
_partners: TtlCache[bytes, uuid.UUID] = TtlCache()
_devices: TtlCache[tuple[uuid.UUID, str], DeviceContext] = TtlCache()


def _no_content() -> Response[None]:
    return Response(content=None, status_code=204)


def _unauthorized() -> ApiError:
    return ApiError(
        401,
        ErrorCode.UNAUTHORIZED,
        "missing or unknown integration token",
        {"WWW-Authenticate": "Bearer"},
    )


def _token(request: Request[Any, Any, Any]) -> bytes:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise _unauthorized()
    return hash_secret(token)


async def _partner(pool: asyncpg.Pool, token_hash: bytes) -> uuid.UUID:
    """The partner of an integration token, or 401: the token's one check before storing.

    Cached for a few seconds; the storing transaction checks the token again
    (`ingest_admit`), so an uplink with a token revoked meanwhile is still refused."""
    partner_id = _partners.get(token_hash)
    if partner_id is None:
        partner_id = await pool.fetchval(PARTNER_FOR_TOKEN, token_hash)
        if partner_id is None:
            raise _unauthorized()
        _partners.put(token_hash, partner_id)
    return partner_id


async def _device(
    pool: asyncpg.Pool, token_hash: bytes, partner_id: uuid.UUID, dev_eui_text: str
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
        _partners.drop(token_hash)
        await _partner(pool, token_hash)
        raise not_found("device")
    context = await catalog.context_from_row(pool, row)
    return _devices.put(key, context)


def _decode(event: str, body: bytes) -> Any:
    try:
        return DECODERS[event].decode(body)
    except msgspec.ValidationError as exc:
        raise invalid_body("body", f"not a ChirpStack {event} event: {exc}") from None
    except UNREADABLE as exc:
        raise unreadable(exc) from None


# The window of event times taken as given (README, "Ingest"). A device or gateway with a
# wrong clock must not store a time that later reads break on (year 9999 kept the device
# online for ever, year 1 failed), so outside it the event is stored at its receive time.
EARLIEST_EVENT_TIME = datetime(2000, 1, 1, tzinfo=UTC)
MAX_EVENT_TIME_AHEAD = timedelta(minutes=5)


def _time(value: datetime | None) -> datetime:
    """The event's time when inside the window, else the receive time (now)."""
    received = datetime.now(UTC)
    if value is None:
        return received
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    try:
        value = value.astimezone(UTC)
    except OverflowError:  # 0001-01-01T00:00:00+01:00 is before year 1 in UTC
        value = EARLIEST_EVENT_TIME - timedelta(days=1)
    if EARLIEST_EVENT_TIME <= value <= received + MAX_EVENT_TIME_AHEAD:
        return value
    log.info("ingest: event time %s outside the window; stored at %s", value, received)
    return received


def _uplink(parsed: UplinkEvent) -> Uplink:
    gateways = []
    receptions = []
    for rx in parsed.rx_info:
        receptions.append((rx.rssi, rx.snr))
        eui = normalize_eui(rx.gateway_id)
        if eui is not None:
            gateways.append(eui)
    return Uplink(
        time=_time(parsed.time),
        values=parsed.object or {},
        receptions=receptions,
        gateways=gateways,
        dedup_key=dedup_key("up", parsed.deduplication_id),
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
        _time(parsed.time),
        dedup_key=dedup_key(event, parsed.deduplication_id),
        battery=battery,
        location=location,
        token_hash=token_hash,
    )


class IngestController(Controller):
    path = "/ingest"
    tags = ["ingest"]

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
        token_hash = _token(request)
        pool: asyncpg.Pool = request.app.state.pool
        partner_id = await _partner(pool, token_hash)
        if event not in DECODERS:
            return _no_content()
        parsed = _decode(event, await request.body())
        context = await _device(pool, token_hash, partner_id, parsed.device_info.dev_eui)
        outcome = await _store(pool, event, parsed, context, token_hash)
        if outcome == Outcome.STORED:
            # Read-your-writes: the notification of the commit may still be unread by this
            # instance's workers when the client's next request reaches one of them; the
            # bump makes their cached answer a miss before this 204 is sent.
            request.app.state.latest_generations.bump(context.num)
        if outcome in (Outcome.STORED, Outcome.DUPLICATE):
            return _no_content()
        _devices.clear()
        catalog.forget(context.num)
        if outcome == Outcome.UNAUTHORIZED:
            _partners.drop(token_hash)
            raise _unauthorized()
        raise not_found("device")
