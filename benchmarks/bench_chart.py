"""Chart-ready series (issue 26) over HTTP on a generated dataset: each new parameter
against the plain request it extends, p50 of sequential requests through the real app
(in process, the dataset's keys), many devices in turn.

- daily `increase` and daily `twa` over the dataset's range against daily `avg`;
- hourly `twa` over 30 days against hourly `avg`;
- raw with `maxPoints=1000` (lttb) over the dataset's range of one field;
- `fill=previous` on hourly over 30 days against no fill.

The dataset's first numeric field is made a counter for the run (and a gauge again
after), so that `increase` applies to it.

    python -m benchmarks.bench_chart --scale S
"""

from __future__ import annotations

import argparse
import asyncio
from datetime import datetime, timedelta
from typing import Any

from benchmarks.common import connect, load_manifest, time_calls


async def run(scale: str, repetitions: int) -> dict[str, float]:
    from litestar.testing import AsyncTestClient

    from app.core.config import Settings
    from app.main import create_app
    from app.ops import cluster

    manifest = load_manifest(scale)
    database = manifest.database_url.rsplit("/", 1)[-1]
    url = cluster.database_url(database)
    field = manifest.numeric_fields()[0].identifier
    end = datetime.fromisoformat(manifest.end.replace("Z", "+00:00"))
    start = datetime.fromisoformat(manifest.start.replace("Z", "+00:00"))
    devices = manifest.devices[:40]
    connection = await connect(url)
    await connection.execute(
        "UPDATE profile_fields SET measurement = 'counter' WHERE identifier = $1", field
    )
    figures: dict[str, float] = {}
    try:
        settings = Settings(database_url=url)
        async with AsyncTestClient(app=create_app(settings)) as client:

            async def p50(label: str, days: float | None, **params: str) -> float:
                begin = start if days is None else end - timedelta(days=days)

                async def call(i: int) -> Any:
                    device = devices[i % len(devices)]
                    response = await client.get(
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

                latency = await time_calls(call, repetitions, warmup=10)
                figures[label] = latency.p50_ms
                print(f"{label}: p50 {latency.p50_ms:.2f} ms", flush=True)
                return latency.p50_ms

            span = (end - start).days
            daily_avg = await p50(f"daily avg over {span} days", None, resolution="daily")
            for agg in ("increase", "twa"):
                value = await p50(
                    f"daily {agg} over {span} days", None, resolution="daily", agg=agg
                )
                print(f"  {agg} / avg = {value / daily_avg:.2f}x (goal <= 1.5x)")
            hourly_avg = await p50("hourly avg over 30 days", 30, resolution="hourly")
            value = await p50("hourly twa over 30 days", 30, resolution="hourly", agg="twa")
            print(f"  twa / avg = {value / hourly_avg:.2f}x (goal <= 1.5x)")
            await p50(f"raw maxPoints=1000 over {span} days", None, maxPoints="1000")
            value = await p50(
                "hourly avg fill=previous over 30 days", 30, resolution="hourly", fill="previous"
            )
            print(f"  fill=previous / none = {value / hourly_avg:.2f}x (goal <= 1.2x)")
    finally:
        await connection.execute(
            "UPDATE profile_fields SET measurement = 'gauge' WHERE identifier = $1", field
        )
        await connection.close()
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", default="S")
    parser.add_argument("--repetitions", type=int, default=100)
    args = parser.parse_args(argv)
    asyncio.run(run(args.scale, args.repetitions))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
