"""Bucketed exports (analytics.md section 2, its export rules): `resolution`, `agg` and `tz`
give a row per bucket whose values equal POST /query's for the same parameters."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pyarrow.parquet as pq
from litestar.testing import AsyncTestClient

from tests.support.helpers import bearer
from tests.support.query import NOW, START, Setup, ask, iso, setup

__all__ = ["setup"]  # the module fixture (tests/support/query.py), shared with test_query

FLEET_EXPORT = "/api/v1/export"
DEVICE_EXPORT = "/api/v1/devices/{}/export"


async def query_series(
    client: AsyncTestClient, setup: Setup, ids: list[str], fields: list[str], **extra: Any
) -> dict[tuple[str, str], dict[str, Any]]:
    """(device id, field) -> {bucket start: value} of POST /query, every page."""
    body = {"devices": {"ids": ids}, "fields": fields, "limit": 100_000, **extra}
    response = await ask(client, setup.key, body)
    assert response.status_code == 200, response.text
    page = response.json()
    assert page["nextCursor"] is None
    return {
        (s["deviceId"], s["field"]): {p["time"]: p["value"] for p in s["points"]}
        for s in page["data"]["series"]
    }


def rows_of(response: Any, fmt: str) -> list[dict[str, Any]]:
    assert response.status_code == 200, response.text
    if fmt == "csv":
        return list(csv.DictReader(io.StringIO(response.text)))
    if fmt == "ndjson":
        return [json.loads(line) for line in response.text.splitlines()]
    table = pq.read_table(io.BytesIO(response.content)).to_pylist()
    return [{k: (iso(v) if k == "time" else v) for k, v in row.items()} for row in table]


def same(cell: Any, value: Any, fmt: str) -> bool:
    if fmt == "csv":
        return cell == (
            "" if value is None else str(value) if isinstance(value, str) else json.dumps(value)
        )
    return cell == value


async def test_fleet_export_buckets_equal_the_query(client: AsyncTestClient, setup: Setup) -> None:
    ids = [d["id"] for d in setup.devices]
    params = {
        "from": iso(START),
        "to": iso(NOW),
        "resolution": "daily",
        "agg": "last",
        "tz": "Europe/Berlin",
        "fields": "temperature,label",
    }
    expected = await query_series(
        client,
        setup,
        ids,
        ["temperature", "label"],
        **{k: params[k] for k in ("from", "to", "resolution", "agg", "tz")},
    )
    for fmt in ("csv", "ndjson", "parquet"):
        for layout in ("wide", "long"):
            response = await client.get(
                FLEET_EXPORT,
                params={**params, "format": fmt, "layout": layout},
                headers=bearer(setup.key),
            )
            rows = rows_of(response, fmt)
            got: dict[tuple[str, str], dict[str, Any]] = {}
            order = []
            for row in rows:
                order.append((row["deviceId"], row["time"]))
                assert row["localTime"]
                cells = (
                    [
                        (
                            row["field"],
                            row["value"] if row["value"] is not None else row.get("valueText"),
                        )
                    ]
                    if layout == "long"
                    else [(f, row[f]) for f in ("temperature", "label")]
                )
                for field, cell in cells:
                    want = expected.get((row["deviceId"], field), {}).get(row["time"])
                    if want is None and cell in (None, ""):
                        continue
                    assert same(cell, want, fmt), (fmt, layout, row, field, want)
                    got.setdefault((row["deviceId"], field), {})[row["time"]] = want
            # Every bucket of the query is a row (devices by id, then time, oldest first).
            assert got == {k: v for k, v in expected.items() if v}, (fmt, layout)
            assert order == sorted(order), (fmt, layout)


async def test_device_export_counts_per_bucket(client: AsyncTestClient, setup: Setup) -> None:
    device = setup.devices[0]
    params = {"from": iso(START), "to": iso(NOW), "resolution": "PT6H", "agg": "count"}
    expected = await query_series(client, setup, [device["id"]], ["temperature", "label"], **params)
    response = await client.get(
        DEVICE_EXPORT.format(device["devEui"]),
        params={**params, "format": "ndjson", "fields": "temperature,label"},
        headers=bearer(setup.key),
    )
    rows = rows_of(response, "ndjson")
    assert [r["time"] for r in rows] == sorted(
        set(expected[(device["id"], "temperature")]) | set(expected[(device["id"], "label")])
    )
    for row in rows:
        for field in ("temperature", "label"):
            assert row[field] == expected[(device["id"], field)].get(row["time"]), row
    assert any(row["temperature"] == 3 for row in rows)  # the repeated readings counted


async def test_bucketed_export_errors(client: AsyncTestClient, setup: Setup) -> None:
    device = setup.devices[0]["id"]
    base = {"from": iso(START), "to": iso(NOW)}
    for params, name in (
        ({"agg": "max"}, "agg"),
        ({"resolution": "hourly", "agg": "median"}, "agg"),
        ({"resolution": "PT1S"}, "resolution"),
        ({"resolution": "nope"}, "resolution"),
        ({"resolution": "daily", "fields": "label"}, "agg"),
    ):
        response = await client.get(
            DEVICE_EXPORT.format(device), params={**base, **params}, headers=bearer(setup.key)
        )
        assert response.status_code == 400, response.text
        error = response.json()["error"]
        assert error["code"] == "invalid_parameter" and error["message"].startswith(name + ":"), (
            error
        )
