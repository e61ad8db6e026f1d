"""Group commit: uplinks stored together in one transaction behave as stored one by one."""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta

import asyncpg
import pytest

from app.auth.principal import hash_secret
from app.ingest.batch import Batcher
from app.ingest.pipeline import (
    Outcome,
    Uplink,
    UplinkRecord,
    store_uplink,
    store_uplinks,
    uplink_record,
)
from app.profiles.contexts import DeviceContext
from testkit.factories import Entity, World, load
from tests.support import chirpstack as cs
from tests.support.helpers import ingest_context

# Per device, its readings (numbers, with signal quality as field 0) as stored: each once.
READINGS_STORED = """
SELECT count(*) AS readings, count(DISTINCT (device_num, field_num, time)) AS distinct_readings
  FROM readings_num WHERE device_num = ANY ($1::int[])
"""


async def test_concurrent_batches_store_exactly_what_single_uplinks_store(
    pool: asyncpg.Pool, caplog: pytest.LogCaptureFixture
) -> None:
    contexts, site = await five_devices(pool, at_a_site=True)
    base = cs.at(90)
    jobs = []
    for index in range(180):
        context = contexts[index % 5]
        # Spread over three hours, out of order in time. Every time is distinct: two
        # uplinks of one device at the same instant are ordered by arrival, which
        # concurrent batches do not reproduce, so ties would make the comparison flaky.
        minute = (index * 37) % 180
        uplink = Uplink(
            time=base + timedelta(minutes=minute),
            values={"a": index % 60, "b": index / 7, "s": f"v{index % 3}"},
            receptions=[(-80, float(index % 10))],
            dedup_key=f"batch-{context.num}-{index}",
        )
        jobs.append((context, uplink))
    jobs += jobs[:20]  # replays of the same events
    batcher = Batcher(pool)
    with caplog.at_level(logging.WARNING, logger="telemetry.ingest"):
        outcomes = await asyncio.gather(*(batcher.store(c, u, None) for c, u in jobs))
    assert "failed" not in caplog.text
    assert outcomes.count(Outcome.STORED) == 180 and outcomes.count(Outcome.DUPLICATE) == 20

    nums = [c.num for c in contexts]
    # Three numeric readings per stored uplink (a, b and the signal quality), none lost,
    # none twice (every uplink of a device has its own time).
    stored = await pool.fetchrow(READINGS_STORED, nums)
    assert stored["readings"] == stored["distinct_readings"] == 180 * 3
    site_nums = await pool.fetch(
        "SELECT DISTINCT site_num FROM readings_other WHERE device_num = ANY($1::int[])", nums
    )
    assert [r["site_num"] for r in site_nums] == [
        await pool.fetchval("SELECT num FROM sites WHERE id = $1", site["id"])
    ]

    # The state equals what the same uplinks give one by one on twin devices.
    twin_contexts, _ = await five_devices(pool, at_a_site=False)
    for index, (_, uplink) in enumerate(jobs):
        twin = twin_contexts[index % 5]
        await store_uplink(pool, twin, uplink_copy(uplink), None)

    query = """SELECT s.last_uplink_at, s.signal_quality, s.field_state, s.battery,
                      (SELECT count(*) FROM device_alerts a
                        WHERE a.device_num = s.device_num) AS alerts
                 FROM device_state s WHERE s.device_num = $1"""
    for context, twin in zip(contexts, twin_contexts, strict=True):
        batched = dict(await pool.fetchrow(query, context.num))
        single = dict(await pool.fetchrow(query, twin.num))
        assert batched == single


async def test_one_batch_answers_each_uplink_as_alone(pool: asyncpg.Pool) -> None:
    """Admission is decided for the whole batch at once: each uplink still gets its own
    outcome (a revoked token, a device in inventory, a key seen before or twice in the
    batch), and only the stored ones leave readings and state."""
    w = World()
    p = w.partner()
    token = w.integration(p)
    sa = w.sub_account(p)
    prof = w.profile(p, fields=[w.field("a")])
    assigned, other = w.device(sa, prof), w.device(sa, prof)
    inventory = w.device(p, prof)
    await load(pool, w)
    good, bad = hash_secret(str(token)), hash_secret("revoked")
    device, twin, spare = [
        await ingest_context(pool, d["id"]) for d in (assigned, other, inventory)
    ]
    at = cs.at(5)
    await store_uplink(pool, device, Uplink(time=at, values={"a": 0}, dedup_key="seen"), good)

    def record(context: DeviceContext, token_hash: bytes, key: str, minutes: int) -> UplinkRecord:
        uplink = Uplink(time=at + timedelta(minutes=minutes), values={"a": minutes}, dedup_key=key)
        return uplink_record(context, uplink, token_hash)

    records = [
        record(device, good, "seen", 1),  # stored before this batch
        record(device, good, "new", 2),
        record(device, good, "new", 3),  # the same key again in this batch
        record(device, bad, "revoked", 4),
        record(twin, good, "twin", 5),
        record(spare, good, "inventory", 6),
    ]
    outcomes = (await store_uplinks(pool, records)).outcomes
    assert outcomes == ["duplicate", "stored", "duplicate", "unauthorized", "stored", "not_found"]
    stored = await pool.fetch(
        "SELECT device_num, value FROM readings_num WHERE device_num = ANY ($1::int[])"
        " AND field_num > 0 ORDER BY time",
        [device.num, twin.num, spare.num],
    )
    assert [(r["device_num"], r["value"]) for r in stored] == [
        (device.num, 0.0),
        (device.num, 2.0),
        (twin.num, 5.0),
    ]
    states = await pool.fetch(
        "SELECT device_num, last_uplink_at FROM device_state WHERE device_num = ANY ($1::int[])"
        " ORDER BY device_num",
        [device.num, twin.num, spare.num],
    )
    assert [(r["device_num"], r["last_uplink_at"]) for r in states] == sorted(
        [(device.num, at + timedelta(minutes=2)), (twin.num, at + timedelta(minutes=5))]
    )


