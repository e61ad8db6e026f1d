"""What the pages the service serves to browsers share (the interactive reference under
/api/v1/docs and the live page under /live/): their Content-Security-Policy, and the route
of a public page or document of the Service tag, in a controller of public pages."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from litestar import Controller, get
from litestar.handlers import HTTPRouteHandler

# Everything a page loads or asks is on this service; Swagger UI and uPlot set inline
# styles, and Swagger UI loads images as data: URLs.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'"
)


class PublicPages(Controller):
    """A controller of pages and their assets: public (no key), and out of the OpenAPI
    document but for the routes declared with `service_get`."""

    opt = {"public": True}
    include_in_schema = False


def service_get(
    path: str, operation_id: str, summary: str, description: str, **options: Any
) -> Callable[[Callable[..., Any]], HTTPRouteHandler]:
    """A documented route of the Service tag that needs no key (`security=[]`; its
    controller's opt makes it public) and answers without blocking work."""
    return get(
        path,
        operation_id=operation_id,
        summary=summary,
        description=description,
        tags=["Service"],
        security=[],
        include_in_schema=True,
        sync_to_thread=False,
        **options,
    )
