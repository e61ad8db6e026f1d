"""The interactive reference (page.py), the completed OpenAPI document (document.py) and
what it says beyond the code's types (descriptions.py, examples.py)."""

from app.docs.page import SWAGGER_UI_VERSION, DocsController

__all__ = ["SWAGGER_UI_VERSION", "DocsController"]
