"""History: the planner's SQL against naive time_bucket over every reading, and storage.

For each query class of issue 4 (raw newest 500; hourly over 30 days; daily over a year;
PT15M over 7 days; P1M over a year; each without and with `siteId`) and of issue 16
(daily over a year with `tz=Europe/Berlin`: local days read from the packed weeks), on
many devices of the dataset in turn:
- the route's SQL (sql/history/history.sql, with the planner's segments) through asyncpg,
  p50/p95/p99 over `repetitions` calls;
- the naive baseline: `time_bucket` + `avg` over every reading of the range, raw rows and
  packed weeks alike (`readings_num_in`, which unpacks every packed week it touches), the
  speed-up being baseline p50 / route p50;
- with a dataset of `telemetry bench generate` (the suite's `run(ctx)`): the HTTP route
  itself, sequentially, against its own SQL (what auth, parsing and encoding add); the raw
  newest 500 over HTTP is a measure of its own (issue 17), whose details also time the
  same requests over a bare keep-alive socket (what the HTTP client, httpx, adds).
The chart-ready series of issue 26 (fill, maxPoints, increase, twa) are measured by
benchmarks/bench_chart.py in the same class. With its own synthetic load it also reports
storage (the suite's `storage` class: bytes per reading by part), before and after
`telemetry retention run --compact` when asked.

Targets: daily over a year >= 50x the baseline and p50 <= 3 ms; hourly over 30 days
>= 10x; raw 500 p50 <= 5 ms (SQL) and <= 3 ms over HTTP; daily over a year in
Europe/Berlin within 1.5x of the UTC p50 (its figure's floor is the UTC p50).

    python -m benchmarks.bench_history --devices 50 --days 365    # own synthetic load
    python -m benchmarks.bench_history --scale M                  # a generated dataset
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from app.core.sql import QUERIES
from app.history.planner import parse_resolution
from app.history.series import Bucketing, bucketed_statement
from benchmarks.common import Context, Latency, Measure, measure, time_calls
from testkit.databases import connect

GROUP = "history"
SYNTHETIC_DB = "bench_history"

# Every reading of the range (raw rows and the readings of packed weeks), bucketed.
NAIVE = """
SELECT CASE WHEN $7::text IS NULL THEN time_bucket($5::text::interval, r.time)
            ELSE time_bucket($5::text::interval, r.time, $7::text) END AS bucket,
       avg(r.value) AS value
  FROM readings_num_in($1, $2, $3, $4, $6::integer) r
 GROUP BY 1
 ORDER BY 1 DESC
