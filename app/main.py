"""The application factory: routes, middleware, guards, dependencies and lifespan."""

from __future__ import annotations

import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
from litestar import Litestar, Request, Router
from litestar.di import Provide
from litestar.openapi.config import OpenAPIConfig
from litestar.openapi.plugins import JsonRenderPlugin
from litestar.openapi.spec import Components, SecurityScheme
from litestar.routes import HTTPRoute
from litestar.types import ASGIApp

from app.accounts.controller import HealthController, IdentityController, SubAccountController
from app.auth.cache import AuthCache
from app.auth.guards import check_route_options
from app.auth.middleware import AuthMiddleware
from app.auth.principal import Principal
from app.background import background_lifespan
from app.core.api import API_PREFIX, check_integer_parameters, provide_page
from app.core.config import Settings
from app.core.config import settings as process_settings
from app.core.db import create_pool
from app.core.deadline import DeadlineMiddleware, deadlines_lifespan
from app.core.errors import MAX_BODY_BYTES, handle_exception
from app.core.listener import Listener
from app.core.routing import RoutingMiddleware, routing_lifespan
from app.core.tasks import running
from app.docs import DocsController
from app.docs.index import API_VERSION, ApiIndexController, RootIndexController
from app.ingest.receive import IngestRoute, IngestRoutes, Receiver
from app.latest.cache import LatestCache
from app.latest.generations import Generations
from app.latest.lean import LeanLatest
from app.live.cors import Cors
from app.live.shutdown import install as answer_held_requests_on_stop
from app.live.slots import StreamSlots
from app.notify.hub import LiveHub
from app.notify.wait import drain
from app.observe.logs import access_log_lifespan, configure_logging
from app.observe.metrics import metrics_lifespan
from app.observe.requests import RequestObserver
from app.profiles.contexts import DeviceContexts
from app.routes import api_route_handlers, public_route_handlers
from app.server.answer import JsonAnswer
from app.server.face import ServerFace, allow_every_method

log = logging.getLogger(__name__)
# At shutdown, the time held requests and streams get to answer before the worker closes.
SHUTDOWN_ANSWER_S = 3.0


def provide_principal(request: Request[Any, Any, Any]) -> Principal:
    principal: Principal = request.scope["state"]["principal"]
    return principal


def provide_pool(request: Request[Any, Any, Any]) -> asyncpg.Pool:
    pool: asyncpg.Pool = request.app.state.pool
    return pool


@asynccontextmanager
async def caches_lifespan(app: Litestar) -> AsyncIterator[None]:
    """The worker's key and /latest caches and its live hub (long polls and streams,
    app/notify/hub.py) on one listening connection, once the pool exists (list it after the
    pool's lifespan); no caches with Settings.auth_cache off, the hub always. At shutdown
    the hub first answers every held request and ends every stream."""
    settings: Settings = app.state.settings
    listener = Listener(settings)
    auth_cache = latest_cache = None
    if settings.auth_cache:
        auth_cache = AuthCache(app.state.pool, settings, listener)
        latest_cache = LatestCache(listener, app.state.latest_generations)
    # After the /latest cache: a held request wakes once its device's entry is dropped.
    live_hub = LiveHub(listener)
    try:
        await listener.listen()
    except (asyncpg.PostgresError, OSError) as error:
        log.warning("caches: cannot listen (%s); reading the database per request", error)
    app.state.auth_cache, app.state.latest_cache = auth_cache, latest_cache
    live_slots = StreamSlots(app.state.pool)
    app.state.live_hub, app.state.live_slots = live_hub, live_slots
    loops = [listener.run(), live_slots.run()]
    if auth_cache is not None:
        loops.append(auth_cache.run())
    try:
        async with running(*loops):
            yield
            await drain(live_hub, SHUTDOWN_ANSWER_S)
    finally:
        app.state.auth_cache = app.state.latest_cache = None
        await listener.close()
        if auth_cache is not None:
            await auth_cache.close()


@asynccontextmanager
async def frozen_startup_lifespan(app: Litestar) -> AsyncIterator[None]:
    """The last lifespan: what exists once the worker has started (modules, routes, the
    OpenAPI schema, pools and caches: some 85,000 objects) lives as long as the worker,
    so it is moved out of the garbage collector's reach (`gc.freeze`). A full collection
    walking it took 120-230 ms on the 2-core box, and under ingest load full collections
    came often enough to take 37% of a worker's CPU (py-spy)."""
    gc.freeze()
    yield


