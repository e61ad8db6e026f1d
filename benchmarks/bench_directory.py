"""Directory reads on a 100,000-device fleet: the device list and the network rollups.

Question: how long do the list queries of the directory take at the database, for a big
fleet, filtered and unfiltered, on the first page and on deep pages; and how long do the
network health rollups take for networks of 10,000 devices?

Dataset (scratch database `bench_directory`, generated with `generate_series` straight
into the tables, deterministic ids; reused when present):
- 8 partners, 100,000 devices. Partner 0: sub-account A with 20,000 assigned devices in
  two networks of 10,000, sub-account B with 5,000 devices in 5 networks, and 5,000
  inventory devices. Partners 1-7: four sub-accounts of 2,000 devices (2 networks each)
  and 2,000 inventory devices.
- Every sub-account: a campus, 2 buildings, 4 floors; devices spread over the floors.
- Live state for every assigned device, last uplink within the last 2 hours (about a
  quarter online), 5% with an active alert; one gateway per 100 devices.

Each figure is the p50/p95 of `repetitions` calls of the same prepared statement (the SQL
of the route, through asyncpg, as the app runs it), so the plan cache behaves as in the
server; `cpu` is the server backend's own CPU time per call (planning + execution), which
does not grow when other work on the box makes the query wait for a core (parallel
workers' CPU is not included). Targets: a device list page p50 <= 5 ms; network rollups
p50 <= 20 ms.

Run alone: `.venv/bin/python -m benchmarks.bench_directory [--quick] [--fresh]`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import uuid
from typing import Any

from benchmarks.common import Context, Measure, format_row, measure, time_query
from testkit.databases import connect, scratch_database

DATABASE = "bench_directory"

GENERATE = [
    """
    CREATE TEMP TABLE plan AS
    SELECT 0 AS p, 0 AS s, 20000 AS n, 2 AS nets
    UNION ALL SELECT 0, 1, 5000, 5
    UNION ALL SELECT p, s, 2000, 2 FROM generate_series(1, 7) p, generate_series(0, 3) s
    """,
    """
    INSERT INTO partners (id, name, networks_enabled, multi_site_enabled, tier_per_minute,
                          tier_per_day)
    SELECT md5('p' || p)::uuid, 'Partner ' || p, true, true, 1000000, 100000000
      FROM generate_series(0, 7) p
    """,
    """
    INSERT INTO sub_accounts (id, partner_id, name)
    SELECT md5('s' || p || '-' || s)::uuid, md5('p' || p)::uuid, 'Sub ' || p || '-' || s
      FROM plan
    """,
    """
    INSERT INTO device_profiles (id, partner_id, name)
    SELECT md5('prof' || p || '-' || k)::uuid, md5('p' || p)::uuid, 'Profile ' || k
      FROM generate_series(0, 7) p, generate_series(0, 2) k
    """,
    """
    INSERT INTO profile_fields (id, profile_id, position, identifier, label, data_type, kind,
                                role)
    SELECT md5('f' || p || '-' || k || '-' || f)::uuid, md5('prof' || p || '-' || k)::uuid,
           f, (ARRAY['temperature', 'humidity', 'battery'])[f + 1], 'Field ' || f, 'number',
           'decoded', CASE WHEN f = 2 THEN 'battery_pct' END
      FROM generate_series(0, 7) p, generate_series(0, 2) k, generate_series(0, 2) f
    """,
    """
    INSERT INTO alert_rules (profile_id, field, op, value, level)
    SELECT md5('prof' || p || '-' || k)::uuid, 'temperature', '>', '30', 'warning'
      FROM generate_series(0, 7) p, generate_series(0, 2) k
    """,
    """
    INSERT INTO sites (id, sub_account_id, parent_site_id, name, depth)
    SELECT md5('site' || p || '-' || s)::uuid, md5('s' || p || '-' || s)::uuid, NULL,
           'Campus', 1 FROM plan
    """,
    """
    INSERT INTO sites (id, sub_account_id, parent_site_id, name, depth)
    SELECT md5('site' || p || '-' || s || '-' || b)::uuid, md5('s' || p || '-' || s)::uuid,
           md5('site' || p || '-' || s)::uuid, 'Building ' || b, 2
      FROM plan, generate_series(0, 1) b
    """,
    """
    INSERT INTO sites (id, sub_account_id, parent_site_id, name, depth)
    SELECT md5('site' || p || '-' || s || '-' || b || '-' || f)::uuid,
           md5('s' || p || '-' || s)::uuid, md5('site' || p || '-' || s || '-' || b)::uuid,
           'Floor ' || f, 3
      FROM plan, generate_series(0, 1) b, generate_series(0, 1) f
    """,
    """
    INSERT INTO networks (id, sub_account_id, site_id, name)
    SELECT md5('n' || p || '-' || s || '-' || k)::uuid, md5('s' || p || '-' || s)::uuid,
           md5('site' || p || '-' || s || '-' || (k % 2))::uuid, 'Network ' || k
      FROM plan, LATERAL generate_series(0, nets - 1) k
    """,
    """
    INSERT INTO devices (id, partner_id, sub_account_id, dev_eui, name, serial_number, status,
                         profile_id, network_id, site_id)
    SELECT md5('d' || p || '-' || s || '-' || i)::uuid, md5('p' || p)::uuid,
           md5('s' || p || '-' || s)::uuid,
           lpad(to_hex((p::bigint << 40) + (s::bigint << 32) + i), 16, '0'),
           'Sensor ' || lpad(((i * 7919) % n)::text, 6, '0'),
           'SN-' || p || '-' || s || '-' || i, 'assigned',
           md5('prof' || p || '-' || (i % 3))::uuid,
           md5('n' || p || '-' || s || '-' || (i % nets))::uuid,
           md5('site' || p || '-' || s || '-' || ((i / 2) % 2) || '-' || (i % 2))::uuid
      FROM plan, LATERAL generate_series(0, n - 1) i
    """,
    """
    INSERT INTO devices (id, partner_id, dev_eui, name, serial_number, status, profile_id)
    SELECT md5('inv' || p || '-' || i)::uuid, md5('p' || p)::uuid,
           lpad(to_hex((p::bigint << 40) + (255::bigint << 32) + i), 16, '0'),
           'Spare ' || lpad(i::text, 6, '0'), 'SN-' || p || '-inv-' || i, 'inventory',
           md5('prof' || p || '-' || (i % 3))::uuid
      FROM generate_series(0, 7) p,
           LATERAL generate_series(0, CASE WHEN p = 0 THEN 4999 ELSE 1999 END) i
    """,
    """
    INSERT INTO device_state (device_num, last_seen_at, last_uplink_at, signal_quality, battery)
    SELECT num, now() - (num % 120) * interval '1 minute',
           now() - (num % 120) * interval '1 minute', num % 101,
           jsonb_build_object('state', 'pct', 'value', num % 101, 'at', now(), 'source', 'field')
      FROM devices WHERE status = 'assigned'
    """,
    """
    INSERT INTO device_alerts (device_num, rule_id, level, since)
    SELECT d.num, r.id, 'warning', now()
      FROM devices d JOIN alert_rules r ON r.profile_id = d.profile_id
     WHERE d.status = 'assigned' AND d.num % 20 = 0
    """,
    """
    INSERT INTO gateways (id, partner_id, sub_account_id, gateway_eui, name, network_id,
                          last_seen_at, last_stats_at)
    SELECT md5('g' || p || '-' || s || '-' || i)::uuid, md5('p' || p)::uuid,
           md5('s' || p || '-' || s)::uuid,
           lpad(to_hex((p::bigint << 40) + (s::bigint << 32) + i), 16, '0'),
           'Gateway ' || i, md5('n' || p || '-' || s || '-' || (i % nets))::uuid,
           now() - (i % 60) * interval '1 minute', now() - (i % 60) * interval '1 minute'
      FROM plan, LATERAL generate_series(0, n / 100 - 1) i
    """,
]


# A reused dataset ages: its uplinks move back to the last 2 hours as generated (about a
# quarter online), so the online filters and rollups measure the same mix on every run.
REFRESH_STATE = """
UPDATE device_state
   SET last_seen_at = now() - (device_num % 120) * interval '1 minute',
       last_uplink_at = now() - (device_num % 120) * interval '1 minute'
 WHERE (SELECT max(last_uplink_at) FROM device_state) < now() - interval '1 minute'