"""
NAIVE_NAME = "naive time_bucket over raw + packed readings"
RAW_HTTP_MAX_MS = 3.0  # raw newest 500 over HTTP, p50 (issue 17)


@dataclass(frozen=True)
class QueryClass:
    name: str
    resolution: str | None  # None: raw
    days: int
    min_speedup: float | None = None
    max_p50_ms: float | None = None
    tz: str | None = None


CLASSES = [
    QueryClass("raw newest 500", None, 30, max_p50_ms=5),
    QueryClass("hourly avg over 30 days", "hourly", 30, min_speedup=10),
    QueryClass("daily avg over a year", "daily", 365, min_speedup=50, max_p50_ms=3),
    QueryClass("daily avg over a year tz=Europe/Berlin", "daily", 365, tz="Europe/Berlin"),
    QueryClass("PT15M avg over 7 days", "PT15M", 7),
    QueryClass("P1M avg over a year", "P1M", 365),
]


@dataclass(frozen=True)
class Series:
    device_num: int
    field_num: int
    site_num: int | None  # a site the device has readings at, for the siteId variant
    device_id: str | None = None
    field: str | None = None
    site_id: str | None = None
    key: str | None = None


def route_args(q: QueryClass, s: Series, end: datetime, with_site: bool) -> tuple[str, list[Any]]:
    start = end - timedelta(days=q.days)
    site = s.site_num if with_site else None
    if q.resolution is None:
        return QUERIES["history.raw_num"], [s.device_num, s.field_num, start, end, 501, site]
    resolution = parse_resolution(q.resolution)
    assert resolution is not None
    # The statement the route picks (a batch of one series), with its arguments.
    name, args = bucketed_statement(
        [s.device_num], [s.field_num], True, start, end, Bucketing(resolution, "avg", q.tz), site
    )
    return QUERIES[name], args


def naive_args(q: QueryClass, s: Series, end: datetime, with_site: bool) -> list[Any]:
    resolution = parse_resolution(q.resolution or "raw")
    assert resolution is not None
    start = end - timedelta(days=q.days)
    return [
        s.device_num,
        s.field_num,
        start,
        end,
        resolution.interval,
        s.site_num if with_site else None,
        q.tz,
    ]


async def time_statement(
    connection: Any, sql: str, args: list[list[Any]], repetitions: int
) -> Latency:
    statement = await connection.prepare(sql)

    async def call(i: int) -> Any:
        return await statement.fetch(*args[i % len(args)])

    return await time_calls(call, repetitions, warmup=min(20, len(args)))


async def measure_queries(
    connection: Any,
    series: list[Series],
    end: datetime,
    repetitions: int,
    http: Any | None = None,
) -> list[Measure]:
    measures: list[Measure] = []
    utc_p50: dict[tuple[Any, ...], float] = {}
    with_sites = [s for s in series if s.site_num]
    for q in CLASSES:
        for with_site in (False, True):
            pool = with_sites if with_site else series
            if not pool:
                continue
            label = q.name + (" with siteId" if with_site else "")
            ends = [end - timedelta(minutes=random.randint(0, 60)) for _ in pool]
            routed = [route_args(q, s, e, with_site) for s, e in zip(pool, ends, strict=True)]
            sql = routed[0][0]
            route = await time_statement(connection, sql, [a for _, a in routed], repetitions)
            details: dict[str, Any] = {"route_sql": _lat(route), "range_days": q.days}
            floor: float | None = None
            if q.resolution is not None:
                naive_reps = max(10, repetitions // (10 if q.days > 30 else 3))
                naive = await time_statement(
                    connection,
                    NAIVE,
                    [naive_args(q, s, e, with_site) for s, e in zip(pool, ends, strict=True)],
                    naive_reps,
                )
                floor = naive.p50_ms
                details["naive_time_bucket"] = _lat(naive)
            # The HTTP route is timed without siteId: multi-site may be off in the dataset.
            if http is not None and pool[0].device_id is not None and not with_site:
                served = await time_http(http, q, pool, ends, with_site, repetitions)
                details["http_route"] = _lat(served)
                if q.resolution is None:
                    bare = await time_socket(str(http.base_url), q, pool, ends, repetitions)
                    measures.append(raw_over_http(q, served, route, bare))
                else:
                    # Issue 17 compares every class through the served API as well.
                    measures.append(
                        measure(
                            f"{q.name} over HTTP p50",
                            served.p50_ms,
                            "ms",
                            group=GROUP,
                            higher_is_better=False,
                            details={
                                **_lat(served),
                                "route_sql_p50_ms": round(route.p50_ms, 3),
                                "http_adds_ms": round(served.p50_ms - route.p50_ms, 3),
                            },
                        )
                    )
            if q.tz is None:
                utc_p50[(q.resolution, q.days, with_site)] = route.p50_ms
            else:
                # Compared with the same class in UTC: within 1.5x of its p50.
                details["naive_speedup"] = round((floor or 0) / route.p50_ms, 1)
                measures.append(
                    measure(
                        f"{label} p50",
                        route.p50_ms,
                        "ms",
                        group=GROUP,
                        floor=utc_p50.get((q.resolution, q.days, with_site)),
                        floor_name="UTC p50",
                        higher_is_better=False,
                        min_ratio=1 / 1.5,
                        details=details,
                    )
                )
                continue
            measures.append(
                measure(
                    f"{label} p50 (SQL)",
                    route.p50_ms,
                    "ms",
                    group=GROUP,
                    floor=floor,
                    floor_name=NAIVE_NAME if floor else None,
                    higher_is_better=False,
                    min_ratio=q.min_speedup,
                    max_value=q.max_p50_ms,
                    details=details,
                )
            )
    return measures


def _lat(latency: Latency) -> dict[str, float]:
    return {
        "p50_ms": round(latency.p50_ms, 3),
        "p95_ms": round(latency.p95_ms, 3),
        "p99_ms": round(latency.p99_ms, 3),
        "n": latency.n,
    }


def history_params(q: QueryClass, s: Series, end: datetime, with_site: bool) -> dict[str, str]:
    params = {
        "field": s.field or "",
        "from": (end - timedelta(days=q.days)).isoformat(),
        "to": end.isoformat(),
        "resolution": q.resolution or "raw",
    }
    if with_site and s.site_id:
        params["siteId"] = s.site_id
    if q.tz:
        params["tz"] = q.tz
    return params


async def time_http(
    http: Any,
    q: QueryClass,
    pool: list[Series],
    ends: list[datetime],
    with_site: bool,
    repetitions: int,
) -> Latency:
    async def call(i: int) -> Any:
        s, end = pool[i % len(pool)], ends[i % len(pool)]
        response = await http.get(
            f"/api/v1/devices/{s.device_id}/history",
            params=history_params(q, s, end, with_site),
            headers={"Authorization": f"Bearer {s.key}"},
        )
        assert response.status_code == 200, response.text

    return await time_calls(call, max(20, repetitions // 2), warmup=10)


async def time_socket(
    base_url: str, q: QueryClass, pool: list[Series], ends: list[datetime], repetitions: int
) -> Latency:
    """The same requests as `time_http` (without siteId) written to one keep-alive socket
    and read back by hand: the server's share, without an HTTP client library's."""
    import httpx

    url = httpx.URL(base_url)
    reader, writer = await asyncio.open_connection(url.host, url.port)
    requests = [
        f"GET /api/v1/devices/{s.device_id}/history?{httpx.QueryParams(params)} HTTP/1.1\r\n"
        f"Host: {url.host}\r\nAuthorization: Bearer {s.key}\r\n\r\n".encode()
        for s, end in zip(pool, ends, strict=True)
        for params in [history_params(q, s, end, False)]
    ]

    async def call(i: int) -> None:
        writer.write(requests[i % len(requests)])
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
        assert head.startswith(b"HTTP/1.1 200 "), head
        length = next(
            int(line.split(b":", 1)[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        await asyncio.wait_for(reader.readexactly(length), 30)

    try:
        return await time_calls(call, max(20, repetitions // 2), warmup=10)
    finally:
        writer.close()


def raw_over_http(q: QueryClass, served: Latency, route: Latency, bare: Latency) -> Measure:
    """The raw newest 500 through the served API (sequential calls, client included), with
    where the time goes: the route's SQL, the rest of the server (the same requests over a
    bare socket) and the HTTP client (httpx: the difference)."""
    return measure(
        f"{q.name} over HTTP p50",
        served.p50_ms,
        "ms",
        group=GROUP,
        higher_is_better=False,
        max_value=RAW_HTTP_MAX_MS,
        details={
            **_lat(served),
            "route": "GET /devices/{id}/history raw",
            "route_sql_p50_ms": round(route.p50_ms, 3),
            "http_adds_ms": round(served.p50_ms - route.p50_ms, 3),
            "bare_socket_p50_ms": round(bare.p50_ms, 3),
            "client_adds_ms": round(served.p50_ms - bare.p50_ms, 3),
        },
    )


# ------------------------------------------------------------------ the suite's dataset


async def run(ctx: Context) -> list[Measure]:
    connection = await connect(ctx.database_url)
    try:
        await connection.execute("SET statement_timeout = 0")
        series = await dataset_series(connection, ctx)
        end = datetime.fromisoformat(ctx.manifest.end.replace("Z", "+00:00"))
        import httpx

        async with httpx.AsyncClient(base_url=ctx.server(), timeout=30) as http:
            reps = 30 if ctx.quick else ctx.repetitions
            measures = await measure_queries(connection, series, end, reps, http)
    finally:
        await connection.close()
    # Chart-ready series (issue 26): each section 3 parameter against its plain request.
    from benchmarks import bench_chart

    return measures + await bench_chart.run(ctx)


async def dataset_series(connection: Any, ctx: Context) -> list[Series]:
    field = ctx.manifest.numeric_fields()[0].identifier
    devices = ctx.manifest.devices[: 40 if ctx.quick else 200]
    rows = await connection.fetch(
        """SELECT d.num, f.num AS field_num, s.num AS site_num
             FROM devices d
             JOIN profile_fields f ON f.profile_id = d.profile_id AND f.identifier = $2
             LEFT JOIN sites s ON s.id = d.site_id
            WHERE d.num = ANY($1::int[])""",
        [d.num for d in devices],
        field,
    )
    by_num = {r["num"]: r for r in rows}
    return [
        Series(
            device_num=d.num,
            field_num=by_num[d.num]["field_num"],
            site_num=by_num[d.num]["site_num"],
            device_id=d.id,
            field=field,
            site_id=d.site_id,
            key=ctx.manifest.key_for(d),
        )
        for d in devices
        if d.num in by_num
    ]


# ------------------------------------------------------------------ own synthetic load

SYNTHETIC_LOAD = """
INSERT INTO readings_num (device_num, field_num, time, value, site_num)
SELECT d, f, t, round((random() * 100)::numeric, 2)::float8,
       CASE WHEN t < $2::timestamptz - interval '180 days' THEN 1 + d % 3 ELSE 4 + d % 3 END
  FROM generate_series($1::timestamptz, $2::timestamptz - interval '1 second',
                       interval '15 minutes') t,
       generate_series(1, $3::integer) d, generate_series(0, 4) f