def create_app(settings: Settings | None = None) -> Litestar:
    settings = settings or process_settings()

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        app.state.pool = await create_pool(settings)
        app.state.settings = settings
        app.state.latest_generations = Generations(settings.latest_generations)
        # What is cached of one database belongs to its app (in placement mode a worker
        # runs one app per cluster): app/profiles/contexts.py, app/ingest/receive.py.
        app.state.device_contexts = DeviceContexts()
        app.state.receiver = Receiver(
            app.state.pool, app.state.device_contexts, app.state.latest_generations
        )
        try:
            yield
        finally:
            await app.state.pool.close()
            app.state.latest_generations.close()

    api = Router(
        path=API_PREFIX,
        route_handlers=[
            ApiIndexController,
            DocsController,
            HealthController,
            IdentityController,
            SubAccountController,
            *api_route_handlers(),
        ],
        middleware=[AuthMiddleware],
        before_request=check_integer_parameters,
        security=[{"apiKey": []}],
    )
    configure_logging(settings)
    app = Litestar(
        route_handlers=[api, RootIndexController, *public_route_handlers()],
        lifespan=[
            lifespan,
            deadlines_lifespan,
            caches_lifespan,
            routing_lifespan,
            background_lifespan,
            metrics_lifespan,
            access_log_lifespan,
            frozen_startup_lifespan,
        ],
        middleware=[RoutingMiddleware, DeadlineMiddleware],
        dependencies={
            "pool": Provide(provide_pool, sync_to_thread=False),
            "principal": Provide(provide_principal, sync_to_thread=False),
            "page": Provide(provide_page, sync_to_thread=False),
        },
        exception_handlers={Exception: handle_exception},
        # Plain JSON answers sent without Litestar's ASGIResponse (app/server/answer.py).
        response_class=JsonAnswer,
        request_max_body_size=MAX_BODY_BYTES,
        openapi_config=OpenAPIConfig(
            title="Device Telemetry Service",
            version=API_VERSION,
            description=(
                "Read the data of LoRaWAN sensors and gateways, and queue commands to them. "
                "Every request carries `Authorization: Bearer svc_live_...`. Errors use the "
                "envelope `{error: {code, message}}`."
            ),
            # Served by DocsController at /api/v1/openapi.json and /api/v1/docs; the
            # plugin's own catch-all routes must not shadow the API's 404s.
            path="/_schema",
            render_plugins=[JsonRenderPlugin()],
            components=Components(
                security_schemes={
                    "apiKey": SecurityScheme(
                        type="http", scheme="bearer", bearer_format="svc_live_..."
                    )
                }
            ),
        ),
        debug=False,
        # Logging is structlog's (app/observe/logs.py); Litestar must not replace it.
        logging_config=None,
    )
    check_route_options(route_handlers(app))
    allow_every_method(app)
    # Outside the router, so unknown paths and the auth middleware's answers are observed
    # (and, with CORS_ORIGINS, carry the CORS headers a browser page needs to read them).
    # The ingest routes and cached /latest answers below the framework, everything else
    # through it (app/ingest/receive.py IngestRoutes, app/latest/lean.py).
    handler: ASGIApp = ingest_below_framework(app, LeanLatest(app.asgi_handler, app))
    if settings.cors_origins:
        handler = Cors(handler, settings.cors_origins)
    app.asgi_handler = RequestObserver(handler, settings)
    return app


def ingest_below_framework(app: Litestar, inner: ASGIApp) -> Any:
    """`inner` (Litestar's ASGI handler, or what wraps it) behind the ingest routes
    answered below it (app/ingest/receive.py, IngestRoutes)."""
    from app.ingest.chirpstack_http import CHIRPSTACK
    from app.ingest.tts_http import TTS

    handlers = {getattr(h, "operation_id", None): h for h in route_handlers(app)}
    routes = [
        IngestRoute("/ingest/chirpstack", CHIRPSTACK, True, handlers["ingestChirpStack"]),
        IngestRoute("/ingest/tts", TTS, False, handlers["ingestTheThingsStack"]),
    ]
    return IngestRoutes(inner, app, routes, MAX_BODY_BYTES)


def route_handlers(app: Litestar) -> list[Any]:
    """Every route handler of the app (one per HTTP method and path)."""
    handlers: list[Any] = []
    for route in app.routes:
        if isinstance(route, HTTPRoute):
            handlers.extend(route.route_handlers)
        else:
            handlers.append(route.route_handler)
    return handlers


def build_app(settings: Settings) -> Any:
    """One app, or one per cluster behind the placement dispatcher when the Settings name
    a placement file (TELEMETRY_PLACEMENT, app/ops/placement.py), behind the checks made
    before routing (app/server/face.py)."""
    if settings.placement_file:
        from app.ops.placement import PlacementApp

        return ServerFace(PlacementApp(settings, create_app))
    return ServerFace(create_app(settings))


def app_factory() -> ServerFace:
    """Entry point for granian (`app.main:app_factory`, with `--factory`)."""
    answer_held_requests_on_stop()
    return build_app(process_settings())


def load_app(settings: Settings, *_: Any, **__: Any) -> ServerFace:
    """The app of one `telemetry serve` worker, with its parent's Settings (granian calls
    it in the worker process; extra arguments are granian's own and unused)."""
    answer_held_requests_on_stop()
    return build_app(settings)
