"""The application factory: routes, middleware, guards, dependencies and lifespan."""

from __future__ import annotations

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

from app.accounts.controller import HealthController, IdentityController, SubAccountController
from app.auth.cache import auth_cache_lifespan
from app.auth.middleware import AuthMiddleware
from app.auth.principal import Principal
from app.core.api import API_PREFIX
from app.core.config import Settings, load_settings
from app.core.db import create_pool
from app.core.errors import handle_exception
from app.core.routing import RoutingMiddleware, routing_lifespan
from app.docs import DocsController
from app.history.retention import retention_lifespan
from app.routes import api_route_handlers, public_route_handlers


def provide_principal(request: Request[Any, Any, Any]) -> Principal:
    principal: Principal = request.scope["state"]["principal"]
    return principal


def provide_pool(request: Request[Any, Any, Any]) -> asyncpg.Pool:
    pool: asyncpg.Pool = request.app.state.pool
    return pool


def create_app(settings: Settings | None = None) -> Litestar:
    settings = settings or load_settings()

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        app.state.pool = await create_pool(settings)
        app.state.settings = settings
        try:
            yield
        finally:
            await app.state.pool.close()

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
        security=[{"apiKey": []}],
    )
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    return Litestar(
        route_handlers=[api, *public_route_handlers()],
        lifespan=[lifespan, auth_cache_lifespan, routing_lifespan, retention_lifespan],
        middleware=[RoutingMiddleware],
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


def app_factory() -> Any:
    """Entry point for granian (`app.main:app_factory`, with `--factory`): one app, or one
    per cluster behind the placement dispatcher when TELEMETRY_PLACEMENT is set."""
    settings = load_settings()
    if settings.placement_file:
        from app.core.placement import PlacementApp

        return PlacementApp(settings, create_app)
    return create_app(settings)
