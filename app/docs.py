"""The OpenAPI document and the interactive reference, both under /api/v1 and public (D1)."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, Response, get
from litestar.enums import MediaType

_DOCS_PAGE = b"""<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Device Telemetry Service API</title>
  <link rel="stylesheet" href="https://cdn.jsdelivr.net/npm/swagger-ui-dist@5/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="https://cdn.jsdelivr.net/npm/swagger-ui-dist@5/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({ url: "openapi.json", dom_id: "#swagger-ui", deepLinking: true });
  </script>
</body>
</html>
"""


class DocsController(Controller):
    path = "/"
    opt = {"public": True}
    include_in_schema = False

    @get("/openapi.json", media_type=MediaType.JSON, sync_to_thread=False)
    def openapi_document(self, request: Request[Any, Any, Any]) -> Response[dict[str, Any]]:
        return Response(request.app.openapi_schema.to_schema())

    @get("/docs", media_type=MediaType.HTML, sync_to_thread=False)
    def interactive_reference(self) -> Response[bytes]:
        return Response(_DOCS_PAGE)
