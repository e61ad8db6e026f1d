"""GET / and GET /api/v1: a small JSON index for whoever arrives without a map."""

from __future__ import annotations

from typing import Annotated

import msgspec
from litestar import Controller
from litestar.handlers import HTTPRouteHandler
from msgspec import Meta

from app.core.api import API_PREFIX, Single
from app.core.pages import service_get

API_VERSION = "1.0.0"


class ServiceIndex(msgspec.Struct):
    name: Annotated[str, Meta(description="The service.")]
    version: Annotated[str, Meta(description="Version of the API (also in openapi.json).")]
    docs: Annotated[str, Meta(description="Path of the interactive reference.")]
    openapi: Annotated[str, Meta(description="Path of the OpenAPI 3.1 document.")]
    health: Annotated[str, Meta(description="Path of the health check (no key).")]


INDEX = Single(
    ServiceIndex(
        name="Device Telemetry Service",
        version=API_VERSION,
        docs=f"{API_PREFIX}/docs",
        openapi=f"{API_PREFIX}/openapi.json",
        health=f"{API_PREFIX}/health",
    )
)
DESCRIPTION = "Where the reference, the OpenAPI document and the health check are. No key."


def index_route(operation_id: str, summary: str) -> HTTPRouteHandler:
    """The index's route: the same answer at the root and in /api/v1, under two names."""

    def index(self: Controller) -> Single[ServiceIndex]:
        return INDEX

    return service_get("/", operation_id, summary, DESCRIPTION)(index)


class ApiIndexController(Controller):
    """Mounted in the /api/v1 router (public: no key)."""

    path = "/"
    opt = {"public": True}
    api_index = index_route("getApiIndex", "Index of the API")


class RootIndexController(Controller):
    """Mounted at the root, outside /api/v1."""

    path = "/"
    index = index_route("getIndex", "Index of the service")
