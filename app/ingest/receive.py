"""The receive flow of every network server and transport (operations.md section 3,
integrations.md 2): ChirpStack's HTTP integration and MQTT (app/ingest/chirpstack_http.py,
app/ingest/mqtt_consumer.py) and The Things Stack's webhook (app/ingest/tts_http.py).

`Receiver.receive` is the one flow, the steps of an uplink: the integration token's
partner (401), the adapter's translation of the payload (400, or ignored), the device
(404), storing (through the group commit of app/ingest/batch.py for uplinks,
`store_event` for other device events), the ingest metric, the generation bump, and the
refusal of what the storing transaction refused. A network's adapter (`Network`) only
names its tokens and translates its payloads into a source-neutral `Message`; it never
stores, counts or refuses anything itself. The answers: returns once the event is
committed (or deliberately ignored), raises the ApiError of a 400, 401 or 404. ChirpStack
never retries, so the path is kept short: a cached device context and one SQL call.

`IngestRoutes` answers the two HTTP routes' common requests below the framework, through
this same flow (issue 27); their Litestar routes (app/ingest/chirpstack_http.py,
app/ingest/tts_http.py) document them and answer every other request.

What the flow caches (the partner of each token, the context of each device) is read from
one database, so it belongs to the app (cluster) that owns the Receiver: one per app
(`app.state.receiver`, made by its lifespan in app/main.py) and one per MQTT consumer,
never one per process (see `DeviceContexts` in app/profiles/contexts.py for why).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import asyncpg
import msgspec
from cachetools import TTLCache
from litestar import Request

from app.auth.principal import hash_secret
from app.core.api import normalize_eui
from app.core.deadline import run_within
from app.core.enums import DeviceStatus
from app.core.errors import ApiError, ErrorCode, handle_exception, not_found
from app.core.sql import QUERIES
from app.downlinks import events as downlink_events
from app.ingest.batch import batcher_for
from app.ingest.pipeline import DeviceEvent, Outcome, Uplink, store_event
from app.latest.generations import Generations
from app.observe.metrics import observe_ingest
from app.profiles.contexts import MAX_ENTRIES, TTL_SECONDS, DeviceContext, DeviceContexts

DEVICE_FOR_PARTNER = QUERIES["ingest.device_for_partner"]


class Message(msgspec.Struct, frozen=True):
    """What a network server says about one device, in every network's terms."""

    dev_eui: str  # as the network server wrote it
    content: Uplink | DeviceEvent

    @property
    def kind(self) -> str:
        """The event type stored and counted: up, status, join or location."""
        return "up" if isinstance(self.content, Uplink) else self.content.kind


class DownlinkReport(msgspec.Struct, frozen=True):
    """A report on a downlink the service queued (ChirpStack's txack, ack and log events),
    applied by app/downlinks/events.py."""

    event: str
    body: bytes


# What an adapter makes of a payload; None: a message type the service ignores.
Translated = Message | DownlinkReport | None
# The body, or (HTTP) the function that reads it: read once the token is known, so a
# request with an unknown token is refused without reading its body.
Body = bytes | Callable[[], Awaitable[bytes]]


class Network:
    """A network server as the receive flow sees it: the integration tokens of its kind and
    the translation of its payloads (`translate(body, event)`, raising the 400 of a body
    it cannot read; `event` is what the transport says of the type, "" when the body says
    it)."""

    def __init__(
        self, token_query: str, token_name: str, translate: Callable[[bytes, str], Translated]
    ) -> None:
        self.token_query = token_query
        # The integration named in the 401 ("integration token" for ChirpStack).
        self.token_name = token_name
        self.translate = translate

    def unauthorized(self) -> ApiError:
        return ApiError(
            401,
            ErrorCode.UNAUTHORIZED,
            f"missing or unknown {self.token_name}",
            {"WWW-Authenticate": "Bearer"},
        )

    def token_hash(self, headers: Iterable[tuple[bytes, bytes]]) -> bytes:
        """The hash of the bearer integration token in the request's (ASGI) headers, or the
        401. Read from the scope: building a Headers object for it cost the ingest route
        more than the rest of this check."""
        raw = next((v for n, v in headers if n == b"authorization"), b"")
        scheme, _, token = raw.decode("latin-1").partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise self.unauthorized()
        return hash_secret(token)


