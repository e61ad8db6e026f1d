"""POST /ingest/chirpstack: ChirpStack v4's HTTP integration (operations.md section 3).

Answers 204 once the event is committed (or deliberately ignored), 400 for a body that
cannot be read, 401 for a bad token, 404 for an unknown or unassigned device. ChirpStack
never retries, so the path is kept short: a cached device context and one SQL call.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import asyncpg
import msgspec
from litestar import Controller, Request, Response, post
from litestar.params import Parameter

from app.auth.cache import current_cache
from app.auth.principal import hash_secret
from app.core.api import normalize_eui
from app.core.errors import ApiError, error_responses, invalid_body, not_found
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

DEVICE_FOR_TOKEN = QUERIES["telemetry.device_for_token"]
PARTNER_FOR_TOKEN = QUERIES["telemetry.partner_for_token"]

_devices: TtlCache[tuple[bytes, str], DeviceContext] = TtlCache()
_tokens: TtlCache[bytes, bool] = TtlCache()


def _no_content() -> Response[None]:
    return Response(content=None, status_code=204)


def _unauthorized() -> ApiError:
    return ApiError(
        401, "unauthorized", "missing or unknown integration token", {"WWW-Authenticate": "Bearer"}
    )


def _token(request: Request[Any, Any, Any]) -> bytes:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise _unauthorized()
    return hash_secret(token)


async def _check_token(pool: asyncpg.Pool, token_hash: bytes) -> None:
    if _tokens.get(token_hash):
        return
    if await pool.fetchval(PARTNER_FOR_TOKEN, token_hash) is None:
        raise _unauthorized()
    _tokens.put(token_hash, True)


async def _device(pool: asyncpg.Pool, token_hash: bytes, dev_eui_text: str) -> DeviceContext:
    """The assigned device with this DevEUI in the token's partner, or 401/404."""
    dev_eui = normalize_eui(dev_eui_text)
    key = (token_hash, dev_eui or "")
    context = _devices.get(key)
    if context is not None:
        return context
    if dev_eui is None:
        await _check_token(pool, token_hash)
        raise not_found("device")
    row = await pool.fetchrow(DEVICE_FOR_TOKEN, token_hash, dev_eui)
    if row is None:
        raise _unauthorized()
    if row["num"] is None or row["status"] != "assigned":
        raise not_found("device")
    context = await catalog.context_from_row(pool, row)
    return _devices.put(key, context)


def _decode(event: str, body: bytes) -> Any:
    try:
        return DECODERS[event].decode(body)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise invalid_body("body", f"not a ChirpStack {event} event: {exc}") from None


def _time(value: datetime | None) -> datetime:
    if value is None:
        return datetime.now(UTC)
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


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
        f_port=parsed.f_port,
        f_cnt=parsed.f_cnt,
    )


async def _store(
    pool: asyncpg.Pool, event: str, parsed: Any, context: DeviceContext, token_hash: bytes
) -> str:
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
        await _check_token(pool, token_hash)
        if event not in DECODERS:
            return _no_content()
        parsed = _decode(event, await request.body())
        context = await _device(pool, token_hash, parsed.device_info.dev_eui)
        outcome = await _store(pool, event, parsed, context, token_hash)
        if outcome == Outcome.STORED and (cache := current_cache(request.app)) is not None:
            # Read-your-writes on this worker: its own notification of the commit may still
            # be unread when the client's next request arrives. Other workers get theirs
            # from PostgreSQL at commit, before this answer is even sent.
            cache.latest.notified(str(context.num))
        if outcome in (Outcome.STORED, Outcome.DUPLICATE):
            return _no_content()
        _devices.clear()
        catalog.forget(context.num)
        if outcome == Outcome.UNAUTHORIZED:
            _tokens.drop(token_hash)
            raise _unauthorized()
        raise not_found("device")
