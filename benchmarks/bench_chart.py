"""Chart-ready series (issue 26) over HTTP: each section 3 parameter against the plain
request it extends, p50 of sequential requests to `telemetry serve` on the dataset (many
devices in turn, the dataset's keys). Class `history` of the suite.

- daily `increase` and daily `twa` over the dataset's range against daily `avg` (goal
  <= 1.5x; the issue asks it over a year, scale M);
- hourly `twa` over 30 days against hourly `avg` (goal <= 1.5x);
- raw with `maxPoints=1000` (lttb) over the dataset's range of one field, and over a year
  of one field at 15 minutes (35,040 readings, every closed week packed) in a scratch
  database of its own (`bench_chart_year`, loaded once, served by its own `telemetry
  serve`), since scale S holds 30 days (goal <= 15 ms);
- `fill=previous` on hourly over 30 days against no fill (goal <= 1.2x).

The same comparisons as SQL p50 too (the statements and the merge of app/history/chart.py
for the new aggregates, through asyncpg, against the bucketed statement for avg), where the
partials of schema/180-composable-partials.sql decide the cost.

The dataset's first numeric field is made a counter for the run (a gauge again after), so
that `increase` applies to it; its packed weeks get the increase partials the packing job
writes for counters (once per dataset, after the storage class has measured).

    python -m benchmarks.bench_chart --scale S
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

from benchmarks.common import Context, Measure, measure, module_main, time_calls
from testkit.databases import connect
from testkit.processes import start_server

GROUP = "history"
YEAR_DATABASE = "bench_chart_year"
YEAR_DAYS = 365
YEAR_KEY = "svc_live_benchchartyear000000000000000000000000"
YEAR_DEVICE = "6b1e1d2c-5a4f-4c3b-9e8d-000000000001"
# 15-minute readings (as the datasets' devices send them), a slow wave with noise and
# spikes: a series whose shape LTTB has to keep.
YEAR_LOAD = """
INSERT INTO readings_num (device_num, field_num, time, value, site_num)
SELECT $3::integer, $4::integer, t,
       20 + 8 * sin(extract(epoch FROM t) / 86400 / 58) + 3 * sin(extract(epoch FROM t) / 3600)
          + random() + CASE WHEN random() < 0.002 THEN 30 ELSE 0 END,
       0
  FROM generate_series($1::timestamptz, $2::timestamptz - interval '15 minutes',
                       interval '15 minutes') t
"""


def year_world() -> dict[str, Any]:
    from benchmarks.datasets import BIG_TIER, SCOPES

    profile = "6b1e1d2c-5a4f-4c3b-9e8d-000000000002"
    return {
        "partners": [
            {
                "id": "6b1e1d2c-5a4f-4c3b-9e8d-000000000003",
                "name": "Bench chart year",
                "plan": {"apiWrite": True, "retentionDays": 3650},
                "tier": BIG_TIER,
                "keys": [
                    {
                        "id": "6b1e1d2c-5a4f-4c3b-9e8d-000000000004",
                        "name": "bench",
                        "secret": YEAR_KEY,
                        "scopes": SCOPES,
                    }
                ],
                "profiles": [
                    {
                        "id": profile,
                        "name": "LEVEL-1",
                        "fields": [
                            {
                                "id": "6b1e1d2c-5a4f-4c3b-9e8d-000000000005",
                                "identifier": "level",
                                "label": "Level",
                                "unit": "cm",
                                "dataType": "number",
                            }
                        ],
                    }
                ],
                "subAccounts": [
                    {
                        "id": "6b1e1d2c-5a4f-4c3b-9e8d-000000000006",
                        "name": "Year",
                        "devices": [
                            {
                                "id": YEAR_DEVICE,
                                "devEui": "70B3D5FFFE000001",
                                "name": "Level 1",
                                "deviceProfileId": profile,
                            }
                        ],
                    }
                ],
            }
        ]
    }


async def year_database() -> tuple[str, datetime, datetime]:
    """The year's scratch database (loaded on first use) and its range."""
    from app.world.loader import load_world
    from testkit.databases import scratch_database

    url = await asyncio.to_thread(scratch_database, YEAR_DATABASE)
    connection = await connect(url)
    try:
        await connection.execute("SET statement_timeout = 0")
        if await connection.fetchval("SELECT count(*) FROM devices") == 0:
            await load_world(connection, year_world())
            end = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
            device = await connection.fetchval("SELECT num FROM devices")
            field = await connection.fetchval("SELECT num FROM profile_fields")
            await connection.execute(YEAR_LOAD, end - timedelta(days=YEAR_DAYS), end, device, field)
            # Every closed week packed, as the packing job leaves a year of readings.
            await connection.execute("SELECT pack_closed_chunks(interval '0')")
            await connection.execute("VACUUM ANALYZE")
        # The newest week is not closed at loading, so it stays raw.
        newest = await connection.fetchval("SELECT max(time) FROM readings_num")
    finally:
        await connection.close()
    end = newest.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    return url, end - timedelta(days=YEAR_DAYS + 1), end


