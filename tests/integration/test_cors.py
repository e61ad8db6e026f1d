"""CORS for browser pages (analytics.md section 4): CORS_ORIGINS, preflight, allowed and
exposed headers; no origin allowed by default."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import msgspec
import pytest
from litestar.testing import AsyncTestClient

from app.core.config import Settings, load_settings
from app.main import create_app
from testkit.factories import World, load
from tests.support.helpers import assert_error, bearer

PAGE = "https://dash.example.com"
PREFLIGHT = {
    "Origin": PAGE,
    "Access-Control-Request-Method": "GET",
    "Access-Control-Request-Headers": "authorization, if-none-match, prefer",
}


@pytest.fixture(scope="module")
async def cors_client(settings: Settings, migrated: str) -> AsyncIterator[AsyncTestClient]:
    configured = msgspec.structs.replace(settings, cors_origins=(PAGE, "http://127.0.0.1:8080"))
    async with AsyncTestClient(app=create_app(configured)) as test_client:
        yield test_client


def test_the_setting_reads_a_comma_list() -> None:
    assert load_settings({}).cors_origins == ()
    origins = load_settings({"CORS_ORIGINS": f"{PAGE}, http://localhost:3000"}).cors_origins
    assert origins == (PAGE, "http://localhost:3000")


async def test_no_origin_is_allowed_by_default(client: AsyncTestClient) -> None:
    preflight = await client.options("/api/v1/latest", headers=PREFLIGHT)
    assert "access-control-allow-origin" not in preflight.headers
    response = await client.get("/api/v1/health", headers={"Origin": PAGE})
    assert "access-control-allow-origin" not in response.headers


async def test_preflight_and_answers_to_an_allowed_origin(
    cors_client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    w = World()
    _, sa, device = w.tenancy_with_device()
    key = w.key(sa, scopes=["telemetry:read"])
    await load(pool, w)

    for path in ("/api/v1/latest", "/api/v1/stream", f"/api/v1/devices/{device['id']}/latest"):
        preflight = await cors_client.options(path, headers=PREFLIGHT)
        assert preflight.status_code == 204, path
        assert preflight.headers["access-control-allow-origin"] == PAGE
        allowed = {
            h.strip().lower() for h in preflight.headers["access-control-allow-headers"].split(",")
        }
        assert {"authorization", "if-none-match", "prefer"} <= allowed
        assert "GET" in preflight.headers["access-control-allow-methods"]

    response = await cors_client.get(
        f"/api/v1/devices/{device['id']}/latest", headers=bearer(key, Origin=PAGE)
    )
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == PAGE
    exposed = {
        h.strip().lower() for h in response.headers["access-control-expose-headers"].split(",")
    }
    assert {
        "etag",
        "retry-after",
        "x-ratelimit-limit",
        "x-ratelimit-remaining",
        "preference-applied",
    } <= exposed
    # An error is readable by the page too.
    refused = await cors_client.get("/api/v1/latest", headers={"Origin": PAGE})
    assert_error(refused, 401, "unauthorized")
    assert refused.headers["access-control-allow-origin"] == PAGE

    # Another origin gets nothing of CORS; its preflight is not approved.
    other = {**PREFLIGHT, "Origin": "https://evil.example"}
    preflight = await cors_client.options("/api/v1/latest", headers=other)
    assert "access-control-allow-origin" not in preflight.headers
    response = await cors_client.get(
        "/api/v1/latest", headers=bearer(key, Origin="https://evil.example")
    )
    assert response.status_code == 200
    assert "access-control-allow-origin" not in response.headers
