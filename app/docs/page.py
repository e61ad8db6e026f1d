"""The OpenAPI document and the interactive reference, both under /api/v1 and public (D1).

The reference is Swagger UI 5.24.2 served by the service itself from the pinned
`swagger-ui-py` package (Apache-2.0; its licence is served beside the assets), so the page
renders without internet, behind a strict proxy and under its own Content-Security-Policy:
no CDN, no inline script. The page also carries a plain link to `openapi.json`, visible
whether or not the script runs.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path
from typing import Any

from litestar import Request, Response, get
from litestar.enums import MediaType
from litestar.serialization import encode_json

from app.core.api import API_PREFIX
from app.core.errors import not_found
from app.core.pages import CONTENT_SECURITY_POLICY, PublicPages, service_get
from app.docs.document import complete

SWAGGER_UI_VERSION = "5.24.2"
ASSETS_PATH = f"/docs/swagger-ui-{SWAGGER_UI_VERSION}"
_ASSET_TYPES = {
    "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
    "swagger-ui.css": "text/css; charset=utf-8",
    "favicon-32x32.png": "image/png",
    "LICENSE": "text/plain; charset=utf-8",
}
_ASSETS = f"{API_PREFIX}{ASSETS_PATH}"

_DOCS_PAGE = f"""<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Device Telemetry Service API</title>
  <link rel="icon" type="image/png" href="{_ASSETS}/favicon-32x32.png">
  <link rel="stylesheet" href="{_ASSETS}/swagger-ui.css">
  <style>#plain {{ font: 14px sans-serif; margin: 12px 20px; }}</style>
</head>
<body>
  <p id="plain">Device Telemetry Service API, version 1. The machine-readable contract is
    <a href="{API_PREFIX}/openapi.json">{API_PREFIX}/openapi.json</a> (OpenAPI 3.1); the
    interactive reference below is Swagger UI {SWAGGER_UI_VERSION}, served by this service
    (<a href="{_ASSETS}/LICENSE">licence</a>).</p>
  <noscript><p>The interactive reference needs JavaScript; the document above does not.</p>
  </noscript>
  <div id="swagger-ui"></div>
  <script src="{_ASSETS}/swagger-ui-bundle.js"></script>
  <script src="{API_PREFIX}/docs/init.js"></script>
</body>
</html>
""".encode()

_INIT_SCRIPT = f"""window.ui = SwaggerUIBundle({{
  url: "{API_PREFIX}/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: null,
  persistAuthorization: false
}});
""".encode()


@cache
def _assets_dir() -> Path:
    spec = importlib.util.find_spec("swagger_ui")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the swagger-ui-py package is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "static"


@cache
def _asset(name: str) -> bytes:
    return (_assets_dir() / name).read_bytes()


class DocsController(PublicPages):
    path = "/"

    @service_get(
        "/openapi.json",
        "getOpenApiDocument",
        "This OpenAPI 3.1 document",
        "The machine-readable contract of the API. No key.",
        media_type=MediaType.JSON,
    )
    def openapi_document(self, request: Request[Any, Any, Any]) -> Response[bytes]:
        app = request.app
        body: bytes | None = getattr(app.state, "openapi_body", None)
        if body is None:
            body = encode_json(complete(app.openapi_schema.to_schema(), app))
            app.state.openapi_body = body
        return Response(body, media_type=MediaType.JSON)

    @service_get(
        "/docs",
        "getDocs",
        "The interactive reference (Swagger UI, served by this service)",
        "An HTML page; works without internet access. No key.",
        media_type=MediaType.HTML,
    )
    def interactive_reference(self) -> Response[bytes]:
        return Response(
            _DOCS_PAGE,
            headers={"Content-Security-Policy": CONTENT_SECURITY_POLICY},
        )

    @get("/docs/init.js", media_type="text/javascript; charset=utf-8", sync_to_thread=False)
    def init_script(self) -> Response[bytes]:
        return Response(_INIT_SCRIPT, headers={"Cache-Control": "no-cache"})

    @get(f"{ASSETS_PATH}/{{name:str}}", sync_to_thread=False)
    def asset(self, name: str) -> Response[bytes]:
        media_type = _ASSET_TYPES.get(name)
        if media_type is None:
            raise not_found("asset")
        # The version is in the path, so an asset never changes under its URL.
        return Response(
            _asset(name),
            media_type=media_type,
            headers={"Cache-Control": "public, max-age=31536000, immutable"},
        )
