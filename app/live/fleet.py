"""GET /api/v1/latest: the latest values of many devices in one answer (analytics.md 1).

The answer is made of the stored bodies of `/devices/{id}/latest`, taken from the worker's
/latest cache (app/latest/cache.py) when it holds them and read in one
statement otherwise. With `deviceIds` whose devices are all in the cache, an answer (a
304 above all) costs no database round trip; a selection by filters reads its members
(nums and ids of one page, and their count) in one statement first. The ETag is the MD5
of the whole answer, so it changes exactly when the answer would.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import asyncpg
import msgspec

from app.auth.principal import Principal
from app.core.api import Page
from app.core.sql import QUERIES
from app.latest.cache import LatestCache, LatestKey, current_latest_cache
from app.latest.controller import static_body
from app.live.selection import Selection, restrict
from app.notify.hub import current_hub
from app.notify.wait import Answer
from app.profiles.contexts import DeviceContexts

FLEET_MEMBERS = QUERIES["live.fleet_members"]
BODIES_BY_NUM = QUERIES["live.bodies_by_num"]
BODIES_BY_REFERENCE = QUERIES["live.bodies_by_reference"]


class _Head(msgspec.Struct):
    """The start of a stored body: its device's id."""

    deviceId: uuid.UUID


_HEAD = msgspec.json.Decoder(_Head)

# One selected device: (id, num, stored body, its ETag).
Item = tuple[uuid.UUID, int, bytes, str]


async def _bodies(
    pool: asyncpg.Pool,
    contexts: DeviceContexts,
    latest: LatestCache | None,
    principal: Principal,
    wanted: list[LatestKey],
    read: Callable[[list[LatestKey]], Awaitable[list[Any]]],
) -> list[Item]:
    """The items of `wanted` (cache keys): cache hits as they are, the misses read by
    `read` (rows of num, id, dev_eui?, body) and cached for the next time."""
    items: list[Item] = []
    misses: list[LatestKey] = []
    for key in wanted:
        hit = latest.entry(key) if latest is not None else None
        if hit is None:
            misses.append(key)
            continue
        num, body, tag = hit
        device_id = key[2] if key[2] is not None else _HEAD.decode(body).deviceId
        items.append((device_id, num, body, tag))
    if not misses:
        return items
    marks = {key: latest.mark(key) for key in misses} if latest is not None else {}
    rows = await read(misses)
    partner, sub_account = principal.partner_id, principal.sub_account_id
    for row in rows:
        stored: bytes | None = row["latest_body"]
        etag: str = row["latest_etag"]
        if stored is None:
            stored, etag = await static_body(pool, contexts, row["num"])
        elif latest is not None:
            for key in (
                (partner, sub_account, row["id"], None),
                (partner, sub_account, None, row.get("dev_eui")),
            ):
                mark = marks.get(key)
                if mark is not None:
                    latest.put(key, row["num"], stored, etag, mark)
        items.append((row["id"], row["num"], stored, etag))
    return items


class _Flight:
    """A read of some devices' bodies under way, which others may join (see
    `items_by_num`)."""

    __slots__ = ("done", "found", "started_at")

    def __init__(self) -> None:
        self.started_at = time.time()
        self.done = asyncio.Event()
        self.found: dict[int, Item] | None = None