"""


async def synthetic(
    devices: int, days: int, compact: bool, repetitions: int, database: str
) -> list[Measure]:
    from app.history.maintenance import compact_closed_chunks
    from benchmarks.suite import storage_measures
    from testkit.databases import scratch_database

    url = await asyncio.to_thread(scratch_database, database)
    connection = await connect(url)
    measures: list[Measure] = []
    try:
        await connection.execute("SET statement_timeout = 0")
        end = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
        start = end - timedelta(days=days)
        # Devices with readings in the newest day (raw, or packed when the week just closed).
        loaded = await connection.fetchval(
            "SELECT count(DISTINCT device_num) FROM (SELECT device_num FROM readings_num"
            " WHERE time >= $1 UNION SELECT device_num FROM packed_num"
            " WHERE period > $1 - interval '7 days') s",
            end - timedelta(days=1),
        )
        if loaded != devices:
            print(
                f"loading {devices} devices x 5 series x {days} days at 15 minutes ...", flush=True
            )
            began = time.monotonic()
            await connection.execute(
                "TRUNCATE readings_num, readings_other, packed_num, packed_other,"
                " packed_hours_num, packed_hours_other, rollup_day_num, rollup_day_other,"
                " history_compacted_chunks"
            )
            await connection.execute(SYNTHETIC_LOAD, start, end, devices)
            # Every closed week packed (with its daily rollups), as the packing job leaves it.
            await connection.execute("SELECT pack_closed_chunks(interval '0')")
            await connection.execute("VACUUM ANALYZE")
            print(f"loaded in {time.monotonic() - began:.0f} s", flush=True)
        else:
            newest = await connection.fetchval("SELECT max(time) FROM readings_num")
            end = (newest or end) + timedelta(seconds=1)
        measures.extend(await storage_measures(connection))
        if compact:
            began = time.monotonic()
            done = await compact_closed_chunks(connection)
            await connection.execute("VACUUM ANALYZE")
            print(f"compacted {len(done)} chunks in {time.monotonic() - began:.0f} s", flush=True)
            for after in await storage_measures(connection):
                after.name += " after compaction"
                measures.append(after)
        series = [
            Series(device_num=d, field_num=2, site_num=4 + d % 3) for d in range(1, devices + 1)
        ]
        measures[:0] = await measure_queries(connection, series, end, repetitions)
    finally:
        await connection.close()
    return measures


def main(argv: list[str] | None = None) -> int:
    from benchmarks.common import format_row, module_main

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, help="own synthetic load: number of devices")
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--compact", action="store_true", help="CLUSTER closed chunks first")
    parser.add_argument("--repetitions", type=int, default=300)
    parser.add_argument("--database", default=SYNTHETIC_DB, help="scratch database name")
    args, rest = parser.parse_known_args(argv)
    if args.devices is None:
        return module_main(run, rest)
    measures = asyncio.run(
        synthetic(args.devices, args.days, args.compact, args.repetitions, args.database)
    )
    for m in measures:
        print(format_row(m))
        for name, figures in m.details.items():
            if isinstance(figures, dict):
                print(f"    {name}: {figures}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
