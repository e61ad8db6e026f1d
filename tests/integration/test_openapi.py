"""The OpenAPI document against the routes themselves, and the newcomer's first answers.

Schemathesis (test_schemathesis.py) compares the document with live answers; these check
what it cannot: that every route is documented, named, described and free of Litestar's
internal names, and that errors list their codes.
"""

from __future__ import annotations

import re
from typing import Any

import asyncpg
from litestar.routes import HTTPRoute
from litestar.testing import AsyncTestClient

from app.docs.descriptions import ERROR_CODES, PARAM_RULES
from app.docs.document import referring_nodes
from app.main import create_app
from testkit.factories import World, load
from tests.support.helpers import bearer


async def _document(client: AsyncTestClient) -> dict[str, Any]:
    response = await client.get("/api/v1/openapi.json")
    assert response.status_code == 200
    document: dict[str, Any] = response.json()
    return document


def _operations(document: dict[str, Any]) -> dict[str, tuple[str, str, dict[str, Any]]]:
    found = {}
    for path, item in document["paths"].items():
        for method, operation in item.items():
            found[operation["operationId"]] = (method, path, operation)
    return found


async def test_every_route_is_in_the_document(client: AsyncTestClient) -> None:
    operations = _operations(await _document(client))
    app = create_app(client.app.state.settings)
    for route in app.routes:
        if not isinstance(route, HTTPRoute):
            continue
        for handler in route.route_handlers:
            if not handler.resolve_include_in_schema():
                continue
            assert isinstance(handler.operation_id, str), route.path
            method, _, _ = operations[handler.operation_id]
            assert method.upper() in handler.http_methods


async def test_names_descriptions_and_codes(client: AsyncTestClient) -> None:
    document = await _document(client)
    schemas = document["components"]["schemas"]
    assert not [name for name in schemas if "." in name or name.startswith(("Single_", "Listing_"))]
    assert {"DeviceList", "DeviceDetailResponse", "LatestValuesResponse"} <= set(schemas)
    for name, schema in schemas.items():
        for prop, spec in (schema.get("properties") or {}).items():
            described = spec.get("description") or any(
                alt.get("description") for alt in spec.get("anyOf", []) + spec.get("oneOf", [])
            )
            assert described, f"{name}.{prop} has no description"
    text = str(document)
    assert "additionalProp1" not in text
    for operation_id, (_, _, operation) in _operations(document).items():
        for parameter in operation.get("parameters", []):
            assert parameter.get("description"), f"{operation_id} {parameter['name']}"
        for status, response in operation["responses"].items():
            if int(status) < 400 or (operation_id, status) == ("getHealth", "503"):
                continue
            content = response["content"]["application/json"]
            codes = content["schema"]["properties"]["error"]["properties"]["code"]["enum"]
            assert codes and all(ERROR_CODES[c][0] == int(status) for c in codes), operation_id
            assert set(content["examples"]) == set(codes)
            for code in codes:
                assert f"`{code}`" in response["description"]


async def test_contract_details(client: AsyncTestClient) -> None:
    operations = _operations(await _document(client))
    _, _, history = operations["getDeviceHistory"]
    params = {p["name"]: p for p in history["parameters"]}
    assert all(params[n]["required"] for n in ("field", "from", "to"))
    # analytics.md section 3: the counter, time-weighted and state aggregates beside the six.
    assert params["agg"]["schema"]["enum"] == [
        *("avg", "min", "max", "sum", "count", "last"),
        *("increase", "twa", "integral", "duration"),
    ]
    assert {k: v for k, v in params["maxPoints"]["schema"].items() if k != "description"} == {
        "type": "integer",
        "minimum": 2,
        "maximum": 10000,
    }
    assert params["fill"]["schema"]["enum"] == ["none", "null", "previous", "linear", "zero"]
    assert "pattern" in params["resolution"]["schema"]
    assert set(history["responses"]["403"]["content"]["application/json"]["examples"]) == {
        "insufficient_scope",
        "multi_site_disabled",
        "outside_retention",
    }
    _, _, devices = operations["listDevices"]
    params = {p["name"]: p for p in devices["parameters"]}
    assert params["limit"]["schema"]["minimum"] == 1 and params["limit"]["schema"]["maximum"] == 200
    assert params["status"]["schema"]["enum"] == ["inventory", "assigned", "archived", "all"]
    assert params["subAccountId"]["schema"]["format"] == "uuid"
    assert set(devices["responses"]["401"]["content"]["application/json"]["examples"]) == {
        "unauthorized",
        "key_expired",
        "key_revoked",
    }
    assert set(devices["responses"]["429"]["headers"]) >= {"Retry-After", "X-RateLimit-Limit"}
    _, _, latest = operations["getDeviceLatest"]
    assert "304" in latest["responses"]
    assert {"ETag", "Cache-Control"} <= set(latest["responses"]["200"]["headers"])
    assert any(p["name"] == "If-None-Match" for p in latest["parameters"])
    _, _, members = operations["listMembers"]
    assert "subaccount_key_required" in str(members["responses"]["403"])
    assert "503" in operations["getHealth"][2]["responses"]
    _, _, send = operations["sendDownlink"]
    body = send["requestBody"]["content"]["application/json"]["schema"]
    # Not null: a null key with no templateId names no template (a 400).
    named = [(b["required"], b["properties"][b["required"][0]]["type"]) for b in body["anyOf"]]
    assert named == [(["key"], "string"), (["templateId"], "string")]
    for public in ("getHealth", "getOpenApiDocument", "getDocs", "getApiIndex", "getIndex"):
        assert operations[public][2]["security"] == [], public
    method, path, ingest = operations["ingestChirpStack"]
    assert (method, path, ingest["tags"]) == ("post", "/ingest/chirpstack", ["Ingest"])
    assert ingest["security"] == [{"integrationToken": []}]


