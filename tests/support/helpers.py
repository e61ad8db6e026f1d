"""Helpers shared by the tests: request headers, waiting for a change to reach the app, a
device's ingest context."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import asyncpg
import httpx
from litestar.testing import AsyncTestClient

from app.profiles.contexts import DeviceContext, DeviceContexts


def bearer(key: str, **extra: str) -> dict[str, str]:
    """The headers of a request authenticated with API key `key` (plus any `extra`)."""
    return {"Authorization": f"Bearer {key}", **extra}


async def committed(client: AsyncTestClient, pool: asyncpg.Pool, sql: str, *args: object) -> None:
    """Runs a change and waits until the in-process worker has its notification.

    NOTIFY reaches the worker's listening connection a little after the commit returns
    (well under a millisecond on a quiet box); an in-process request issued in the same
    instant may still see the old state, so these tests wait for the delivery itself.
    """
    cache, latest = client.app.state.auth_cache, client.app.state.latest_cache
    seen = cache.generation, latest.generation
    await pool.execute(sql, *args)
    for _ in range(100):
        if (cache.generation, latest.generation) != seen:
            return
        await asyncio.sleep(0.02)
    raise AssertionError("no notification reached the worker")


def assert_error(
    response: httpx.Response, status: int, code: str, names: str | None = None
) -> None:
    """The response is `status` with error `code` in the envelope, and nothing beside it
    (`names`: a text its message contains)."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"}
    assert body["error"]["code"] == code
    if names is not None:
        assert names in body["error"]["message"]


async def names_listed(client: AsyncTestClient, path: str, key: str, **params: Any) -> list[str]:
    """The names a list route answers with (200, and the page holds all `total` of them)."""
    response = await client.get(path, params=params, headers=bearer(key))
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["pagination"]["total"] == len(body["data"])
    return [item["name"] for item in body["data"]]


async def get_ok(client: AsyncTestClient, key: str, path: str, **request: Any) -> Any:
    """The JSON body of a GET with API key `key` that must answer 200."""
    response = await client.get(path, headers=bearer(key), **request)
    assert response.status_code == 200, response.text
    return response.json()


async def ingest_context(pool: asyncpg.Pool, device_id: object) -> DeviceContext:
    """The ingest pipeline's context of the device `device_id`, read from its row."""
    row = await pool.fetchrow(
        "SELECT partner_id, num, id, status, profile_id, static_values, calibration"
        " FROM devices WHERE id = $1",
        device_id,
    )
    return await DeviceContexts().of_row(pool, row)


async def day_count(pool: asyncpg.Pool, key_id: str) -> int:
    value = await pool.fetchval(
        "SELECT day_count FROM api_key_usage WHERE key_id = $1", uuid.UUID(key_id)
    )
    return int(value)


async def settled_day_count(pool: asyncpg.Pool, key_id: str, expected: int) -> int:
    """The day count once the workers gave back their unused permits (about 1 s)."""
    for _ in range(50):
        count = await day_count(pool, key_id)
        if count == expected:
            break
        await asyncio.sleep(0.2)
    return count


async def scrape_metrics(url: str) -> dict[str, float]:
    """The `telemetry_` samples of a Prometheus metrics page, by name with labels."""
    async with httpx.AsyncClient(timeout=5) as http:
        text = (await http.get(url)).text
    samples: dict[str, float] = {}
    for line in text.splitlines():
        if line.startswith("telemetry_"):
            name, _, value = line.rpartition(" ")
            samples[name] = float(value)
    return samples
