"""The foundation answers: health, unknown routes, the error envelope, OpenAPI."""

from __future__ import annotations

from litestar.testing import AsyncTestClient

from tests.support.helpers import assert_error


async def test_health_reports_database(client: AsyncTestClient) -> None:
    response = await client.get("/api/v1/health")
    assert response.status_code == 200
    assert response.json() == {"data": {"status": "ok", "database": "ok"}}


async def test_unknown_path_is_enveloped_404_without_key(client: AsyncTestClient) -> None:
    response = await client.get("/api/v1/no-such-thing")
    assert_error(response, 404, "not_found")


async def test_missing_key_is_401_with_challenge(client: AsyncTestClient) -> None:
    response = await client.get("/api/v1/me")
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"
    assert response.json()["error"]["code"] == "unauthorized"


async def test_openapi_document_is_public(client: AsyncTestClient) -> None:
    response = await client.get("/api/v1/openapi.json")
    assert response.status_code == 200
    assert response.json()["openapi"].startswith("3.1")
