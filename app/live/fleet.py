"""GET /api/v1/latest: the latest values of many devices in one answer (analytics.md 1).

The answer is made of the stored bodies of `/devices/{id}/latest`, taken from the worker's
/latest cache (app/telemetry/latest_cache.py) when it holds them and read in one
statement otherwise. With `deviceIds` whose devices are all in the cache, an answer (a
304 above all) costs no database round trip; a selection by filters reads its members
(nums and ids of one page, and their count) in one statement first. The ETag is the MD5
of the whole answer, so it changes exactly when the answer would.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import asyncpg
import msgspec

from app.auth.principal import Principal
from app.core.api import Page
from app.core.sql import QUERIES
from app.live.selection import Selection, restrict
from app.live.wait import Answer
from app.telemetry.controller import static_body
from app.telemetry.latest_cache import LatestCache, LatestKey, current_latest_cache

FLEET_MEMBERS = QUERIES["live.fleet_members"]
BODIES_BY_NUM = QUERIES["live.bodies_by_num"]
BODIES_BY_REFERENCE = QUERIES["live.bodies_by_reference"]


class _Head(msgspec.Struct):
    """The start of a stored body: its device's id."""

    deviceId: uuid.UUID


_HEAD = msgspec.json.Decoder(_Head)

# One selected device: (id, num, stored body).
Item = tuple[uuid.UUID, int, bytes]


async def _bodies(
    pool: asyncpg.Pool,
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
        num, body, _ = hit
        device_id = key[2] if key[2] is not None else _HEAD.decode(body).deviceId
        items.append((device_id, num, body))
    if not misses:
        return items
    marks = {key: latest.mark(key) for key in misses} if latest is not None else {}
    rows = await read(misses)
    partner, sub_account = principal.partner_id, principal.sub_account_id
    for row in rows:
        stored: bytes | None = row["latest_body"]
        if stored is None:
            stored, _ = await static_body(pool, row["num"])
        elif latest is not None:
            for key in (
                (partner, sub_account, row["id"], None),
                (partner, sub_account, None, row.get("dev_eui")),
            ):
                mark = marks.get(key)
                if mark is not None:
                    latest.put(key, row["num"], stored, row["latest_etag"], mark)
        items.append((row["id"], row["num"], stored))
    return items


async def read_fleet(
    app: Any, pool: asyncpg.Pool, principal: Principal, selection: Selection, page: Page
) -> Answer:
    """The page of the selection: the nums of its devices, the answer's body and ETag."""
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

        items = await _bodies(pool, latest, principal, wanted, by_reference)
        # A device named twice (by id and by DevEUI) appears once.
        unique = sorted({item[0]: item for item in items}.values())
        total = len(unique)
        chosen = unique[page.offset : page.offset + page.limit]
    else:
        assert selection.filters is not None
        members = await pool.fetch(
            FLEET_MEMBERS, partner, sub_account, *selection.filters, page.limit, page.offset
        )
        total = members[0]["total"]
        rows = [row for row in members if row["num"] is not None]
        order = {row["id"]: index for index, row in enumerate(rows)}
        num_of = {row["id"]: row["num"] for row in rows}

        async def by_num(misses: list[LatestKey]) -> list[Any]:
            nums = [num_of[key[2]] for key in misses]
            return await pool.fetch(BODIES_BY_NUM, nums, partner, sub_account)

        wanted = [(partner, sub_account, row["id"], None) for row in rows]
        items = await _bodies(pool, latest, principal, wanted, by_num)
        # A device that left the selection between the two reads is left out.
        items = [item for item in items if item[0] in order]
        chosen = sorted(items, key=lambda item: order[item[0]])
    body = b"".join(
        (
            b'{"data":[',
            b",".join(restrict(item[2], selection.fields) for item in chosen),
            b'],"pagination":{"limit":%d,"offset":%d,"total":%d}}'
            % (page.limit, page.offset, total),
        )
    )
    etag = '"' + hashlib.md5(body, usedforsecurity=False).hexdigest() + '"'
    return frozenset(item[1] for item in chosen), body, etag