"""


def uid(text: str) -> uuid.UUID:
    import hashlib

    # Deterministic ids of the generated dataset (same as SQL md5(...)::uuid), not security.
    return uuid.UUID(hashlib.md5(text.encode()).hexdigest())  # noqa: S324


P0 = uid("p0")
SUB_A = uid("s0-0")
NET_A0 = uid("n0-0-0")
PROFILE_0 = uid("prof0-0")
CAMPUS_A = uid("site0-0")
ALL = ["inventory", "assigned", "archived"]


def device_args(
    *,
    key_sub: uuid.UUID | None = None,
    sub: uuid.UUID | None = None,
    profile: uuid.UUID | None = None,
    network: uuid.UUID | None = None,
    network_none: bool = False,
    statuses: list[str] | None = None,
    online: bool | None = None,
    search: tuple[str | None, str | None] = (None, None),
    site: uuid.UUID | None = None,
    site_none: bool = False,
    descendants: bool = False,
    limit: int = 50,
    offset: int = 0,
) -> tuple[Any, ...]:
    statuses = statuses or (["assigned"] if key_sub else None)
    return (P0, key_sub, sub, profile, network, network_none, statuses, online, *search,
            site, site_none, descendants, limit, offset)  # fmt: skip


DEVICE_CASES: list[tuple[str, tuple[Any, ...]]] = [
    ("partner key, 30k devices, page 1", device_args()),
    ("partner key, 30k devices, offset 10,000", device_args(offset=10_000)),
    ("partner key, 30k devices, last page", device_args(offset=29_950)),
    ("sub-account key, 20k devices, page 1", device_args(key_sub=SUB_A)),
    ("sub-account key, 20k devices, last page", device_args(key_sub=SUB_A, offset=19_950)),
    ("status=inventory", device_args(statuses=["inventory"])),
    ("networkId (10k network), page 1", device_args(network=NET_A0)),
    ("networkId=none", device_args(network_none=True)),
    ("deviceProfileId, page 1", device_args(profile=PROFILE_0)),
    ("online=true, page 1", device_args(online=True)),
    ("online=true, offset 5,000", device_args(online=True, offset=5_000)),
    ("search name 'sensor 0123'", device_args(search=("%sensor 0123%", None))),
    ("search DevEUI fragment", device_args(search=("%00:00:00:01:23%", "%0000000123%"))),
    ("siteId campus + descendants", device_args(site=CAMPUS_A, descendants=True)),
    ("sub-account key, online=false, deep", device_args(key_sub=SUB_A, online=False, offset=5000)),
]


def backend_cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system) of one server backend, from /proc on this host.

    On a box shared with other work, wall-clock latency includes waiting for a core; the
    backend's own CPU time per call does not, so both are reported.
    """
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


