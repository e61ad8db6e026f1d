"""The packing job (schema/definitions/035-packing.sql) against live ingest: an uplink that
lands in a week while that week is being packed is stored exactly once."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import asyncpg
from litestar.testing import AsyncTestClient

from testkit.factories import load
from tests.support import chirpstack as cs
from tests.support.chirpstack import INGEST, device_num, th_world
from tests.support.network import eventually

WEEK_READINGS = """
SELECT count(*) AS readings, count(DISTINCT time) AS distinct_readings
  FROM readings_num_in($1, $2, $3, $4)
"""


async def test_a_late_uplink_during_the_packing_of_its_week_is_stored_once(
    client: AsyncTestClient, pool: asyncpg.Pool, database_url: str
) -> None:
    w, t = th_world()
    await load(pool, w)
    num = await device_num(pool, t["device"])
    temperature = await pool.fetchval(
        "SELECT num FROM profile_fields WHERE profile_id = $1 AND identifier = 'temperature'",
        t["profile"]["id"],
    )
    early = cs.at(minutes_ago=20 * 24 * 60)
    body = cs.uplink(t["device"]["devEui"], {"temperature": 20.5}, time=early)
    response = await client.post(f"{INGEST}?event=up", content=body, headers=cs.bearer(t["token"]))
    assert response.status_code == 204, response.text

    # The packing job packs that week and drops its raw chunk, and holds its transaction
    # open for a second (psql in another process: the test client runs the app in this
    # thread's loop and blocks it while a request waits); a second uplink of the same week
    # arrives meanwhile and waits for the chunk.
    packer = await asyncio.create_subprocess_exec(
        "psql", database_url, "-v", "ON_ERROR_STOP=1", "-c",
        "BEGIN; SELECT pack_closed_chunks(interval '0'); SELECT pg_sleep(1); COMMIT;",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    await eventually(
        lambda: pool.fetchval(
            "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(1)%'"
            " AND wait_event = 'PgSleep'"
        ),
        bool,
        30,
        "the packing transaction to hold its locks",
    )
    device, then = t["device"]["devEui"], early + timedelta(minutes=1)
    late = cs.uplink(device, {"temperature": 21.5}, time=then)
    response = await client.post(f"{INGEST}?event=up", content=late, headers=cs.bearer(t["token"]))
    assert response.status_code == 204, response.text
    out, err = await packer.communicate()
    assert packer.returncode == 0, err.decode()
    packed = out.decode().split("pack_closed_chunks")[1].split()[1]
    assert int(packed) >= 1, out.decode()

    week = (early - timedelta(days=7), early + timedelta(days=7))
    values = await pool.fetch(
        "SELECT value FROM readings_num_in($1, $2, $3, $4) ORDER BY time", num, temperature, *week
    )
    assert [r["value"] for r in values] == [20.5, 21.5]
    # Once packed again, the late one has joined its week: still each reading once.
    async with pool.acquire() as connection, connection.transaction():
        await connection.execute("SELECT pack_closed_chunks(interval '0')")
    assert not await pool.fetchval(
        "SELECT count(*) FROM readings_num WHERE device_num = $1 AND time < $2",
        num,
        week[1],
    )
    stored = await pool.fetchrow(WEEK_READINGS, num, temperature, *week)
    assert stored["readings"] == stored["distinct_readings"] == 2