async def year_max_points(repetitions: int) -> Measure:
    """Raw with maxPoints=1000 over a year of one field, p50 over HTTP."""
    import httpx

    url, start, end = await year_database()
    server = await asyncio.to_thread(start_server, url, 2)
    try:
        async with httpx.AsyncClient(base_url=server.base_url, timeout=30) as http:
            params = {
                "field": "level",
                "from": start.isoformat(),
                "to": end.isoformat(),
                "maxPoints": "1000",
            }
            headers = {"Authorization": f"Bearer {YEAR_KEY}"}
            first = await http.get(
                f"/api/v1/devices/{YEAR_DEVICE}/history", params=params, headers=headers
            )
            assert first.status_code == 200, first.text
            readings = first.json()["data"]["downsampled"]["readings"]

            async def call(i: int) -> Any:
                response = await http.get(
                    f"/api/v1/devices/{YEAR_DEVICE}/history", params=params, headers=headers
                )
                assert response.status_code == 200, response.text

            value = (await time_calls(call, repetitions, warmup=10)).p50_ms
    finally:
        await asyncio.to_thread(server.stop)
    return measure(
        f"raw maxPoints=1000 over a year ({readings:,} readings) p50 (HTTP)", value, "ms",
        group=GROUP, higher_is_better=False, max_value=15,
    )  # fmt: skip


async def run(ctx: Context) -> list[Measure]:
    import httpx

    manifest = ctx.manifest
    field = manifest.numeric_fields()[0].identifier
    end = datetime.fromisoformat(manifest.end.replace("Z", "+00:00"))
    start = datetime.fromisoformat(manifest.start.replace("Z", "+00:00"))
    span = (end - start).days
    devices = manifest.devices[: 20 if ctx.quick else 40]
    repetitions = 30 if ctx.quick else max(60, ctx.repetitions)
    connection = await connect(ctx.database_url)
    await set_measurement(connection, field, "counter")
    measures: list[Measure] = await sql_measures(connection, ctx, field, start, end, span)
    try:
        async with httpx.AsyncClient(base_url=ctx.server(), timeout=30) as http:

            async def p50(days: float | None, **params: str) -> float:
                begin = start if days is None else end - timedelta(days=days)

                async def call(i: int) -> Any:
                    device = devices[i % len(devices)]
                    response = await http.get(
                        f"/api/v1/devices/{device.id}/history",
                        params={
                            "field": field,
                            "from": begin.isoformat(),
                            "to": end.isoformat(),
                            **params,
                        },
                        headers={"Authorization": f"Bearer {manifest.key_for(device)}"},
                    )
                    assert response.status_code == 200, response.text

                return (await time_calls(call, repetitions, warmup=10)).p50_ms

            def against(
                name: str, value: float, floor: float, floor_name: str, most: float
            ) -> None:
                measures.append(
                    measure(
                        name, value, "ms", group=GROUP, floor=floor, floor_name=floor_name,
                        higher_is_better=False, min_ratio=1 / most,
                        target=f"<= {most:g}x {floor_name}",
                    )
                )  # fmt: skip

            daily_avg = await p50(None, resolution="daily")
            for agg in ("increase", "twa"):
                value = await p50(None, resolution="daily", agg=agg)
                against(f"daily {agg} over {span} days p50", value, daily_avg, "daily avg", 1.5)
            hourly_avg = await p50(30, resolution="hourly")
            value = await p50(30, resolution="hourly", agg="twa")
            against("hourly twa over 30 days p50", value, hourly_avg, "hourly avg", 1.5)
            value = await p50(30, resolution="hourly", fill="previous")
            against("hourly fill=previous over 30 days p50", value, hourly_avg, "no fill", 1.2)
            value = await p50(None, maxPoints="1000")
            measures.append(
                measure(
                    f"raw maxPoints=1000 over {span} days p50 (HTTP)", value, "ms", group=GROUP,
                    higher_is_better=False, max_value=15,
                )
            )  # fmt: skip
    finally:
        await set_measurement(connection, field, "gauge")
        await connection.close()
    measures.append(await year_max_points(repetitions))
    return measures


