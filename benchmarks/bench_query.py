"""POST /query: one call instead of many /history calls, raw paging throughput, cursors.

Against `telemetry serve --workers 2` on a generated dataset, over HTTP:
- many series bucketed: up to 100 devices of one partner x up to 4 number fields, daily
  averages over a year (the dataset's window when shorter) in one query (p50 of a few
  runs, all pages), against the sum of the single `/history` calls it replaces (one per
  device and field, timed one after another). Target: >= 10x less time.
- raw paging: up to 50 devices x 1 field, raw over 30 days (the window when shorter),
  paged by 10,000 points: points/s over HTTP (target >= 300,000), and the growth of the
  server workers' resident memory while it runs (target < 50 MB).
- cursor overhead: a page of 10,000 raw points from the middle of that query against its
  first page (p50 of each; target <= 1.2x).
- bucketed export: the partner's fleet, hourly averages over 90 days (the window when
  shorter), CSV wide (a row per device and hour, through the same reads as the query):
  rows/s and the workers' RSS growth (target < 50 MB: streamed a batch at a time).

    python -m benchmarks.bench_query --scale S
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta
from typing import Any

import httpx
import msgspec

from benchmarks.bench_export import RssSampler, transfer, transfer_measures, worker_pids
from benchmarks.common import Context, Measure, measure, module_main, percentiles

GROUP = "query"
PAGE = 10_000


def partner_devices(ctx: Context) -> tuple[str, list[Any]]:
    """The partner with the most devices: its key and devices (id order)."""
    by_partner: dict[str, list[Any]] = {}
    for device in ctx.manifest.devices:
        by_partner.setdefault(device.partner_id, []).append(device)
    partner, devices = max(by_partner.items(), key=lambda item: len(item[1]))
    key = next(
        k.secret for k in ctx.manifest.keys if k.sub_account_id is None and k.partner_id == partner
    )
    return key, sorted(devices, key=lambda d: d.id)


def rss_growth(label: str, sampler: RssSampler, details: dict[str, Any]) -> Measure:
    """How much the workers' resident memory grew while `label` ran (target < 50 MB:
    the answer is streamed a batch at a time); the peak per worker in details."""
    return measure(
        f"{label}: worker RSS growth",
        sampler.growth_mb(),
        "MB",
        group=GROUP,
        max_value=50,
        details={**details, "peak_kb": sampler.peak},
    )


async def follow(
    http: httpx.AsyncClient, key: str, body: dict[str, Any]
) -> tuple[int, int, list[str]]:
    """Every page of a query: (points, pages, the cursors that started pages 2..n)."""
    headers = {"Authorization": f"Bearer {key}"}
    cursor: str | None = None
    points = pages = 0
    cursors: list[str] = []
    while True:
        response = await http.post(
            "/api/v1/query",
            json={**body, **({"cursor": cursor} if cursor else {})},
            headers=headers,
        )
        if response.status_code != 200:
            raise RuntimeError(f"POST /query: {response.status_code} {response.text[:300]}")
        # Decoded by msgspec: the client's own JSON decoding is not the server's time.
        page = msgspec.json.decode(response.content)
        pages += 1
        points += sum(len(s["points"]) for s in page["data"]["series"])
        cursor = page["nextCursor"]
        if cursor is None:
            return points, pages, cursors
        cursors.append(cursor)


async def run(ctx: Context) -> list[Measure]:
    manifest = ctx.manifest
    end = datetime.fromisoformat(manifest.end.replace("Z", "+00:00"))
    start = datetime.fromisoformat(manifest.start.replace("Z", "+00:00"))
    key, devices = partner_devices(ctx)
    fields = [f.identifier for f in manifest.numeric_fields()][:4]
    repetitions = 2 if ctx.quick else 5
    out: list[Measure] = []
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=ctx.server(), timeout=600) as http:
        # 1. Many series, daily averages, one query against the /history calls.
        chosen = devices[:100]
        year_from = max(start, end - timedelta(days=365))
        span = {"from": year_from.isoformat(), "to": end.isoformat()}
        body = {
            "devices": {"ids": [d.id for d in chosen]},
            "fields": fields,
            "resolution": "daily",
            "agg": "avg",
            "limit": 100_000,
            **span,
        }
        await follow(http, key, body)  # warm
        samples = []
        for _ in range(repetitions):
            started = time.perf_counter()
            points, pages, _ = await follow(http, key, body)
            samples.append(time.perf_counter() - started)
        one_call = percentiles(samples)
        singles = 0.0
        for device in chosen:
            for field in fields:
                started = time.perf_counter()
                response = await http.get(
                    f"/api/v1/devices/{device.id}/history",
                    params={"field": field, "resolution": "daily", "agg": "avg", **span},
                    headers=headers,
                )
                singles += time.perf_counter() - started
                if response.status_code != 200:
                    raise RuntimeError(f"history: {response.status_code} {response.text[:200]}")
        series = len(chosen) * len(fields)
        days = (end - year_from).days
        out.append(
            measure(
                f"{len(chosen)} devices x {len(fields)} fields, daily avg over {days} days, "
                "one query",
                one_call.p50_ms,
                "ms",
                group=GROUP,
                floor=singles * 1000,
                floor_name=f"{series} single /history calls, summed",
                higher_is_better=False,
                min_ratio=10,
                details=one_call.details(
                    points=points,
                    pages=pages,
                    series=series,
                    history_calls_ms=round(singles * 1000, 1),
                ),
            )
        )

        # 2. Raw paging: points/s and the workers' memory.
        month_from = max(start, end - timedelta(days=30))
        raw: dict[str, Any] = {
            "devices": {"ids": [d.id for d in devices[:50]]},
            "fields": fields[:1],
            "from": month_from.isoformat(),
            "to": end.isoformat(),
            "limit": PAGE,
        }
        server_pid = ctx._server.process.pid if ctx._server else 0
        pids = worker_pids(server_pid)
        with RssSampler(pids) as sampler:
            started = time.perf_counter()
            points, pages, cursors = await follow(http, key, raw)
            seconds = time.perf_counter() - started
        details = {"points": points, "pages": pages, "seconds": round(seconds, 3)}
        label = (
            f"{len(raw['devices']['ids'])} devices x 1 field raw over "
            f"{(end - month_from).days} days, pages of {PAGE:,}"
        )
        out.append(
            measure(
                f"{label}: points/s",
                points / seconds,
                "points/s",
                group=GROUP,
                min_value=None if ctx.quick else 300_000,
                details=details,
            )
        )
        out.append(rss_growth(label, sampler, {**details, "baseline_kb": sampler.baseline}))

        # 3. Cursor overhead: a page from the middle against the first page.
        async def page(cursor: str | None) -> float:
            sent = {**raw, **({"cursor": cursor} if cursor else {})}
            started = time.perf_counter()
            response = await http.post("/api/v1/query", json=sent, headers=headers)
            if response.status_code != 200:
                raise RuntimeError(f"POST /query: {response.status_code} {response.text[:300]}")
            return time.perf_counter() - started

        middle = cursors[len(cursors) // 2] if cursors else None
        first = percentiles([await page(None) for _ in range(repetitions * 2)])
        inner = percentiles([await page(middle) for _ in range(repetitions * 2)])
        out.append(
            measure(
                f"raw page of {PAGE:,} points from the middle (cursor) vs the first page",
                inner.p50_ms,
                "ms",
                group=GROUP,
                floor=first.p50_ms,
                floor_name="first page",
                higher_is_better=False,
                # At most 1.2x the first page's time: first / middle >= 1 / 1.2.
                min_ratio=0.83,
                details=inner.details(
                    first_p50_ms=first.p50_ms,
                    overhead=round(inner.p50_ms / first.p50_ms, 3) if first.p50_ms else None,
                    has_middle_cursor=middle is not None,
                ),
            )
        )
        # 4. A bucketed fleet export, with the workers' memory watched.
        quarter_from = max(start, end - timedelta(days=90))
        params = {
            "from": quarter_from.isoformat(),
            "to": end.isoformat(),
            "resolution": "hourly",
            "agg": "avg",
            "format": "csv",
            "fields": ",".join(fields),
        }
        with RssSampler(worker_pids(server_pid)) as sampler:
            t = await transfer(http, "/api/v1/export", key, params)
        label = f"fleet export, hourly avg over {(end - quarter_from).days} days, csv wide"
        for m in transfer_measures(label, t):
            out.append(msgspec.structs.replace(m, group=GROUP))
        out.append(rss_growth(label, sampler, {"rows": t.rows, "bytes": t.bytes}))
    return out


def main(argv: list[str] | None = None) -> int:
    return module_main(run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
