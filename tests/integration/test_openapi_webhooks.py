"""The webhook events in the served OpenAPI document (issue 29, item 4), and every reference
of the document resolvable inside it (what code generators need, clients/generate.py)."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
from litestar.testing import AsyncTestClient

from app.docs.webhooks import SCHEMAS, schema_name


async def _document(client: AsyncTestClient) -> dict[str, Any]:
    response = await client.get("/api/v1/openapi.json")
    assert response.status_code == 200
    document: dict[str, Any] = response.json()
    return document


def _references(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [ref for value in node.values() for ref in _references(value)]
    if isinstance(node, list):
        return [ref for value in node for ref in _references(value)]
    return []


def _resolve(document: dict[str, Any], ref: str) -> Any:
    assert ref.startswith("#/"), ref
    node: Any = document
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        assert isinstance(node, dict) and part in node, f"{ref} points at nothing"
        node = node[part]
    return node


def _undescribed(properties: dict[str, Any]) -> dict[str, Any]:
    return {
        name: {k: v for k, v in prop.items() if k != "description"}
        for name, prop in properties.items()
    }


async def test_every_reference_resolves_inside_the_document(client: AsyncTestClient) -> None:
    # Before the fix the members route's body referred to `#/$defs/Role`, a place the
    # document does not have, and openapi-python-client left the route out.
    document = await _document(client)
    references = _references(document)
    assert references
    for ref in sorted(set(references)):
        _resolve(document, ref)


async def test_every_event_type_is_a_webhook_with_its_schema_headers_and_example(
    client: AsyncTestClient,
) -> None:
    document = await _document(client)
    files = {path.stem: json.loads(path.read_text()) for path in SCHEMAS.glob("*.json")}
    assert len(files) == 16
    assert set(document["webhooks"]) == set(files)
    operation_ids = set()
    for event_type, source in files.items():
        operation = document["webhooks"][event_type]["post"]
        operation_ids.add(operation["operationId"])
        media = operation["requestBody"]["content"]["application/json"]
        schema = _resolve(document, media["schema"]["$ref"])
        assert media["schema"]["$ref"] == f"#/components/schemas/{schema_name(event_type)}"
        # The schema is the file's (loaded, not a copy): everything but its id and dialect,
        # with the envelope's fields described.
        for key in ("type", "required", "additionalProperties"):
            assert schema[key] == source[key], (event_type, key)
        assert _undescribed(schema["properties"]) == _undescribed(source["properties"])
        # The example is a valid event of the type, by the file's own schema.
        example = media["example"]
        assert example["type"] == event_type
        jsonschema.Draft202012Validator(
            source, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
        ).validate(example)
        headers = {p["name"]: p for p in operation["parameters"] if p["in"] == "header"}
        assert set(headers) == {"webhook-id", "webhook-timestamp", "webhook-signature"}
        assert all(header["required"] for header in headers.values())
        assert "2XX" in operation["responses"]
    assert len(operation_ids) == len(files)
    assert "Webhooks" in {tag["name"] for tag in document["tags"]}
