"""The application factory: routes, middleware, guards, dependencies and lifespan."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
from litestar import Litestar, Request, Router
from litestar.di import Provide
from litestar.openapi.config import OpenAPIConfig
from litestar.openapi.plugins import SwaggerRenderPlugin
from litestar.openapi.spec import Components, SecurityScheme
from litestar.routes import HTTPRoute

from app.accounts.controller import HealthController, IdentityController, SubAccountController
from app.auth.cache import AuthCache
from app.auth.guards import check_route_options
from app.auth.middleware import AuthMiddleware
from app.auth.principal import Principal
from app.core.api import API_PREFIX, check_integer_parameters
from app.core.config import Settings
from app.core.config import settings as process_settings
from app.core.db import create_pool
from app.core.errors import handle_exception
from app.core.face import ServerFace
from app.core.listener import Listener
from app.docs import DocsController
from app.history.retention import retention_lifespan
from app.routes import api_route_handlers, public_route_handlers
from app.telemetry.generations import Generations
from app.telemetry.latest_cache import LatestCache

log = logging.getLogger(__name__)


def provide_principal(request: Request[Any, Any, Any]) -> Principal:
    principal: Principal = request.scope["state"]["principal"]
    return principal


def provide_pool(request: Request[Any, Any, Any]) -> asyncpg.Pool:
    pool: asyncpg.Pool = request.app.state.pool
    return pool


@asynccontextmanager
async def caches_lifespan(app: Litestar) -> AsyncIterator[None]:
    """The worker's key and /latest caches on one listening connection, once the pool
    exists (list it after the pool's lifespan); none with Settings.auth_cache off."""
    settings: Settings = app.state.settings
    if not settings.auth_cache:
        yield
        return
    listener = Listener(settings)
    auth_cache = AuthCache(app.state.pool, settings, listener)
    latest_cache = LatestCache(listener, app.state.latest_generations)
    try:
        await listener.listen()
    except (asyncpg.PostgresError, OSError) as error:
        log.warning("caches: cannot listen (%s); reading the database per request", error)
    app.state.auth_cache, app.state.latest_cache = auth_cache, latest_cache
    tasks = [asyncio.create_task(listener.run()), asyncio.create_task(auth_cache.run())]
    try:
        yield
    finally:
        for task in tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        app.state.auth_cache = app.state.latest_cache = None
        await listener.close()
        await auth_cache.close()


def create_app(settings: Settings | None = None) -> Litestar:
    settings = settings or process_settings()

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        app.state.pool = await create_pool(settings)
        app.state.settings = settings
        app.state.latest_generations = Generations(settings.latest_generations)
        try:
            yield
        finally:
            await app.state.pool.close()
            app.state.latest_generations.close()

    api = Router(
        path=API_PREFIX,
        route_handlers=[
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
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    app = Litestar(
        route_handlers=[api, *public_route_handlers()],
        lifespan=[lifespan, caches_lifespan, retention_lifespan],
        dependencies={
            "pool": Provide(provide_pool, sync_to_thread=False),
            "principal": Provide(provide_principal, sync_to_thread=False),
        },
        exception_handlers={Exception: handle_exception},
        request_max_body_size=settings.max_body_bytes,
        openapi_config=OpenAPIConfig(
            title="Device Telemetry Service",
            version="1.0.0",
            description=(
                "Read the data of LoRaWAN sensors and gateways, and queue commands to them. "
                "Every request carries `Authorization: Bearer svc_live_...`. Errors use the "
                "envelope `{error: {code, message}}`."
            ),
            # Served by DocsController at /api/v1/openapi.json and /api/v1/docs; the
            # plugin's own catch-all routes must not shadow the API's 404s.
            path="/_schema",
            render_plugins=[SwaggerRenderPlugin(path="/swagger")],
            components=Components(
                security_schemes={
                    "apiKey": SecurityScheme(
                        type="http", scheme="bearer", bearer_format="svc_live_..."
                    )
                }
            ),
        ),
        debug=False,
    )
    check_route_options(route_handlers(app))
    return app


def route_handlers(app: Litestar) -> list[Any]:
    """Every route handler of the app (one per HTTP method and path)."""
    handlers: list[Any] = []
    for route in app.routes:
        if isinstance(route, HTTPRoute):
            handlers.extend(route.route_handlers)
        else:
            handlers.append(route.route_handler)
    return handlers


def app_factory() -> ServerFace:
    """Entry point for granian (`app.main:app_factory`, with `--factory`): the app behind
    the checks made before routing (app/core/face.py)."""
    return ServerFace(create_app())


def load_app(settings: Settings, *_: Any, **__: Any) -> ServerFace:
    """The app of one `telemetry serve` worker, with its parent's Settings (granian calls
    it in the worker process; extra arguments are granian's own and unused), behind the
    checks made before routing (app/core/face.py)."""
    return ServerFace(create_app(settings))
