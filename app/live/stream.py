"""GET /api/v1/stream: latest values as Server-Sent Events (analytics.md section 4).

A stream selects devices as fleet latest does (at most 1,000). It sends first one
`event: latest` per device (the snapshot), then one each time a device's latest values
change, `event: removed` when a device leaves what the key may see, and a comment line
when nothing else was sent for KEEPALIVE_S. Every event has an `id:`: the wall-clock
microsecond at which the worker heard of the change it carries (or read the snapshot),
increasing along the stream, so any worker can resume it.

Fan-out: one LISTEN per worker (app/core/listener.py) feeds the live hub
(app/notify/hub.py); a stream is a `Watcher` of its devices' nums and reads only the
bodies of the devices that changed, from the worker's /latest cache or in one
statement. No database connection is held while it waits.

- Resume: `Last-Event-ID` within RESUME_WINDOW_S (5 minutes), on a worker that has
  listened without a gap since then, sends only the devices whose values changed after
  it (less a margin of RESUME_MARGIN_S, since workers hear a notification at slightly
  different times: a device may be sent twice, never missed). Otherwise, or when a
  device moved meanwhile in a way the stream cannot account for, `event: reset` and the
  whole first send again.
- A lost LISTEN connection: once it is back, `event: reset` and a fresh snapshot on
  every stream of the worker (changes made meanwhile were not heard).
- The key is checked every KEY_CHECK_S: the stream ends once it is revoked or expired.
- A slow client: its writes block (the server's send waits for the socket); the changes
  meanwhile only mark nums in the stream's set, which never holds more than its
  selection. Past BACKLOG_LIMIT untaken notifications (app/notify/hub.py) the stream is
  ended, so whatever a client does the worker keeps at most one pending event and one
  set of at most 1,000 nums for it.
- At most 10 open streams per key (app/live/slots.py); at shutdown every stream ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import math
import time
import uuid
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from typing import Any

import anyio
import asyncpg
from litestar.response import Stream as StreamResponse
from litestar.response.base import ASGIResponse
from litestar.response.streaming import ASGIStreamingResponse
from litestar.types import Receive, Send

from app.auth.cache import current_cache
from app.auth.middleware import bearer_key
from app.auth.principal import Principal, hash_secret
from app.core.api import Page
from app.core.enums import DeviceStatus
from app.core.errors import invalid_parameter
from app.core.sql import QUERIES
from app.live.fleet import FLEET_MEMBERS, Item, items_by_num, select_items
from app.live.selection import MAX_IDS, Selection, restrict
from app.notify.hub import BACKLOG_LIMIT, LiveHub, Watcher

MAX_STREAM_DEVICES = 1_000
KEEPALIVE_S = 10.0
KEY_CHECK_S = 1.0
RESUME_MARGIN_S = 0.1
KEY_INFO = QUERIES["auth.key_info"]
log = logging.getLogger(__name__)


def event(kind: str, event_id: int, data: bytes) -> bytes:
    return b"event: %s\nid: %d\ndata: %s\n\n" % (kind.encode(), event_id, data)


def parse_last_event_id(raw_headers: Any) -> int | None:
    """The `Last-Event-ID` sent back by a reconnecting client: -1 when present but not
    one of ours (it can only be answered by `reset`), None when absent."""
    for name, value in raw_headers:
        if name == b"last-event-id":
            text = value.decode("latin-1").strip()
            return int(text) if text.isdigit() and len(text) <= 19 else -1
    return None


async def key_valid(app: Any, pool: asyncpg.Pool, key_hash: bytes) -> bool:
    """Whether the key may still read: known, not revoked, not expired. From the key
    cache while it is up (a database read only after a change of the key's partner)."""
    now = time.time()
    cache = current_cache(app)
    if cache is not None:
        info = cache.keys.get(key_hash) or await cache.key_info(key_hash)
        return info is not None and info.revoked_at > now and info.expires_at > now
    row = await pool.fetchrow(KEY_INFO, key_hash)
    if row is None:
        return False
    ends = [t.timestamp() for t in (row["revoked_at"], row["expires_at"]) if t is not None]
    return min(ends, default=math.inf) > now


async def stream_members(
    app: Any, pool: asyncpg.Pool, principal: Principal, selection: Selection
) -> list[Item]:
    """Every device of a stream's selection, or 400 when it selects more than 1,000."""
    if selection.references is not None:
        items, _ = await select_items(app, pool, principal, selection, Page(MAX_IDS, 0))
        return items
    items, total = await select_items(app, pool, principal, selection, Page(MAX_STREAM_DEVICES, 0))
    if total > MAX_STREAM_DEVICES:
        raise invalid_parameter(
            selection.given[0] if selection.given else "deviceIds",
            f"selects {total} devices; a stream takes at most {MAX_STREAM_DEVICES} "
            "(narrow it with the filters or name the devices in deviceIds)",
        )
    return items


async def member_ids(
    pool: asyncpg.Pool, principal: Principal, selection: Selection
) -> dict[int, uuid.UUID]:
    """num -> id of the devices a selection by filters holds now (at most 1,000)."""
    assert selection.filters is not None
    rows = await pool.fetch(
        FLEET_MEMBERS,
        principal.partner_id,
        principal.sub_account_id,
        *selection.filters,
        MAX_STREAM_DEVICES,
        0,
    )
    return {row["num"]: row["id"] for row in rows if row["num"] is not None}


@dataclass
class Stream:
    """One open stream: what its client was sent, and how to read more."""

    app: Any
    pool: asyncpg.Pool
    hub: LiveHub
    principal: Principal
    selection: Selection
    key_hash: bytes
    members: list[Item]
    # Wall-clock time just before `members` was read: changes heard after it are read
    # again once the stream watches.
    read_at: float
    # The client's view: num -> ETag of the body last sent; num -> id of every device
    # the stream follows (for `removed`).
    sent: dict[int, str] = field(default_factory=dict)
    ids: dict[int, uuid.UUID] = field(default_factory=dict)
    last_id: int = 0

    def next_id(self, at: float) -> int:
        self.last_id = max(self.last_id + 1, int(at * 1_000_000))
        return self.last_id

    def latest(self, item: Item, at: float) -> bytes:
        self.sent[item[1]] = item[3]
        self.ids[item[1]] = item[0]
        return event("latest", self.next_id(at), restrict(item[2], self.selection.fields))

    def removed(self, num: int, at: float) -> bytes:
        self.sent.pop(num, None)
        device_id = self.ids[num]
        data = b'{"deviceId":"%s"}' % str(device_id).encode()
        return event("removed", self.next_id(at), data)

    def snapshot(self, items: list[Item], at: float) -> list[bytes]:
        """The first send: every device; devices the client had that are gone, removed."""
        present = {item[1] for item in items}
        gone = [self.removed(num, at) for num in list(self.sent) if num not in present]
        self.sent.clear()
        return gone + [self.latest(item, at) for item in items]

    async def read_members(self) -> list[Item]:
        if self.selection.references is not None:
            return await stream_members(self.app, self.pool, self.principal, self.selection)
        ids = await member_ids(self.pool, self.principal, self.selection)
        items = await items_by_num(self.app, self.pool, self.principal, ids)
        return sorted(items)

    def watch(self) -> Watcher:
        """A watcher of the devices followed, and of moves (a device may join or leave)."""
        return self.hub.watch(Watcher(set(self.ids), moves=True))

    async def changed(self, nums: set[int], at: dict[int, float]) -> list[bytes]:
        """Events for the devices `nums` that changed: their new latest values, or
        `removed` for those the key may no longer see."""
        wanted = {num: self.ids[num] for num in nums if num in self.ids}
        items = await items_by_num(self.app, self.pool, self.principal, wanted)
        found = {item[1]: item for item in items}
        out = []
        now = time.time()
        for num in sorted(wanted):
            item = found.get(num)
            if item is None:
                if num in self.sent:
                    out.append(self.removed(num, now))
            elif self.sent.get(num) != item[3]:
                out.append(self.latest(item, at.get(num, now)))
        return out

    async def membership(self) -> list[bytes]:
        """A selection by filters after a device moved: new members sent, leavers removed."""
        items = await self.read_members()
        now = time.time()
        present = {item[1] for item in items}
        out = [self.removed(num, now) for num in list(self.sent) if num not in present]
        for num in [num for num in self.ids if num not in present]:
            del self.ids[num]
        out += [self.latest(item, now) for item in items if self.sent.get(item[1]) != item[3]]
        return out


async def run_stream(stream: Stream, resume_from: int | None) -> AsyncGenerator[bytes, None]:
    hub = stream.hub
    with hub.held():
        watcher: Watcher | None = None
        task = asyncio.current_task()
        try:
            read_at = stream.read_at
            for item in stream.members:
                stream.ids[item[1]] = item[0]
            first = _first_send(stream, resume_from, read_at)
            watcher = stream.watch()
            if task is not None:
                watcher.on_overflow = functools.partial(_overflowed, task)
            # Changes heard between the read and the watch are read again at once.
            if hub.missed(watcher, read_at):
                watcher.pending.update(stream.ids)
                watcher.event.set()
            for chunk in first:
                yield chunk
            last_write = last_check = time.monotonic()
            waiting_reset = False
            while not hub.closing:
                now = time.monotonic()
                timeout = min(KEEPALIVE_S - (now - last_write), KEY_CHECK_S)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(watcher.event.wait(), max(timeout, 0.0))
                if hub.closing:
                    return
                now = time.monotonic()
                if now - last_check >= KEY_CHECK_S:
                    last_check = now
                    if not await key_valid(stream.app, stream.pool, stream.key_hash):
                        return
                pending, moved, reset = watcher.take()
                out: list[bytes] = []
                if reset or waiting_reset:
                    # Notifications were lost: a fresh start once the hub hears again.
                    waiting_reset = not hub.listener.active
                    if not waiting_reset:
                        at = time.time()
                        items = await stream.read_members()
                        out = [event("reset", stream.next_id(at), b"{}")]
                        out += stream.snapshot(items, at)
                elif moved:
                    out = await stream.membership()
                    pending -= {n for n in pending if n not in stream.ids}
                    out += await stream.changed(pending, hub.changed_at)
                elif pending:
                    out = await stream.changed(pending, hub.changed_at)
                if (reset or moved) and set(stream.ids) != watcher.nums:
                    hub.unwatch(watcher)
                    overflow = watcher.on_overflow
                    watcher = stream.watch()
                    watcher.on_overflow = overflow
                if out:
                    yield b"".join(out)
                    last_write = time.monotonic()
                elif time.monotonic() - last_write >= KEEPALIVE_S:
                    yield b": keep-alive\n\n"
                    last_write = time.monotonic()
        finally:
            if watcher is not None:
                hub.unwatch(watcher)


def _overflowed(task: asyncio.Task[Any]) -> None:
    """Ends a stream whose client stopped reading (its write is blocked)."""
    log.info("stream: client not reading, backlog over %d changes; closing it", BACKLOG_LIMIT)
    task.cancel()


def _visible(principal: Principal, partner: str, sub_account: str, status: str) -> bool:
    """Whether a key saw a device of this tenancy and status (SQL `tenant_sees`, for
    the assigned devices that streams carry)."""
    if status != DeviceStatus.ASSIGNED or partner != str(principal.partner_id):
        return False
    return principal.sub_account_id is None or sub_account == str(principal.sub_account_id)


def _first_send(stream: Stream, resume_from: int | None, read_at: float) -> list[bytes]:
    """The snapshot, or only what changed since `Last-Event-ID` when that can be told."""
    if resume_from is None:
        return stream.snapshot(stream.members, read_at)
    since = resume_from / 1_000_000
    changes = stream.hub.changes_since(since, RESUME_MARGIN_S)
    if changes is not None:
        changed, moved, departures = changes
        stream.last_id = resume_from
        for item in stream.members:
            stream.sent[item[1]] = item[3]
        members = {str(item[0]) for item in stream.members}
        # Devices the key could see before they moved and that are not members now:
        # gone from the stream (`removed`; possibly one the client never had, of its own
        # tenancy).
        removed = [
            event("removed", stream.next_id(read_at), b'{"deviceId":"%s"}' % device_id.encode())
            for device_id, partner, sub_account, status in departures
            if device_id not in members and _visible(stream.principal, partner, sub_account, status)
        ]
        return removed + [
            stream.latest(item, read_at)
            for item in stream.members
            if item[1] in changed or item[1] in moved
        ]
    reset = event("reset", stream.next_id(read_at), b"{}")
    return [reset, *stream.snapshot(stream.members, read_at)]


def stream_key_hash(scope: Any) -> bytes:
    key = bearer_key(scope)
    assert key is not None  # the middleware let the request in
    return hash_secret(key)


class _ClosingStreamingResponse(ASGIStreamingResponse):
    """Litestar's streaming response that closes its iterator however the response ends.

    Litestar iterates the stream's async generator and sends each chunk; when a send is
    cancelled (the client left, or it stopped reading and the stream was ended), the
    generator stays suspended at its `yield` and its `finally` (freeing the stream's
    place, leaving the hub) would wait for the garbage collector."""

    async def send_body(self, send: Send, receive: Receive) -> None:
        try:
            await super().send_body(send, receive)
        finally:
            with anyio.CancelScope(shield=True):
                close = getattr(self.iterator, "aclose", None)
                if close is not None:
                    await close()


class EventStream(StreamResponse):
    """`text/event-stream` of an async generator, closed when the response ends."""

    def __init__(self, content: AsyncGenerator[bytes, None]) -> None:
        self.events = content
        super().__init__(
            content,
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    def to_asgi_response(
        self, app: Any, request: Any, *, headers: dict[str, str] | None = None, **kwargs: Any
    ) -> ASGIResponse:
        return _ClosingStreamingResponse(
            background=self.background or kwargs.get("background"),
            content_length=0,
            cookies=self.cookies,
            encoded_headers=kwargs.get("encoded_headers"),
            encoding=self.encoding,
            headers={**headers, **self.headers} if headers is not None else self.headers,
            is_head_response=kwargs.get("is_head_response", False),
            iterator=self.events,
            media_type="text/event-stream",
            status_code=self.status_code or kwargs.get("status_code"),
        )