async def five_devices(
    pool: asyncpg.Pool, *, at_a_site: bool
) -> tuple[list[DeviceContext], Entity]:
    """Five devices of one profile (numbers a and b, string s, an alert on a > 50), loaded,
    as ingest contexts; and the site of their sub-account (theirs only if `at_a_site`)."""
    w = World()
    p = w.partner()
    sa = w.sub_account(p)
    site = w.site(sa)
    prof = w.profile(
        p,
        retainLastValue=True,
        fields=[w.field("a"), w.field("b"), w.field("s", dataType="string")],
    )
    w.alert_rule(prof, "a", ">", 50)
    devices = [w.device(sa, prof, site=site if at_a_site else None) for _ in range(5)]
    await load(pool, w)
    return [await ingest_context(pool, device["id"]) for device in devices], site


def uplink_copy(uplink: Uplink) -> Uplink:
    return Uplink(
        time=uplink.time,
        values=uplink.values,
        receptions=uplink.receptions,
        gateways=uplink.gateways,
        dedup_key="twin-" + (uplink.dedup_key or ""),
    )


async def test_the_record_python_fills_is_the_sql_type_attribute_for_attribute(
    pool: asyncpg.Pool,
) -> None:
    """asyncpg binds UplinkRecord to the SQL type `uplink_record` by name and refuses a name
    the type lacks, but an attribute the struct lacked would be stored as NULL: both
    declare the same names, in the same order."""
    rows = await pool.fetch(
        "SELECT a.attname FROM pg_attribute a"
        " WHERE a.attrelid = 'uplink_record'::regclass AND a.attnum > 0 ORDER BY a.attnum"
    )
    assert [r["attname"] for r in rows] == list(UplinkRecord.__struct_fields__)


async def test_a_batch_writes_each_devices_events_in_order_after_its_device_online(
    pool: asyncpg.Pool,
) -> None:
    """A batch's device.uplink events are written together (webhook_uplinks): per device,
    device.online first (the state after its first uplink is written before them), then
    one event per uplink in time order with consecutive sequences, each showing the
    values of its uplink."""
    w = World()
    p = w.partner()
    sa = w.sub_account(p)
    prof = w.profile(p, fields=[w.field("a")])
    devices = [w.device(sa, prof) for _ in range(2)]
    await load(pool, w)
    await pool.execute(
        "INSERT INTO webhook_endpoints (id, partner_id, url, secret, state)"
        " VALUES (gen_random_uuid(), $1, 'http://127.0.0.1:9/', 'whsec_QkVOQ0hCRU5DSA==',"
        " 'enabled')",
        p["id"],
    )
    first, second = [await ingest_context(pool, d["id"]) for d in devices]
    at = cs.at(0, -5)
    plan = [(first, 0), (second, 1), (first, 2), (first, 3)]
    records = [
        uplink_record(c, Uplink(time=at + timedelta(seconds=s), values={"a": s}, dedup_key=f"k{s}"))
        for c, s in sorted(plan, key=lambda cs_: (cs_[0].num, cs_[1]))
    ]
    stored = await store_uplinks(pool, records)
    assert stored.outcomes == ["stored"] * 4 and stored.webhooks
    rows = await pool.fetch(
        "SELECT device_num, body::jsonb AS body FROM webhook_events"
        " WHERE device_num = ANY ($1::int[]) ORDER BY num",
        [first.num, second.num],
    )
    seen = {
        num: [
            (r["body"]["sequence"], r["body"]["type"], r["body"]["data"].get("values"))
            for r in rows
            if r["device_num"] == num
        ]
        for num in (first.num, second.num)
    }
    assert seen[first.num] == [
        (1, "device.online", None),
        (2, "device.uplink", {"a": 0}),
        (3, "device.uplink", {"a": 2}),
        (4, "device.uplink", {"a": 3}),
    ]
    assert seen[second.num] == [(1, "device.online", None), (2, "device.uplink", {"a": 1})]
    messages = await pool.fetchval(
        "SELECT count(*) FROM webhook_messages m JOIN webhook_events e ON e.num = m.event_num"
        " WHERE e.device_num = ANY ($1::int[])",
        [first.num, second.num],
    )
    assert messages == len(rows)