async def test_index_answers_where_things_are(client: AsyncTestClient) -> None:
    for path in ("/", "/api/v1"):
        response = await client.get(path)
        assert response.status_code == 200
        data = response.json()["data"]
        assert data["docs"] == "/api/v1/docs"
        assert data["openapi"] == "/api/v1/openapi.json"
        assert data["name"] == "Device Telemetry Service"


async def test_history_relative_times_and_helpful_messages(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    w = World()
    p, _, device = w.tenancy_with_device([w.field("temperature"), w.field("humidity")])
    w.uplink(device, at="now-PT2H", values={"temperature": 20.5})
    key = w.key(p, ["telemetry:read"])
    await load(pool, w)
    headers = bearer(key)
    url = f"/api/v1/devices/{device['id']}/history"
    relative = await client.get(
        url, params={"field": "temperature", "from": "now-P1D", "to": "now"}, headers=headers
    )
    assert relative.status_code == 200, relative.text
    assert [p["value"] for p in relative.json()["data"]["points"]] == [20.5]
    recent = await client.get(
        url, params={"field": "temperature", "from": "now-PT15M", "to": "now"}, headers=headers
    )
    assert recent.json()["data"]["points"] == []
    unknown = await client.get(
        url, params={"field": "temp", "from": "now-P1D", "to": "now"}, headers=headers
    )
    assert unknown.status_code == 400
    message = unknown.json()["error"]["message"]
    assert "temperature, humidity, signal_quality" in message
    bad = await client.get(
        url, params={"field": "temperature", "from": "yesterday", "to": "now"}, headers=headers
    )
    assert bad.status_code == 400
    assert "2026-11-23T08:00:00Z" in bad.json()["error"]["message"]
    bad_relative = await client.get(
        url, params={"field": "temperature", "from": "now-1d", "to": "now"}, headers=headers
    )
    assert bad_relative.status_code == 400
    assert "now-P1D" in bad_relative.json()["error"]["message"]


async def test_every_reference_resolves(client: AsyncTestClient) -> None:
    """Issue 23, item 7: `POST /members` referred to `#/$defs/Role`, which is nowhere."""
    document = await _document(client)
    references = [node["$ref"] for node in referring_nodes(document)]
    assert references
    for reference in references:
        assert reference.startswith("#/"), reference
        target: Any = document
        for step in reference[2:].split("/"):
            assert isinstance(target, dict) and step in target, reference
            target = target[step]


async def test_options_lists_every_method_of_a_path(client: AsyncTestClient) -> None:
    """Issue 23, item 7: `OPTIONS /api/v1/members` answered `Allow: OPTIONS, POST` though
    GET is there too (and the downlinks path left out POST)."""
    document = await _document(client)
    for path, item in document["paths"].items():
        documented = {method.upper() for method in item} | {"OPTIONS"}
        concrete = re.sub(r"\{[^}]+\}", "70b3d57ed0000001", path)
        response = await client.options(concrete)
        assert response.status_code == 204, (path, response.text)
        # The server's face adds HEAD next to GET (app/server/face.py); this app has no face.
        allowed = {method.strip() for method in response.headers["allow"].split(",")}
        assert allowed == documented, path


async def test_the_documented_search_bound_is_enforced(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    """Issue 23, item 7: `search` over its documented maxLength of 200 was accepted."""
    document = await _document(client)
    _, _, devices = _operations(document)["listDevices"]
    bound = next(p for p in devices["parameters"] if p["name"] == "search")["schema"]["maxLength"]
    assert bound == 200
    w = World()
    partner, _ = w.tenancy({})
    key = w.key(partner, ["devices:read", "telemetry:read"])
    await load(pool, w)
    export = {"from": "now-P1D", "to": "now"}
    for path, params in (("/api/v1/devices", {}), ("/api/v1/export", export)):
        within = await client.get(
            path, params={**params, "search": "a" * bound}, headers=bearer(key)
        )
        assert within.status_code == 200, (path, within.text)
        over = await client.get(
            path, params={**params, "search": "a" * (bound + 1)}, headers=bearer(key)
        )
        assert over.status_code == 400, path
        assert over.json()["error"] == {
            "code": "invalid_parameter",
            "message": "search: must be at most 200 characters",
        }


async def test_rules_no_schema_can_state_are_in_the_descriptions(client: AsyncTestClient) -> None:
    """Issue 23, item 7: valid-by-document requests were refused by rules the document
    did not state; each is now in its parameter's description."""
    operations = _operations(await _document(client))
    for operation_id, rules in PARAM_RULES.items():
        _, _, operation = operations[operation_id]
        described = {p["name"]: p["description"] for p in operation["parameters"]}
        for name, rule in rules.items():
            assert described[name].endswith(rule), (operation_id, name)