async def items_by_num(
    app: Any, pool: asyncpg.Pool, principal: Principal, ids: dict[int, uuid.UUID]
) -> list[Item]:
    """The items of the devices `ids` (num -> id) still visible to the key and assigned.

    When a device changes, every stream and held request following it wakes at once and
    its cache entry is gone: without care each would read the same row. A read under way
    for the same tenancy and device is joined instead, provided it began after this
    worker heard of the device's last change (so it cannot miss it)."""
    partner, sub_account = principal.partner_id, principal.sub_account_id
    latest = current_latest_cache(app)
    hub = current_hub(app)
    changed_at = hub.changed_at if hub is not None else {}
    # (partner, key sub-account, num) -> the read of that device's body under way, kept
    # by the app's hub (a process serving several clusters has one per cluster).
    flights: dict[Any, Any] = hub.flights if hub is not None else {}
    items: list[Item] = []
    mine: dict[int, uuid.UUID] = {}
    joined: dict[int, _Flight] = {}
    for num, device_id in ids.items():
        hit = latest.entry((partner, sub_account, device_id, None)) if latest else None
        if hit is not None:
            items.append((device_id, hit[0], hit[1], hit[2]))
            continue
        flight = flights.get((partner, sub_account, num))
        if flight is not None and flight.started_at >= changed_at.get(num, 0.0):
            joined[num] = flight
        else:
            mine[num] = device_id
    if mine:
        flight = _Flight()
        for num in mine:
            flights[(partner, sub_account, num)] = flight
        try:

            async def by_num(misses: list[LatestKey]) -> list[Any]:
                nums = [
                    num
                    for num, device_id in mine.items()
                    if (partner, sub_account, device_id, None) in misses
                ]
                return await pool.fetch(BODIES_BY_NUM, nums, partner, sub_account)

            wanted: list[LatestKey] = [(partner, sub_account, d, None) for d in mine.values()]
            read = await _bodies(pool, app.state.device_contexts, latest, principal, wanted, by_num)
            flight.found = {item[1]: item for item in read}
            items.extend(read)
        finally:
            flight.done.set()
            for num in mine:
                if flights.get((partner, sub_account, num)) is flight:
                    del flights[(partner, sub_account, num)]
    for num, flight in joined.items():
        await flight.done.wait()
        if flight.found is None:  # that read failed: read it here
            items.extend(await items_by_num(app, pool, principal, {num: ids[num]}))
        elif num in flight.found:
            items.append(flight.found[num])
    return items


# Pages of members kept per worker (a page of 200 is some 30 kB); past it, all are dropped.
MAX_MEMBERSHIPS = 1_000


async def _members(
    app: Any, pool: asyncpg.Pool, principal: Principal, selection: Selection, page: Page
) -> tuple[list[Any], int]:
    """A page of the members of a selection by filters, and their count: one statement,
    kept per worker until the hub hears of a move, a tenancy or placement change or a
    reset (its membership generation), so a refresh of an unchanged page reads nothing.
    Not kept with `online`, which changes with time alone."""
    hub = current_hub(app)
    assert selection.filters is not None
    key = (
        principal.partner_id,
        principal.sub_account_id,
        selection.filters,
        page.limit,
        page.offset,
    )
    cacheable = hub is not None and hub.listener.active and "online" not in selection.given
    generation = hub.membership_generation if hub is not None else 0
    if cacheable and hub is not None:
        kept = hub.memberships.get(key)
        if kept is not None and kept[0] == generation:
            return kept[1], kept[2]
    members = await pool.fetch(
        FLEET_MEMBERS,
        principal.partner_id,
        principal.sub_account_id,
        *selection.filters,
        page.limit,
        page.offset,
    )
    rows = [(row["num"], row["id"]) for row in members if row["num"] is not None]
    total: int = members[0]["total"]
    if cacheable and hub is not None and hub.listener.active:
        if len(hub.memberships) >= MAX_MEMBERSHIPS:
            hub.memberships.clear()
        hub.memberships[key] = (generation, rows, total)
    return rows, total


async def select_items(
    app: Any, pool: asyncpg.Pool, principal: Principal, selection: Selection, page: Page
) -> tuple[list[Item], int]:
    """A page of the selection's devices, ordered by id, and how many it selects."""
    latest = current_latest_cache(app)
    partner, sub_account = principal.partner_id, principal.sub_account_id
    if selection.references is not None:
        wanted: list[LatestKey] = [
            (partner, sub_account, device_id, eui)
            for device_id, eui in dict.fromkeys(selection.references)
        ]

        async def by_reference(misses: list[LatestKey]) -> list[Any]:
            ids = [key[2] for key in misses if key[2] is not None]
            euis = [key[3] for key in misses if key[3] is not None]
            return await pool.fetch(BODIES_BY_REFERENCE, ids, euis, partner, sub_account)

        items = await _bodies(
            pool, app.state.device_contexts, latest, principal, wanted, by_reference
        )
        # A device named twice (by id and by DevEUI) appears once.
        unique = sorted({item[0]: item for item in items}.values())
        return unique[page.offset : page.offset + page.limit], len(unique)
    assert selection.filters is not None
    rows, total = await _members(app, pool, principal, selection, page)
    order = {device_id: index for index, (_, device_id) in enumerate(rows)}
    items = await items_by_num(app, pool, principal, dict(rows))
    # A device that left the selection between the two reads is left out.
    items = [item for item in items if item[0] in order]
    return sorted(items, key=lambda item: order[item[0]]), total