class IntegrationTokens:
    """Integration token hash -> partner for one network, cached for seconds.

    The token's one check before storing: the storing transaction checks it again
    (`ingest_admit_batch`), so an uplink with a token revoked meanwhile is still refused."""

    def __init__(self, network: Network) -> None:
        self.network = network
        self.cache: TTLCache[bytes, uuid.UUID] = TTLCache(MAX_ENTRIES, TTL_SECONDS)

    async def partner(self, pool: asyncpg.Pool, token_hash: bytes) -> uuid.UUID:
        """The partner of the token, or the 401."""
        partner_id = self.cache.get(token_hash)
        if partner_id is None:
            partner_id = await pool.fetchval(self.network.token_query, token_hash)
            if partner_id is None:
                raise self.network.unauthorized()
            self.cache[token_hash] = partner_id
        return partner_id

    def drop(self, token_hash: bytes) -> None:
        self.cache.pop(token_hash, None)


class Receiver:
    """The receive flow of one app (one database) and what it caches.

    `generations`: the instance's /latest generation table, bumped after a commit for
    read-your-writes across its workers (None where no /latest cache reads it)."""

    def __init__(
        self, pool: asyncpg.Pool, contexts: DeviceContexts, generations: Generations | None
    ) -> None:
        self.pool = pool
        self.contexts = contexts
        self.generations = generations
        self.tokens: dict[Network, IntegrationTokens] = {}
        # (partner, DevEUI) -> the assigned device's context.
        self.devices: TTLCache[tuple[uuid.UUID, str], DeviceContext] = TTLCache(
            MAX_ENTRIES, TTL_SECONDS
        )

    async def receive(
        self, network: Network, token_hash: bytes, body: Body, event: str = ""
    ) -> None:
        """One message of a network server: returns once it is committed (or deliberately
        ignored); raises the ApiError of a 400, 401 or 404."""
        tokens = self._tokens(network)
        partner_id = await tokens.partner(self.pool, token_hash)
        message = network.translate(body if isinstance(body, bytes) else await body(), event)
        if message is None:
            observe_ingest("other", "ignored")
            return
        if isinstance(message, DownlinkReport):
            await downlink_events.receive(self.pool, token_hash, message.event, message.body)
            return
        context = await self.device(tokens, token_hash, partner_id, message.dev_eui)
        outcome = await self.store(context, message.content, token_hash)
        observe_ingest(message.kind, outcome)
        if outcome == Outcome.STORED and self.generations is not None:
            # Read-your-writes: the notification of the commit may still be unread by this
            # instance's workers when the client's next request reaches one of them; the
            # bump makes their cached answer a miss before the answer is sent.
            self.generations.bump(context.num)
        if outcome not in (Outcome.STORED, Outcome.DUPLICATE):
            raise self.refused(outcome, tokens, token_hash, context)

    def _tokens(self, network: Network) -> IntegrationTokens:
        tokens = self.tokens.get(network)
        if tokens is None:
            tokens = self.tokens[network] = IntegrationTokens(network)
        return tokens

    async def device(
        self, tokens: IntegrationTokens, token_hash: bytes, partner_id: uuid.UUID, dev_eui: str
    ) -> DeviceContext:
        """The assigned device with this DevEUI in the token's partner, or 401/404."""
        eui = normalize_eui(dev_eui)
        key = (partner_id, eui or "")
        context = self.devices.get(key)
        if context is not None:
            return context
        row = await self.pool.fetchrow(DEVICE_FOR_PARTNER, partner_id, eui) if eui else None
        if row is None or row["status"] != DeviceStatus.ASSIGNED:
            # A token revoked since it was cached is a 401, not a 404.
            tokens.drop(token_hash)
            await tokens.partner(self.pool, token_hash)
            raise not_found("device")
        context = await self.contexts.of_row(self.pool, row)
        self.devices[key] = context
        return context

    async def store(
        self, context: DeviceContext, content: Uplink | DeviceEvent, token_hash: bytes
    ) -> Outcome:
        if isinstance(content, Uplink):
            return await batcher_for(self.pool).store(context, content, token_hash)
        return await store_event(
            self.pool,
            context,
            content.kind,
            content.time,
            dedup_key=content.dedup_key,
            battery=content.battery,
            location=content.location,
            token_hash=token_hash,
        )

    def refused(
        self,
        outcome: Outcome,
        tokens: IntegrationTokens,
        token_hash: bytes,
        context: DeviceContext,
    ) -> ApiError:
        """The error of a message the storing transaction refused, after dropping what was
        cached about its device (and its token when that was the reason)."""
        self.devices.clear()
        self.contexts.forget(context.num)
        if outcome == Outcome.UNAUTHORIZED:
            tokens.drop(token_hash)
            return tokens.network.unauthorized()
        return not_found("device")


