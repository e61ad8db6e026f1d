"""Chart-ready series (issue 26) over HTTP: each section 3 parameter against the plain
request it extends, p50 of sequential requests to `telemetry serve` on the dataset (many
devices in turn, the dataset's keys). Class `history` of the suite.

- daily `increase` and daily `twa` over the dataset's range against daily `avg` (goal
  <= 1.5x; the issue asks it over a year, scale M);
- hourly `twa` over 30 days against hourly `avg` (goal <= 1.5x);
- raw with `maxPoints=1000` (lttb) over the dataset's range of one field (goal <= 15 ms);
- `fill=previous` on hourly over 30 days against no fill (goal <= 1.2x).

The dataset's first numeric field is made a counter for the run (a gauge again after), so
that `increase` applies to it.

    python -m benchmarks.bench_chart --scale S
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from benchmarks.common import Context, Measure, measure, module_main, time_calls
from testkit.databases import connect

GROUP = "history"


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
    await connection.execute(
        "UPDATE profile_fields SET measurement = 'counter' WHERE identifier = $1", field
    )
    measures: list[Measure] = []
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
        await connection.execute(
            "UPDATE profile_fields SET measurement = 'gauge' WHERE identifier = $1", field
        )
        await connection.close()
    return measures


if __name__ == "__main__":
    raise SystemExit(module_main(run))
