"""Long poll (analytics.md section 1): `If-None-Match` with `Prefer: wait=N` holds an
unchanged answer until it changes or N seconds pass.

A held request costs no database connection and no polling: it registers a `Watcher`
on the nums of the devices its answer is made of with the worker's live hub
(app/notify/hub.py) and sleeps until a notification names one of them (or, for a selection
by filters, any device moved), then reads its answer again: 200 when the ETag changed,
else it waits on for the time left. It was counted once, when it came in. At shutdown
the hub wakes every held request, which answers 304 at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any

from app.notify.hub import LiveHub, Watcher, current_hub

MAX_WAIT_S = 60
_WAIT = re.compile(r'\s*wait\s*=\s*"?([0-9]+)"?\s*$', re.IGNORECASE)

# What an answer is made of: the nums of its devices, its body and its ETag.
Answer = tuple[frozenset[int], bytes, str]


def header(raw_headers: Any, wanted: bytes) -> list[str]:
    """Every value of one header, read straight from the ASGI scope."""
    return [value.decode("latin-1") for name, value in raw_headers if name == wanted]


def requested_wait(raw_headers: Any) -> int | None:
    """The seconds of a readable `Prefer: wait=N` (1..60, more taken as 60), else None:
    a preference that cannot be read is ignored (RFC 7240 section 2)."""
    for value in header(raw_headers, b"prefer"):
        for preference in value.split(","):
            found = _WAIT.match(preference.split(";")[0])
            if found:
                seconds = int(found.group(1))
                return min(seconds, MAX_WAIT_S) if seconds >= 1 else None
    return None


def if_none_match(raw_headers: Any) -> str | None:
    values = header(raw_headers, b"if-none-match")
    return ", ".join(values) if values else None


async def hold(
    app: Any,
    seconds: int,
    first: Answer,
    read: Callable[[], Awaitable[Answer]],
    follows_moves: bool,
    read_at: float,
) -> Answer | None:
    """Waits up to `seconds` for the answer `first` (read at wall-clock `read_at`) to
    change: the new answer, or None when it did not (then 304)."""
    hub = current_hub(app)
    if hub is None:
        await asyncio.sleep(seconds)
        return None
    deadline = time.monotonic() + seconds
    nums, _, etag = first
    with hub.held():
        while True:
            watcher = Watcher(nums, moves=follows_moves)
            if not await _notified(hub, watcher, read_at, deadline) or hub.closing:
                return None
            read_at = time.time()
            answer = await read()
            if answer[2] != etag:
                return answer
            nums = answer[0]


async def _notified(hub: LiveHub, watcher: Watcher, read_at: float, deadline: float) -> bool:
    """Whether a notification for `watcher` came after `read_at` (one the hub already
    had, or one before `deadline`); False when the deadline passed first."""
    hub.watch(watcher)
    try:
        if hub.missed(watcher, read_at):
            return True
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        try:
            await asyncio.wait_for(watcher.event.wait(), left)
        except TimeoutError:
            return False
        return True
    finally:
        hub.unwatch(watcher)


async def drain(hub: LiveHub, timeout_s: float) -> None:
    """Shutdown: wakes every held request and stream, and gives them `timeout_s` to
    answer before the worker goes on closing."""
    hub.close()
    if hub.holding:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(hub.idle.wait(), timeout_s)
    # The last answers are written once their handlers return.
    await asyncio.sleep(0.1)
