"""The world and the request of POST /query, shared by its tests and its export's."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import pytest
from litestar.testing import AsyncTestClient

from testkit.factories import World, load
from tests.support.helpers import bearer

QUERY = "/api/v1/query"


NOW = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)


# Readings lie in the four weeks before NOW; the oldest weeks are packed, the rest raw.
START = NOW - timedelta(days=28)


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


@dataclass
class Setup:
    key: str
    other_key: str
    foreign_key: str
    devices: list[dict[str, Any]]  # a, b (profile with temperature, label), c (temperature only)
    nums: list[int]
    field_nums: dict[tuple[int, str], int]  # (device index, identifier)
    foreign_device: dict[str, Any]
    site: dict[str, Any]


async def record(
    pool: asyncpg.Pool, device_num: int, at: datetime, numbers: dict[int, float], site: int = 0
) -> None:
    await pool.execute(
        "SELECT record_readings($1, $2, $3, $4, $5, $6, $7)",
        device_num,
        site,
        at,
        list(numbers),
        list(numbers.values()),
        [],
        [],
    )


async def record_label(
    pool: asyncpg.Pool, device_num: int, at: datetime, field: int, text: str
) -> None:
    await pool.execute(
        "SELECT record_readings($1, 0, $2, '{}', '{}', $3, $4)", device_num, at, [field], [text]
    )


@pytest.fixture(scope="module")
async def setup(pool: asyncpg.Pool) -> Setup:
    w = World()
    tier = {"perMinute": 1_000_000, "perDay": 100_000_000}
    partner = w.partner(
        plan={"retentionDays": 60}, features={"networks": True, "multiSite": True}, tier=tier
    )
    sub = w.sub_account(partner)
    site = w.site(sub)
    full = w.profile(
        partner,
        fields=[
            w.field("temperature"),
            w.field("label", dataType="string"),
            w.field("serial", kind="static", dataType="string"),
        ],
    )
    lean = w.profile(partner, fields=[w.field("temperature")])
    devices = [w.device(sub, full, site=site), w.device(sub, full), w.device(sub, lean)]
    other = w.partner(tier=tier)
    foreign_device = w.device(w.sub_account(other), w.profile(other))
    key = w.key(sub, scopes=["telemetry:read"])
    other_key = w.key(sub, scopes=["telemetry:read"])
    foreign_key = w.key(other, scopes=["telemetry:read"])
    await load(pool, w)
    rows = await pool.fetch(
        "SELECT d.id::text AS id, d.num, f.identifier, f.num AS field_num FROM devices d"
        " JOIN profile_fields f ON f.profile_id = d.profile_id WHERE d.id = ANY($1::uuid[])",
        [d["id"] for d in devices],
    )
    order = [d["id"] for d in devices]
    nums = [next(r["num"] for r in rows if r["id"] == i) for i in order]
    field_nums = {(order.index(r["id"]), r["identifier"]): r["field_num"] for r in rows}
    site_num = await pool.fetchval("SELECT num FROM sites WHERE id = $1", site["id"])
    # Every 6 hours over four weeks, with equal times and equal readings (a repeated key)
    # on the edges of pages; device c has fewer.
    for index, num in enumerate(nums):
        step = 6 if index < 2 else 24
        for hour in range(0, 28 * 24, step):
            at = START + timedelta(hours=hour)
            value = float(index * 1000 + hour)
            await record(
                pool,
                num,
                at,
                {field_nums[(index, "temperature")]: value},
                site_num if index == 0 else 0,
            )
            if hour % 48 == 0:
                await record(pool, num, at, {field_nums[(index, "temperature")]: value})
                await record(pool, num, at, {field_nums[(index, "temperature")]: value - 0.5})
            if index < 2 and hour % 24 == 0:
                await record_label(pool, num, at, field_nums[(index, "label")], f"day-{hour // 24}")
    # The older two weeks packed, the newer raw.
    async with pool.acquire() as connection, connection.transaction():
        await connection.execute("SELECT pack_closed_chunks(interval '14 days')")
    return Setup(
        key=key,
        other_key=other_key,
        foreign_key=foreign_key,
        devices=devices,
        nums=nums,
        field_nums=field_nums,
        foreign_device=foreign_device,
        site=site,
    )


async def ask(client: AsyncTestClient, key: str, body: dict[str, Any]) -> Any:
    return await client.post(QUERY, json=body, headers=bearer(key))


HISTORY = "/api/v1/devices/{}/history"


async def follow(
    client: AsyncTestClient, key: str, body: dict[str, Any], between: Any = None
) -> tuple[list[dict[str, Any]], int]:
    """Every page of the query from the first: the series merged (a continued series'
    points appended to it), and how many pages."""
    merged: list[dict[str, Any]] = []
    cursor, pages = None, 0
    while True:
        response = await ask(client, key, {**body, **({"cursor": cursor} if cursor else {})})
        assert response.status_code == 200, response.text
        page = response.json()
        pages += 1
        points = sum(len(s["points"]) for s in page["data"]["series"])
        assert points <= body.get("limit", 10_000)
        for number, series in enumerate(page["data"]["series"]):
            same = (
                merged
                and all(merged[-1][k] == series[k] for k in ("deviceId", "field"))
                and merged[-1].get("agg") == series.get("agg")
            )
            if number == 0 and same:
                merged[-1]["points"].extend(series["points"])
            else:
                merged.append({**series, "points": list(series["points"])})
        cursor = page["nextCursor"]
        if cursor is None:
            return merged, pages
        if between is not None:
            await between(pages)


async def history(
    client: AsyncTestClient, key: str, device: str, **params: str
) -> list[dict[str, Any]]:
    response = await client.get(HISTORY.format(device), params=params, headers=bearer(key))
    assert response.status_code == 200, response.text
    return list(reversed(response.json()["data"]["points"]))
