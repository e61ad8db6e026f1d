"""Every `$ref` of the document resolvable inside the document.

Litestar writes a schema that it inlines (a request body's struct) with references to
`#/$defs/<Name>`, a place of the struct's own JSON Schema that the OpenAPI document does not
have; the named schema is in `components/schemas`. Validators that resolve lazily never
noticed, but code generators read every reference (openapi-python-client left the members
route out of the Python client over it), so such references are pointed at the component.
"""

from __future__ import annotations

from typing import Any

DEFS = "#/$defs/"
COMPONENTS = "#/components/schemas/"


def resolve_defs(document: dict[str, Any]) -> None:
    """Repoints `#/$defs/<Name>` at `#/components/schemas/<Name>` (in place) when the
    component exists; a reference to nothing is left for the document tests to report."""
    schemas = document.get("components", {}).get("schemas", {})

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith(DEFS):
                name = ref[len(DEFS) :]
                if name in schemas:
                    node["$ref"] = COMPONENTS + name
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(document)