class IngestRoute(msgspec.Struct, frozen=True):
    """One ingest route answered below the framework: its network, whether `?event=` names
    the event type (ChirpStack) and its Litestar route handler (documented in the OpenAPI
    document, and answering every request this path does not take)."""

    path: str
    network: Network
    takes_event: bool
    handler: Any


# The query strings the direct path takes for a route with `?event=`; any other goes to
# Litestar, whose parsing (percent-decoding, repeats) then decides.
_EVENT_QUERY = re.compile(rb"^event=([A-Za-z0-9_]{0,32})$")


class IngestRoutes:
    """The ASGI app around Litestar's that answers the ingest routes' common requests
    itself (issue 27): `POST` to the exact path with a `Content-Length` within the body
    limit (and for ChirpStack no query or `?event=<type>`). Under ingest load the
    framework's routing, middleware, signature model and response classes were a
    fifth of a worker's time per uplink. The answers are the route's own: the
    receive flow is the same call, errors go through the app's exception handler
    (`handle_exception`) into the same envelope, the request is bounded by the same
    deadline (`run_within`, with the route handler's bound), and the request observer
    outside it (app/observe/requests.py) writes the same access line and metrics under the
    route's template. Every other request (another method, a chunked or oversized body,
    an unusual query) goes to Litestar unchanged."""

    def __init__(
        self, app: Any, litestar: Any, routes: Iterable[IngestRoute], max_body: int
    ) -> None:
        self.app = app
        self.litestar = litestar
        self.routes = {route.path: route for route in routes}
        self.max_body = max_body

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        route = self.routes.get(scope["path"]) if scope["type"] == "http" else None
        if route is not None and scope["method"] == "POST":
            event = self._event(route, scope["query_string"])
            if event is not None and self._length_within(scope["headers"]):
                scope["path_template"] = route.path

                async def answer(scope: Any, receive: Any, send: Any) -> None:
                    await self._answer(route, event, scope, receive, send)

                deadlines = self.litestar.state.get("deadlines")
                if deadlines is None:
                    await answer(scope, receive, send)
                else:
                    bound = deadlines.bound_for(route.handler)
                    await run_within(deadlines, bound, answer, scope, receive, send)
                return
        await self.app(scope, receive, send)

    @staticmethod
    def _event(route: IngestRoute, query: bytes) -> str | None:
        """The event type the query names ("" for none), or None for a query left to
        Litestar."""
        if not query:
            return ""
        if not route.takes_event:
            return None
        match = _EVENT_QUERY.match(query)
        return match.group(1).decode() if match else None

    def _length_within(self, headers: Iterable[tuple[bytes, bytes]]) -> bool:
        for name, value in headers:
            if name == b"transfer-encoding":
                return False
            if name == b"content-length":
                return value.isdigit() and int(value) <= self.max_body
        return False

    async def _answer(
        self, route: IngestRoute, event: str, scope: Any, receive: Any, send: Any
    ) -> None:
        try:
            receiver: Receiver = self.litestar.state.receiver
            token_hash = route.network.token_hash(scope["headers"])

            async def body() -> bytes:
                return await _read_body(receive)

            await receiver.receive(route.network, token_hash, body, event)
        except Exception as exc:
            request: Request[Any, Any, Any] = Request(scope, receive)
            response = handle_exception(request, exc)
            await response.to_asgi_response(None, request)(scope, receive, send)
            return
        # New messages each time: the layers outside may change them (the observer adds
        # the request id to the headers).
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})


async def _read_body(receive: Any) -> bytes:
    """The request's body (its length was checked against the limit; granian delivers no
    more than the declared length)."""
    chunks = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)
