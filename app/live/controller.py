"""GET /api/v1/latest (fleet latest, analytics.md section 1) with its long poll, and
GET /api/v1/stream (live values as Server-Sent Events, section 4)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Annotated, Any

import anyio
import asyncpg
from litestar import Controller, Request, Response, get
from litestar.params import Parameter

from app.auth.principal import Principal
from app.core.api import Listing, Page
from app.core.errors import ApiError, ErrorCode, error_responses
from app.devices.filters import (
    FILTER_FEATURES,
    DescendantsFilter,
    NetworkFilter,
    OnlineFilter,
    ProfileFilter,
    SiteFilter,
    SubAccountFilter,
    check_features,
)
from app.latest.controller import json_bytes_response, matches
from app.latest.structs import LatestValues
from app.live.fleet import kept_answer, read_fleet
from app.live.selection import FILTERS, check_known, parse_selection
from app.live.slots import MAX_STREAMS_PER_KEY, StreamSlots
from app.live.stream import (
    EventStream,
    Stream,
    parse_last_event_id,
    run_stream,
    stream_key_hash,
    stream_members,
)
from app.notify.hub import current_hub
from app.notify.wait import hold, if_none_match, requested_wait

SCOPE = "telemetry:read"
FLEET_PARAMETERS = frozenset({"deviceIds", "fields", "limit", "offset", *FILTERS})

DeviceIds = Annotated[
    str | None,
    Parameter(
        query="deviceIds",
        description="Comma-separated device ids or DevEUIs, at most 200; not with the filters.",
    ),
]
Fields = Annotated[
    str | None,
    Parameter(
        description=(
            "Comma-separated field identifiers: `values`, `retained` and `derived` hold only these."
        )
    ),
]


def checking_parameters(
    known: frozenset[str],
) -> Callable[[Request[Any, Any, Any]], Awaitable[None]]:
    """The `before_request` hook of a route that takes only the query parameters `known`:
    the feature switches (403) first, then a parameter it does not take (400)."""

    async def check(request: Request[Any, Any, Any]) -> None:
        await check_features(request)
        if request.method != "OPTIONS":
            check_known(request.query_params, known)

    return check


class FleetLatestController(Controller):
    path = "/latest"
    tags = ["Devices"]
    before_request = staticmethod(checking_parameters(FLEET_PARAMETERS))

    @get(
        operation_id="getFleetLatest",
        summary="Latest values of many devices",
        description=(
            "Selects devices by `deviceIds` or by the filters of `GET /devices` (assigned "
            "devices only), ordered by device id and paged. Each item is exactly the `data` "
            "of `GET /devices/{id}/latest`, restricted by `fields`. One strong `ETag` covers "
            "the whole answer: `If-None-Match` answers 304 while nothing changed, and with "
            "`Prefer: wait=N` an unchanged answer is held until it changes (200) or N "
            "seconds pass (304); `Preference-Applied` then says the wait applied."
        ),
        opt={"scope": SCOPE, **FILTER_FEATURES},
        responses=error_responses(400, 403),
    )
    async def fleet_latest(
        self,
        request: Request[Any, Any, Any],
        device_ids: DeviceIds = None,
        fields: Fields = None,
        sub_account_id: SubAccountFilter = None,
        device_profile_id: ProfileFilter = None,
        network_id: NetworkFilter = None,
        site_id: SiteFilter = None,
        include_descendants: DescendantsFilter = None,
        online: OnlineFilter = None,
        search: str | None = None,
        *,
        page: Page,
    ) -> Response[Listing[LatestValues]]:
        # The pool and the principal are taken from the app and the scope, not as
        # dependencies: Litestar resolves two or more dependencies in an anyio task group,
        # a good part of a cached 304's cost.
        pool: asyncpg.Pool = request.app.state.pool
        principal: Principal = request.scope["state"]["principal"]
        query: bytes = request.scope["query_string"]
        read_at = time.time()
        answer = kept_answer(request.app, principal, query)
        selection = parse_selection(principal, request.query_params)

        async def read() -> Any:
            return await read_fleet(request.app, pool, principal, selection, page, query)

        if answer is None:
            answer = await read()
        headers = {"Cache-Control": "private, no-cache"}
        condition = if_none_match(request.scope["headers"])
        wait = requested_wait(request.scope["headers"]) if condition else None
        not_modified = matches(condition, answer[2])
        if wait is not None:
            headers["Preference-Applied"] = f"wait={wait}"
            if not_modified:
                changed = await hold(
                    request.app, wait, answer, read, selection.filters is not None, read_at
                )
                # A change ends the wait with the new answer (even for `If-None-Match: *`).
                if changed is not None:
                    answer, not_modified = changed, False
        headers["ETag"] = answer[2]
        if not_modified:
            return json_bytes_response(b"", 304, headers)
        return json_bytes_response(answer[1], 200, headers)


STREAM_PARAMETERS = frozenset({"deviceIds", "fields", *FILTERS})
STREAM_RETRY_AFTER_S = "5"


class StreamController(Controller):
    path = "/stream"
    tags = ["Devices"]
    before_request = staticmethod(checking_parameters(STREAM_PARAMETERS))

    @get(
        operation_id="streamLatest",
        summary="Latest values as they change (Server-Sent Events)",
        description=(
            "Selects devices as fleet latest does (at most 1,000). Sends `event: latest` "
            "with each device's latest values object first, then one each time a device's "
            "values change; `event: removed` when a device leaves what the key may see; a "
            "comment line at least every 15 s. Every event has an `id:`; reconnecting with "
            "`Last-Event-ID` within 5 minutes sends only what changed since, otherwise "
            "`event: reset` and the whole first send again. The stream ends within 5 s of "
            "the key's revocation or expiry. At most 10 open streams per key (429). "
            "Opening counts as one request; events do not count."
        ),
        opt={"scope": SCOPE, **FILTER_FEATURES},
        responses=error_responses(400, 403),
        media_type="text/event-stream",
    )
    async def stream_latest(
        self,
        request: Request[Any, Any, Any],
        device_ids: DeviceIds = None,
        fields: Fields = None,
        sub_account_id: SubAccountFilter = None,
        device_profile_id: ProfileFilter = None,
        network_id: NetworkFilter = None,
        site_id: SiteFilter = None,
        include_descendants: DescendantsFilter = None,
        online: OnlineFilter = None,
        search: str | None = None,
    ) -> EventStream:
        pool: asyncpg.Pool = request.app.state.pool
        principal: Principal = request.scope["state"]["principal"]
        selection = parse_selection(principal, request.query_params)
        hub = current_hub(request.app)
        slots: StreamSlots | None = getattr(request.app.state, "live_slots", None)
        if hub is None or slots is None:
            raise ApiError(503, ErrorCode.UNAVAILABLE, "streams are not served right now")
        read_at = time.time()
        members = await stream_members(request.app, pool, principal, selection)
        stream_id = await slots.claim(principal.key_id)
        if stream_id is None:
            raise ApiError(
                429,
                ErrorCode.RATE_LIMITED,
                f"this API key has {MAX_STREAMS_PER_KEY} streams open already",
                {"Retry-After": STREAM_RETRY_AFTER_S},
            )
        stream = Stream(
            app=request.app,
            pool=pool,
            hub=hub,
            principal=principal,
            selection=selection,
            key_hash=stream_key_hash(request.scope),
            members=members,
            read_at=read_at,
        )
        resume_from = parse_last_event_id(request.scope["headers"])

        async def body() -> AsyncGenerator[bytes, None]:
            slots.begin(stream_id)
            try:
                async with contextlib.aclosing(run_stream(stream, resume_from)) as events:
                    async for chunk in events:
                        yield chunk
            finally:
                # Freed even when the stream is cancelled (the client left).
                with anyio.CancelScope(shield=True):
                    await slots.release(stream_id)

        return EventStream(body())
