"""The live page (issue 24): `/live/`, a small dashboard of one site's devices whose latest
values update from `GET /api/v1/stream`, with a chart of one device's last day from
`/history`. Served by the app when `TELEMETRY_LIVE_PAGE=1` (Settings.live_page; the demo,
scripts/demo.sh, turns it on and prints its URL); otherwise its paths are 404.

Plain HTML and JavaScript from app/live/static/, no build step and nothing from outside:
the chart library, uPlot 1.6.32 (MIT, its licence beside it), is vendored and pinned.
The page needs no key to load; it asks the API with the key given in its fragment
(`/live/#key=svc_live_...&site=<id>`, never sent to a server) or typed into its form, in
the Authorization header only.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from litestar import Request, Response, get

from app.core.errors import not_found
from app.core.pages import CONTENT_SECURITY_POLICY, PublicPages, service_get

UPLOT_VERSION = "1.6.32"
STATIC = Path(__file__).parent / "static"
_TYPES = {
    "index.html": "text/html",
    "live.js": "text/javascript",
    "live.css": "text/css",
    f"uplot-{UPLOT_VERSION}/uPlot.iife.min.js": "text/javascript",
    f"uplot-{UPLOT_VERSION}/uPlot.min.css": "text/css",
    f"uplot-{UPLOT_VERSION}/LICENSE": "text/plain",
}


@cache
def _file(name: str) -> bytes:
    return (STATIC / name).read_bytes()


def _serve(request: Request[Any, Any, Any], name: str) -> Response[bytes]:
    media_type = _TYPES.get(name)
    if media_type is None or not request.app.state.settings.live_page:
        raise not_found("page")
    return Response(
        _file(name),
        media_type=media_type,
        headers={"Content-Security-Policy": CONTENT_SECURITY_POLICY, "Cache-Control": "no-cache"},
    )


class LivePageController(PublicPages):
    path = "/live"

    @service_get(
        "/",
        "getLivePage",
        "The live page (a small dashboard; TELEMETRY_LIVE_PAGE=1)",
        (
            "An HTML page showing one site's devices with their latest values updating from "
            "`GET /api/v1/stream` and a chart of one device's last day. No key to load it: "
            "it takes one in its fragment (`#key=...&site=...`) or a form. 404 unless the "
            "server runs with `TELEMETRY_LIVE_PAGE=1`."
        ),
        media_type="text/html",
    )
    def page(self, request: Request[Any, Any, Any]) -> Response[bytes]:
        return _serve(request, "index.html")

    @get("/{name:path}", sync_to_thread=False)
    def asset(self, request: Request[Any, Any, Any], name: str) -> Response[bytes]:
        return _serve(request, name.lstrip("/"))
