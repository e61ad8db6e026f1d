"""Login validation timing: does an unknown email cost the same as a wrong password?

Question: `POST /members/validate` must not reveal which emails exist (api-spec 4.11,
decisions D14). An unknown email is verified against a dummy argon2id hash with the same
parameters, so both rejections should take the same time. This measures the median
wall time of each over a few dozen tries through the real server, interleaved (unknown,
wrong, unknown, ...) so drift on a shared box hits both alike, and reports the difference.
A correct password is timed too, for reference.

Dataset: a scratch database `bench_validate` (recreated each run) with one partner, one
sub-account, one active member with a password, and a key with `members:read` on a tier
that does not rate-limit the run. Nothing else is written.

Run alone: `.venv/bin/python -m benchmarks.bench_validate_timing [--tries 40]`; in the
suite: `telemetry bench run --only validate_timing` (the module's `run`).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
import uuid
from typing import Any

import httpx

from benchmarks.common import Context, Measure, measure
from testkit.databases import connect, drop_database, scratch_database
from testkit.processes import start_server

DATABASE = "bench_validate"
PASSWORD = "correct horse battery staple"  # noqa: S105  (test data)
EMAIL = "member@example.com"
KEY = "svc_live_" + "benchvalidatetiming" + "x" * 24


def world() -> dict[str, Any]:
    user_id = str(uuid.uuid4())
    return {
        "partners": [
            {
                "id": str(uuid.uuid4()),
                "name": "Timing",
                "tier": {"perMinute": 1_000_000, "perDay": 100_000_000},
                "users": [{"id": user_id, "email": EMAIL, "name": "Member", "password": PASSWORD}],
                "subAccounts": [
                    {
                        "id": str(uuid.uuid4()),
                        "name": "Timing A",
                        "keys": [
                            {
                                "id": str(uuid.uuid4()),
                                "name": "bench",
                                "secret": KEY,
                                "scopes": ["members:read"],
                            }
                        ],
                        "members": [{"userId": user_id, "role": "subaccount_admin"}],
                    }
                ],
            }
        ]
    }


async def _load(url: str) -> None:
    from app.world.loader import load_world

    connection = await connect(url)
    try:
        await load_world(connection, world())
    finally:
        await connection.close()


async def _time(http: httpx.AsyncClient, email: str, password: str, status: int) -> float:
    started = time.perf_counter()
    response = await http.post(
        "/api/v1/members/validate",
        json={"email": email, "password": password},
        headers={"Authorization": f"Bearer {KEY}"},
    )
    elapsed = time.perf_counter() - started
    if response.status_code != status:
        raise RuntimeError(f"expected {status}, got {response.status_code}: {response.text}")
    return elapsed


async def measure_timing(base_url: str, tries: int) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {"unknown": [], "wrong": [], "correct": []}
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as http:
        for _ in range(3):  # Warm-up: connections, prepared statements, thread pool.
            await _time(http, "nobody@example.com", PASSWORD, 401)
            await _time(http, EMAIL, "wrong password", 401)
        for index in range(tries):
            pair = [
                ("unknown", f"nobody{index}@example.com", PASSWORD),
                ("wrong", EMAIL, f"wrong password {index}"),
            ]
            for name, email, password in pair if index % 2 == 0 else reversed(pair):
                samples[name].append(await _time(http, email, password, 401))
            if index % 4 == 0:
                samples["correct"].append(await _time(http, EMAIL, PASSWORD, 200))
    return samples


def verify_samples(tries: int) -> dict[str, list[float]]:
    """The argon2 step alone, in-process: dummy-hash verify vs a real hash, wrong password."""
    from argon2 import PasswordHasher

    from app.members.passwords import _verify

    real = PasswordHasher().hash(PASSWORD)
    samples: dict[str, list[float]] = {"unknown": [], "wrong": []}
    for index in range(tries):
        for name, stored in (("unknown", None), ("wrong", real)):
            started = time.perf_counter()
            _verify(stored, f"wrong password {index}")
            samples[name].append(time.perf_counter() - started)
    return samples


def paired_difference_ms(samples: dict[str, list[float]]) -> float:
    """Median of (unknown - wrong) over adjacent pairs: drift of a shared box cancels."""
    pairs = zip(samples["unknown"], samples["wrong"], strict=False)
    return statistics.median(u - w for u, w in pairs) * 1000


def summarize(samples: dict[str, list[float]], argon: dict[str, list[float]]) -> list[Measure]:
    medians = {name: statistics.median(values) * 1000 for name, values in samples.items()}
    difference = medians["unknown"] - medians["wrong"]
    paired = paired_difference_ms(samples)
    argon_paired = paired_difference_ms(argon)
    details = {
        name: {
            "tries": len(values),
            "median_ms": round(medians[name], 3),
            "min_ms": round(min(values) * 1000, 3),
            "max_ms": round(max(values) * 1000, 3),
        }
        for name, values in samples.items()
    }
    labels = {"unknown": "unknown email", "wrong": "wrong password", "correct": "correct password"}
    per_case = [
        measure(
            f"validate {label} p50",
            medians[name],
            "ms",
            group="validate_timing",
            details=details[name],
        )
        for name, label in labels.items()
    ]
    gaps = [
        measure(
            name,
            abs(gap),
            "ms",
            group="validate_timing",
            max_value=5,
            details={"signed_ms": round(gap, 3)},
        )
        for name, gap in (
            ("validate |unknown - wrong| p50", difference),
            ("validate paired (unknown - wrong) p50", paired),
        )
    ]
    return [
        *per_case,
        *gaps,
        measure(
            "argon2 verify paired (dummy - real) p50",
            abs(argon_paired),
            "ms",
            group="validate_timing",
            max_value=2,
            details={
                "signed_ms": round(argon_paired, 3),
                "dummy_median_ms": round(statistics.median(argon["unknown"]) * 1000, 3),
                "real_median_ms": round(statistics.median(argon["wrong"]) * 1000, 3),
            },
        ),
    ]


def run_standalone(tries: int) -> list[Measure]:
    url = scratch_database(DATABASE, fresh=True)
    try:
        asyncio.run(_load(url))
        with start_server(url, workers=2) as server:
            samples = asyncio.run(measure_timing(server.base_url, tries))
    finally:
        drop_database(DATABASE)
    return summarize(samples, verify_samples(tries))


def run(ctx: Context) -> list[Measure]:
    return run_standalone(12 if ctx.quick else 40)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--tries", type=int, default=40)
    args = parser.parse_args(argv)
    measures = run_standalone(args.tries)
    by_name = {m.name: m for m in measures}
    unknown = by_name["validate unknown email p50"]
    wrong = by_name["validate wrong password p50"]
    correct = by_name["validate correct password p50"]
    print(f"unknown email   median {unknown.value:8.2f} ms  ({unknown.details['tries']} tries)")
    print(f"wrong password  median {wrong.value:8.2f} ms  ({wrong.details['tries']} tries)")
    print(f"right password  median {correct.value:8.2f} ms  ({correct.details['tries']} tries)")
    print(f"difference of medians (unknown - wrong)  {unknown.value - wrong.value:+.2f} ms")
    paired = by_name["validate paired (unknown - wrong) p50"].details["signed_ms"]
    print(f"median paired difference (unknown - wrong)  {paired:+.2f} ms")
    argon = by_name["argon2 verify paired (dummy - real) p50"].details
    print(
        f"argon2 verify alone: dummy {argon['dummy_median_ms']:.2f} ms, real "
        f"{argon['real_median_ms']:.2f} ms, paired difference {argon['signed_ms']:+.2f} ms"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
