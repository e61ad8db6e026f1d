"""The OpenAPI document against the routes themselves, and the newcomer's first answers.

Schemathesis (test_schemathesis.py) compares the document with live answers; these check
what it cannot: that every route is documented, named, described and free of Litestar's
internal names, and that errors list their codes.
"""

from __future__ import annotations

from typing import Any

import asyncpg
from litestar.routes import HTTPRoute
from litestar.testing import AsyncTestClient

from app.docs.catalog import ERROR_CODES
from app.main import create_app
from tests.factories import World, load
from tests.helpers import bearer


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
    assert params["agg"]["schema"]["enum"] == ["avg", "min", "max", "sum", "count", "last"]
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
    assert body["anyOf"] == [{"required": ["key"]}, {"required": ["templateId"]}]
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
    p, sa = w.tenancy({})
    device = w.device(sa, w.profile(p, fields=[w.field("temperature"), w.field("humidity")]))
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