# The answers a worker keeps: at most this many, of at most this many bytes of bodies
# together (a page of 200 devices is some 100 kB); past either, all are dropped.
MAX_ANSWERS = 2_000
MAX_ANSWER_BYTES = 32 * 1024 * 1024


def kept_answer(app: Any, principal: Principal, query: bytes) -> Answer | None:
    """The answer to the same query (tenancy and query string) kept by `keep_answer`,
    while it is certainly current: no move or reset since (the hub's membership
    generation), and for each of its devices no change heard since it was read and the
    same generation slot (app/latest/generations.py) as its cached body had. A refresh
    of an unchanged page then costs a few integer lookups per device."""
    latest = current_latest_cache(app)
    hub = current_hub(app)
    if latest is None or hub is None:
        return None
    kept = hub.answers.get((principal.partner_id, principal.sub_account_id, query))
    if kept is None:
        return None
    generation, read_at, slots, answer = kept
    if generation != hub.membership_generation:
        return None
    changed_at = hub.changed_at
    read = latest.generations.read
    for num, slot in slots:
        if changed_at.get(num, 0.0) >= read_at or read(num) != slot:
            return None
    return answer


def keep_answer(
    app: Any,
    principal: Principal,
    query: bytes,
    generation: int,
    read_at: float,
    items: list[Item],
    answer: Answer,
) -> None:
    """Keeps an answer read after wall-clock `read_at` with the hub's membership
    `generation` as it was before, when every body in it is the worker's cached one (whose
    generation slot, read before its database read, is what a later check compares)."""
    latest = current_latest_cache(app)
    hub = current_hub(app)
    if latest is None or hub is None or generation != hub.membership_generation:
        return
    partner, sub_account = principal.partner_id, principal.sub_account_id
    slots = []
    for device_id, num, _, etag in items:
        entry = latest.entries.get((partner, sub_account, device_id, None))
        if entry is None or entry[3] != etag or latest.generations.read(num) != entry[1]:
            return
        slots.append((num, entry[1]))
    key = (partner, sub_account, query)
    previous = hub.answers.pop(key, None)
    if previous is not None:
        hub.answer_bytes -= len(previous[3][1])
    size = len(answer[1])
    if len(hub.answers) >= MAX_ANSWERS or hub.answer_bytes + size > MAX_ANSWER_BYTES:
        hub.answers.clear()
        hub.answer_bytes = 0
    hub.answers[key] = (generation, read_at, tuple(slots), answer)
    hub.answer_bytes += size


async def read_fleet(
    app: Any,
    pool: asyncpg.Pool,
    principal: Principal,
    selection: Selection,
    page: Page,
    query: bytes | None = None,
) -> Answer:
    """The page of the selection: the nums of its devices, the answer's body and ETag;
    with `query` (the request's query string) kept for the next identical request."""
    hub = current_hub(app)
    generation = hub.membership_generation if hub is not None else 0
    read_at = time.time()
    chosen, total = await select_items(app, pool, principal, selection, page)
    body = b"".join(
        (
            b'{"data":[',
            b",".join(restrict(item[2], selection.fields) for item in chosen),
            b'],"pagination":{"limit":%d,"offset":%d,"total":%d}}'
            % (page.limit, page.offset, total),
        )
    )
    etag = '"' + hashlib.md5(body, usedforsecurity=False).hexdigest() + '"'
    answer = frozenset(item[1] for item in chosen), body, etag
    if query is not None:
        keep_answer(app, principal, query, generation, read_at, chosen, answer)
    return answer