async def set_measurement(connection: Any, field: str, measurement: str) -> None:
    """The field's measurement; made a counter, its packed weeks that lack the increase
    partials get them (rewritten once per dataset: a gauge again keeps them, unread, so
    later runs rewrite nothing and leave the storage measure alone)."""
    await connection.execute("SET statement_timeout = 0")
    await connection.execute(
        "UPDATE profile_fields SET measurement = $2 WHERE identifier = $1", field, measurement
    )
    if measurement != "counter":
        return
    await connection.execute(
        """UPDATE packed_hours_num SET first_time = NULL
            WHERE field_num IN (SELECT num FROM profile_fields WHERE identifier = $1)
              AND increase IS NULL""",
        field,
    )
    await connection.execute("SELECT fill_packed_hours_num('-infinity', 'infinity')")


async def sql_measures(
    connection: Any, ctx: Context, field: str, start: datetime, end: datetime, span: int
) -> list[Measure]:
    """The new aggregates' reads (statements and merge) against the bucketed avg statement,
    p50 over the dataset's devices in turn."""
    from app.core.sql import QUERIES
    from app.history import chart
    from app.history.planner import parse_resolution, plan_segments

    rows = await connection.fetch(
        """SELECT d.num, f.num AS field_num FROM devices d
             JOIN profile_fields f ON f.profile_id = d.profile_id AND f.identifier = $2
            WHERE d.num = ANY($1::int[])""",
        [d.num for d in ctx.manifest.devices[:20]], field,
    )  # fmt: skip
    series = [(r["num"], r["field_num"]) for r in rows]
    repetitions = 40 if ctx.quick else max(80, ctx.repetitions)
    cutoff = start - timedelta(days=3650)

    async def p50(resolution: str, agg: str, days: int | None) -> float:
        res = parse_resolution(resolution)
        assert res is not None
        begin = start if days is None else end - timedelta(days=days)
        segments = plan_segments(begin, end, res)

        async def call(i: int) -> Any:
            device, field_num = series[i % len(series)]
            if agg == "avg":
                return await connection.fetch(
                    QUERIES["history.bucketed_num"], [device], [field_num], begin, end,
                    res.interval, segments.hour_lo, segments.day_lo, segments.day_hi,
                    segments.hour_hi, None, "avg", None,
                )  # fmt: skip
            options = chart.ChartOptions(now=end)
            return await chart.read_aggregate(
                connection,
                chart.SeriesSpan(
                    True, "number", device, field_num, begin, end, cutoff, None, res, agg,
                    None, options,
                ),
            )  # fmt: skip

        return (await time_calls(call, repetitions, warmup=10)).p50_ms

    out: list[Measure] = []

    def against(name: str, value: float, floor: float, floor_name: str) -> None:
        out.append(
            measure(
                name, value, "ms", group=GROUP, floor=floor, floor_name=floor_name,
                higher_is_better=False, min_ratio=1 / 1.5, target=f"<= 1.5x {floor_name}",
            )
        )  # fmt: skip

    daily_avg = await p50("daily", "avg", None)
    for agg in ("increase", "twa"):
        value = await p50("daily", agg, None)
        against(f"daily {agg} over {span} days p50 (SQL)", value, daily_avg, "daily avg (SQL)")
    hourly_avg = await p50("hourly", "avg", 30)
    value = await p50("hourly", "twa", 30)
    against("hourly twa over 30 days p50 (SQL)", value, hourly_avg, "hourly avg (SQL)")
    return out


if __name__ == "__main__":
    raise SystemExit(module_main(run))