async def sql_p50(
    connection: Any,
    name: str,
    sql: str,
    args: tuple[Any, ...],
    repetitions: int,
    max_value: float | None,
) -> Measure:
    """The p50 of one prepared statement, with its p95, p99 and the database CPU per call
    in details."""
    pid = await connection.fetchval("SELECT pg_backend_pid()")
    before = backend_cpu_seconds(pid)
    latency = await time_query(connection, sql, [args], repetitions)
    after = backend_cpu_seconds(pid)
    calls = repetitions + 6  # time_query also prepares and warms up 5 times
    cpu_ms = None if before is None or after is None else (after - before) * 1000 / calls
    return measure(
        f"{name} p50 (SQL)",
        latency.p50_ms,
        "ms",
        group="directory",
        higher_is_better=False,
        max_value=max_value,
        details={"p95_ms": latency.p95_ms, "p99_ms": latency.p99_ms, "db_cpu_ms_per_call": cpu_ms},
    )


async def generate(fresh: bool) -> str:
    url = await asyncio.to_thread(scratch_database, DATABASE, fresh=fresh)
    connection = await connect(url)
    try:
        if await connection.fetchval("SELECT count(*) FROM devices") != 100_000:
            for statement in GENERATE:
                await connection.execute(statement)
            await connection.execute("VACUUM ANALYZE")
        else:
            await connection.execute(REFRESH_STATE)
            await connection.execute("VACUUM ANALYZE devices")
            await connection.execute("VACUUM ANALYZE device_state")
            if await connection.fetchval("SELECT to_regclass('device_presence') IS NOT NULL"):
                await connection.execute("VACUUM ANALYZE device_presence")
    finally:
        await connection.close()
    return url


async def measure_directory(repetitions: int, fresh: bool = False) -> list[Measure]:
    from app.core.sql import QUERIES
    from app.devices.controller import list_query

    url = await generate(fresh)
    connection = await connect(url)
    measures: list[Measure] = []
    try:
        for label, args in DEVICE_CASES:
            # The query the route sends for these filters (statuses $7, online $8, search $9).
            sql = list_query(args[6], args[7], args[8])
            measures.append(
                await sql_p50(connection, f"GET /devices {label}", sql, args, repetitions, 5.0)
            )
        network_cases: list[tuple[str, str, tuple[Any, ...]]] = [
            ("GET /networks sub-account key (2 x 10k)", "networks.list_networks",
             (P0, SUB_A, None, None, False, False, 50, 0)),
            ("GET /networks partner key (7 networks, 25k)", "networks.list_networks",
             (P0, None, None, None, False, False, 50, 0)),
            ("GET /networks/{id} rollup (10k)", "networks.get_network", (P0, None, NET_A0)),
            ("GET /networks/{id} members (10k devices)", "networks.network_devices", (NET_A0,)),
        ]  # fmt: skip
        for label, query, args in network_cases:
            bound = 20.0 if "members" not in label else None
            times = max(repetitions // 3, 10)
            measures.append(await sql_p50(connection, label, QUERIES[query], args, times, bound))
    finally:
        await connection.close()
    return measures


async def run(ctx: Context) -> list[Measure]:
    return await measure_directory(30 if ctx.quick else ctx.repetitions)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--fresh", action="store_true", help="regenerate the dataset")
    args = parser.parse_args(argv)
    measures = asyncio.run(measure_directory(30 if args.quick else 300, fresh=args.fresh))
    for m in measures:
        details = m.details or {}
        cpu = details.get("db_cpu_ms_per_call")
        cpu_text = "n/a" if cpu is None else f"{cpu:.2f} ms"
        print(f"{format_row(m)}  p95 {details.get('p95_ms', float('nan')):.2f} ms  cpu {cpu_text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
