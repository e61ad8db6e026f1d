"""The worker's fan-out of change notifications to held requests and open streams.

Long polls (`Prefer: wait=N`) and event streams wait on the notifications the worker's
listening connection already receives (app/core/listener.py), never by polling the
database: `latest_changed` carries the num of a device whose stored latest body, status
or tenancy changed (schema/definitions/020-latest.sql), `device_moved` the num of a
device whose placement or searchable columns changed, or that was created, and '*' when a
site or network changed (schema/definitions/090-live.sql); `auth_changed` (feature
switches) counts as a move of everything. One LISTEN per worker serves every waiter.

A waiter (`Watcher`) names the device nums it follows; a notification for one of them
adds the num to its `pending` set and wakes it. The set holds at most the waiter's own
selection (1,000 devices for a stream), so whatever a client does, what the hub keeps for
it is bounded. A watcher of moves (a stream selected by filters, whose membership can
change) is also woken by every `device_moved`. When the connection is lost or
re-established every waiter is woken with `reset` set: notifications sent meanwhile are
gone, so each must read afresh. At shutdown `close` wakes every waiter with `closing` set.

For a stream's resume (`Last-Event-ID`) the hub remembers when each device last changed
and moved (wall-clock seconds, kept for RESUME_WINDOW_S) and since when it has been
listening without a gap: a resume is answerable only from that time on.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import time
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from app.core.listener import Listener

LATEST_CHANNEL = "latest_changed"
MOVED_CHANNEL = "device_moved"
AUTH_CHANNEL = "auth_changed"
# A stream may resume from an event at most this old (analytics.md section 4).
RESUME_WINDOW_S = 300.0
# Notifications a waiter may leave untaken (counted with repeats) before it is dropped: a
# stream's client that stops reading blocks its writes, and past this many changes for
# it the stream is ended. What a waiter holds meanwhile is its set of changed nums, never
# more than its selection.
BACKLOG_LIMIT = 1_000
# The change times kept: beyond this many devices the older times are pruned.
MAX_TIMES = 200_000


# A moved device as it was before: its id, partner, sub-account (`-`: none) and status.
Departure = tuple[str, str, str, str]


class Watcher:
    """One held request or stream: the nums it follows and what happened since it last
    looked."""

    __slots__ = (
        "backlog",
        "event",
        "moved",
        "moves",
        "nums",
        "on_overflow",
        "pending",
        "reset",
    )

    def __init__(self, nums: Iterable[int], moves: bool = False) -> None:
        self.nums = frozenset(nums)
        self.moves = moves
        self.pending: set[int] = set()
        self.moved = False
        self.reset = False
        self.event = asyncio.Event()
        # Notifications for it since it last took them, counted with repeats; past
        # BACKLOG_LIMIT `on_overflow` is called (a stream whose client stopped reading).
        self.backlog = 0
        self.on_overflow: Callable[[], None] | None = None

    def take(self) -> tuple[set[int], bool, bool]:
        """The nums changed, whether a device moved and whether a reset came since the
        last `take`, cleared."""
        pending, moved, reset = self.pending, self.moved, self.reset
        self.pending, self.moved, self.reset = set(), False, False
        self.backlog = 0
        self.event.clear()
        return pending, moved, reset

    def _count(self) -> None:
        self.backlog += 1
        if self.backlog > BACKLOG_LIMIT and self.on_overflow is not None:
            overflow, self.on_overflow = self.on_overflow, None
            overflow()


# Every hub of the process, for the worker's signal handler (app/live/shutdown.py).
_HUBS: weakref.WeakSet[LiveHub] = weakref.WeakSet()


def close_every_hub() -> None:
    for hub in list(_HUBS):
        hub.close()


class LiveHub:
    def __init__(self, listener: Listener) -> None:
        _HUBS.add(self)
        self.listener = listener
        listener.subscribe(LATEST_CHANNEL, self._latest_changed, self._reset)
        listener.subscribe(MOVED_CHANNEL, self._moved, _nothing)
        # Feature switches (partners, sub-accounts) decide what the network and site
        # filters match: their changes move memberships too.
        listener.subscribe(AUTH_CHANNEL, self._tenancy_changed, _nothing)
        self.watchers: dict[int, set[Watcher]] = {}
        self.movers: set[Watcher] = set()
        self.everyone: set[Watcher] = set()
        self.changed_at: dict[int, float] = {}
        self.moved_at: dict[int, float] = {}
        # (when, "id partner sub-account status" before the move) of the devices moved
        # within RESUME_WINDOW_S, oldest first.
        self.departures: collections.deque[tuple[float, str]] = collections.deque()
        # Wall-clock time since when notifications have arrived without a gap (inf: not
        # listening now).
        self.listening_since = float("inf")
        self.closing = False
        # Held requests and open streams of this worker, waiting or not.
        self.holding = 0
        self.idle = asyncio.Event()
        # Wall-clock times of the last wake of every waiter and of the last move: a
        # waiter that read the database after one of them must read again.
        self.last_reset = 0.0
        self.last_moved = 0.0
        # Bumped by every move, tenancy change and reset: a membership read while it kept
        # its value is still current (app/live/fleet.py).
        self.membership_generation = 0
        # Pages of selections by filters read while the generation held (app/live/fleet.py).
        self.memberships: dict[tuple[Any, ...], tuple[int, list[Any], int]] = {}
        # Fleet latest answers by tenancy and query string, and reads of device bodies
        # under way, joined by other waiters (app/live/fleet.py).
        self.answers: dict[tuple[Any, ...], tuple[int, float, tuple[Any, ...], Any]] = {}
        self.answer_bytes = 0
        self.flights: dict[tuple[Any, ...], Any] = {}
        # Read by tests and the benchmark: notifications fanned out.
        self.notifications = 0

    @property
    def active(self) -> bool:
        return self.listener.active and not self.closing

    def watch(self, watcher: Watcher) -> Watcher:
        for num in watcher.nums:
            self.watchers.setdefault(num, set()).add(watcher)
        if watcher.moves:
            self.movers.add(watcher)
        self.everyone.add(watcher)
        if self.closing:
            watcher.event.set()
        return watcher

    def unwatch(self, watcher: Watcher) -> None:
        for num in watcher.nums:
            followers = self.watchers.get(num)
            if followers is not None:
                followers.discard(watcher)
                if not followers:
                    del self.watchers[num]
        self.movers.discard(watcher)
        self.everyone.discard(watcher)

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """Counts a held request or an open stream while the block runs."""
        self.holding += 1
        self.idle.clear()
        try:
            yield
        finally:
            self.holding -= 1
            if not self.holding:
                self.idle.set()

    def close(self) -> None:
        """Shutdown: every waiter is woken to answer and end."""
        self.closing = True
        for watcher in self.everyone:
            watcher.event.set()

    # Notifications ---------------------------------------------------------------

    def _latest_changed(self, payload: str) -> None:
        self.notifications += 1
        if not payload.isdigit():
            self._wake_all()
            return
        num = int(payload)
        _remember(self.changed_at, num)
        for watcher in self.watchers.get(num, ()):
            watcher.pending.add(num)
            watcher.event.set()
            watcher._count()

    def _tenancy_changed(self, payload: str) -> None:
        self._moved("*")

    def _moved(self, payload: str) -> None:
        self.membership_generation += 1
        now = self.last_moved = time.time()
        num, _, before = payload.partition(" ")
        if num.isdigit():
            _remember(self.moved_at, int(num))
            if before:
                self.departures.append((now, before))
                while self.departures and self.departures[0][0] < now - RESUME_WINDOW_S:
                    self.departures.popleft()
                if len(self.departures) > MAX_TIMES:
                    self.departures.popleft()
        for watcher in self.movers:
            watcher.moved = True
            watcher.event.set()
            watcher._count()

    def _reset(self) -> None:
        """The connection was (re)established or lost: what came meanwhile is unknown."""
        self.listening_since = time.time() if self.listener.connection is not None else float("inf")
        self._wake_all()

    def _wake_all(self) -> None:
        self.membership_generation += 1
        self.last_reset = time.time()
        for watcher in self.everyone:
            watcher.reset = True
            watcher.event.set()

    def missed(self, watcher: Watcher, since: float) -> bool:
        """Whether something the watcher follows changed after wall-clock time `since`
        (taken before the database read its waiter answered from) but before it began
        to watch: then it must read again rather than wait."""
        if self.closing or self.last_reset >= since or (watcher.moves and self.last_moved >= since):
            return True
        changed_at = self.changed_at
        return any(changed_at.get(num, 0.0) >= since for num in watcher.nums)

    # Resume ----------------------------------------------------------------------

    def changes_since(
        self, since: float, margin: float
    ) -> tuple[set[int], set[int], list[Departure]] | None:
        """The nums changed and moved after wall-clock time `since`, and the devices
        moved since then as they were before their first move, or None when the hub
        cannot tell (it was not listening all along, or `since` is too old)."""
        now = time.time()
        if since < now - RESUME_WINDOW_S or since < self.listening_since or since > now:
            return None
        # Workers hear a notification at slightly different times: what this one heard a
        # little before `since` may have reached the client's worker after it.
        since -= margin
        changed = {num for num, at in self.changed_at.items() if at > since}
        moved = {num for num, at in self.moved_at.items() if at > since}
        first: dict[str, Departure] = {}
        for at, before in self.departures:
            if at > since:
                device_id, partner, sub_account, status = before.split(" ")
                first.setdefault(device_id, (device_id, partner, sub_account, status))
        return changed, moved, list(first.values())


def _remember(times: dict[int, float], num: int) -> None:
    now = time.time()
    times[num] = now
    if len(times) > MAX_TIMES:
        cutoff = now - RESUME_WINDOW_S
        for old in [n for n, at in times.items() if at < cutoff]:
            del times[old]


def _nothing() -> None:
    """`device_moved` needs no reset of its own: `latest_changed`'s wakes every waiter."""


def current_hub(app: object) -> LiveHub | None:
    hub: LiveHub | None = getattr(getattr(app, "state", None), "live_hub", None)
    return hub
