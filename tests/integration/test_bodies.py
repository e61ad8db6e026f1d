"""JSON request bodies: media type, size, syntax, strict typing (decisions D5, D17, D18)."""

from __future__ import annotations

from typing import Any

import asyncpg
from litestar.testing import AsyncTestClient

from testkit.factories import World, load
from tests.support.helpers import assert_error, bearer
from tests.support.servers import LiveServer


async def make_key(pool: asyncpg.Pool) -> str:
    world = World()
    partner, sub = world.tenancy({}, plan={"apiWrite": True, "retentionDays": 30})
    world.user(partner, email="body@example.com")
    key = world.key(sub, scopes=["members:read", "members:manage", "downlinks:write"])
    await load(pool, world)
    return key


async def post(client: AsyncTestClient, key: str, content: bytes, content_type: str | None) -> Any:
    headers = bearer(key)
    if content_type is not None:
        headers["Content-Type"] = content_type
    return await client.post("/api/v1/members/validate", content=content, headers=headers)


async def test_media_type_must_be_json(client: AsyncTestClient, pool: asyncpg.Pool) -> None:
    key = await make_key(pool)
    body = b'{"email": "body@example.com", "password": "x"}'
    for content_type in (None, "text/plain", "application/x-www-form-urlencoded", "text/json"):
        response = await post(client, key, body, content_type)
        assert response.status_code == 415, content_type
        assert response.json() == {
            "error": {
                "code": "unsupported_media_type",
                "message": "Content-Type must be application/json",
            }
        }
    for content_type in ("application/json", "application/json; charset=utf-8", "Application/JSON"):
        response = await post(client, key, body, content_type)
        assert response.status_code == 401, content_type
        assert response.json()["error"]["code"] == "invalid_credentials"


async def test_body_over_64_kib_is_413(client: AsyncTestClient, pool: asyncpg.Pool) -> None:
    key = await make_key(pool)
    big = b'{"email": "body@example.com", "password": "' + b"x" * (64 * 1024) + b'"}'
    response = await post(client, key, big, "application/json")
    assert_error(response, 413, "payload_too_large")
    # Exactly 64 KiB is still accepted.
    head = b'{"email": "body@example.com", "password": "'
    exact = head + b"x" * (64 * 1024 - len(head) - 2) + b'"}'
    assert len(exact) == 64 * 1024
    response = await post(client, key, exact, "application/json")
    assert response.status_code == 401


async def test_body_over_64_kib_is_413_on_the_real_server(
    live_server: LiveServer, pool: asyncpg.Pool
) -> None:
    key = await make_key(pool)
    big = b'{"email": "body@example.com", "password": "' + b"x" * (70 * 1024) + b'"}'

    async def chunks() -> Any:
        for start in range(0, len(big), 8192):
            yield big[start : start + 8192]

    for content in (big, chunks()):
        # One connection per request: the server answers 413 without reading the body and
        # then closes the connection, which a reused keep-alive connection could hit.
        async with live_server.client() as http:
            response = await http.post(
                "/api/v1/members/validate",
                content=content,
                headers={**bearer(key), "Content-Type": "application/json"},
            )
            assert_error(response, 413, "payload_too_large")


async def test_malformed_json_and_non_objects_are_invalid_body(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    key = await make_key(pool)
    for content in (b"", b"{", b"{'a': 1}", b"[]", b'"text"', b"42", b"null", b"[] {}"):
        response = await post(client, key, content, "application/json")
        assert response.status_code == 400, content
        error = response.json()["error"]
        assert error["code"] == "invalid_body", content
        assert error["message"].startswith("body:"), (content, error)


async def test_missing_and_mistyped_fields_are_named(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    key = await make_key(pool)
    cases = [
        (b'{"email": "body@example.com"}', "password"),
        (b'{"password": "x"}', "email"),
        (b'{"email": 5, "password": "x"}', "email"),
        (b'{"email": "body@example.com", "password": null}', "password"),
        (b'{"email": "body@example.com", "password": true}', "password"),
        (b'{"email": ["a"], "password": "x"}', "email"),
    ]
    for content, field in cases:
        response = await post(client, key, content, "application/json")
        assert response.status_code == 400, content
        error = response.json()["error"]
        assert error["code"] == "invalid_body"
        assert error["message"].startswith(f"{field}:"), (content, error)


async def test_whole_numbers_take_json_integers_only(
    client: AsyncTestClient, pool: asyncpg.Pool
) -> None:
    world = World()
    partner, sub = world.tenancy({}, plan={"apiWrite": True, "retentionDays": 30})
    profile = world.profile(partner)
    world.downlink_template(profile, key="k")
    device = world.device(sub, profile)
    key = world.key(sub, scopes=["downlinks:write"])
    await load(pool, world)
    url = f"/api/v1/devices/{device['id']}/downlinks"
    for raw in (b"60.0", b"6e1", b'"60"', b"true"):
        response = await client.post(
            url,
            content=b'{"key": "k", "expiresInSeconds": ' + raw + b"}",
            headers={**bearer(key), "Content-Type": "application/json"},
        )
        assert response.status_code == 400, raw
        assert response.json()["error"]["code"] == "invalid_body"
        assert "expiresInSeconds" in response.json()["error"]["message"]
    response = await client.post(
        url,
        content=b'{"key": "k", "expiresInSeconds": 60}',
        headers={**bearer(key), "Content-Type": "application/json"},
    )
    assert response.status_code == 202


async def test_unknown_body_fields_are_ignored(client: AsyncTestClient, pool: asyncpg.Pool) -> None:
    key = await make_key(pool)
    response = await post(
        client,
        key,
        b'{"email": "body@example.com", "password": "wrong password", "remember": true}',
        "application/json",
    )
    # The body was read (the unknown field ignored) and its credentials checked.
    assert_error(response, 401, "invalid_credentials")
