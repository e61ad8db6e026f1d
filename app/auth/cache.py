"""Per-worker key cache and leased rate-limit permits (decisions D2-D4).

Without it every request wrote its key's usage row under a row lock. With it:
- what a key is (tenancy, scopes, plan, features, tier limits, expiry, revocation) is kept
  per worker and dropped when PostgreSQL notifies `auth_changed` (triggers of
  schema/definitions/015-auth-cache.sql, at commit of any change to a key, partner or
  sub-account);
- permits of the per-minute limit and the daily quota are leased from the usage row
  (`api_lease`, by the database's clock) and spent locally until the end of the second
  they were granted in; the database counts them as spent at that end, so each frees its
  slot no sooner than 60 s after it was spent. Unused ones go back on the key's next lease
  or by the flush loop about once a second, so the counts stay exact: at most N in any
  60-second window, every served request counted, a 429 not. While a key's budget left is
  small a lease holds one permit, so small limits are decided request by request, each
  at the moment the database grants it.

The cache is used only while the worker's listening connection (app/core/listener.py)
is up; when it drops, the cache is flushed and every request runs `api_authenticate`
again until it is back. `TELEMETRY_AUTH_CACHE=0` (Settings.auth_cache) keeps the
per-request path for good.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
import uuid
from datetime import datetime
from typing import Any

import asyncpg
import msgspec

from app.auth.errors import limited_error, unauthorized
from app.auth.principal import Principal, principal_from_row
from app.core.config import Settings
from app.core.listener import Listener
from app.core.sql import QUERIES

KEY_INFO = QUERIES["auth.key_info"]
LEASE = QUERIES["auth.lease"]
DESCRIBE_KEY = QUERIES["accounts.describe_key"]
CHANNEL = "auth_changed"
# The most permits one lease asks for. A busy key asks about as many as it used in its
# previous second, up to this; each lease is a statement and sends its request through the
# full path instead of /latest's lean one (app/latest/lean.py): at 64, a key polled a
# thousand times a second per worker leased every 64 requests, ~10% of a worker's CPU on
# /latest 304 (py-spy). The budget bound per lease (budget / (4 x workers)) still holds.
MAX_LEASE = 256
FLUSH_EVERY_S = 1.0
# How long a request may wait for another's lease renewal before taking the full path
# (whose deadline starts then): well within the deadline's margin (Deadlines.MARGIN_S).
RENEWAL_WAIT_S = 0.02
# A lease nobody used for this long (and holding no permits) is forgotten.
IDLE_S = 120.0
log = logging.getLogger(__name__)


class KeyInfo(msgspec.Struct, frozen=True):
    principal: Principal  # `remaining` filled in per request
    per_day: int
    expires_at: float  # epoch seconds; inf when never
    revoked_at: float


class Lease:
    """The permits of one key this worker holds until the end of one second."""

    __slots__ = (
        "base",
        "day_used",
        "deadline",
        "demand",
        "key_id",
        "last_demand",
        "left",
        "lock",
        "second",
        "touched",
        "used",
    )

    def __init__(self, key_id: uuid.UUID) -> None:
        self.key_id = key_id
        self.second = 0  # the database's second the permits were granted in
        # Monotonic time until which they may be spent: the end of that second, counted
        # from before the lease was asked for, so never later than the database's end.
        self.deadline = 0.0
        self.left = 0  # unused permits of that second
        self.base = 0  # window sum before the grant
        self.day_used = 0  # the day's count after the grant (all its permits included)
        self.used = 0  # permits spent since the grant
        self.demand = 0  # requests of this key seen in `second`
        self.last_demand = 0
        self.touched = time.monotonic()  # the last request that used the lease
        self.lock = asyncio.Lock()

    def holds_permit(self, clock: float) -> bool:
        """Whether a permit can be spent now (monotonic `clock`) without asking for more."""
        return self.left > 0 and clock < self.deadline


class Limited(Exception):
    def __init__(
        self,
        outcome: str,
        limit: int,
        remaining: int,
        retry_after: int,
        day_remaining: int,
        hold_s: float,
    ) -> None:
        self.outcome = outcome
        self.limit = limit
        self.remaining = remaining
        self.retry_after = retry_after
        self.day_remaining = day_remaining
        self.hold_s = hold_s  # how long to hold the answer so that Retry-After is exact


class AuthCache:
    def __init__(self, pool: asyncpg.Pool, settings: Settings, listener: Listener) -> None:
        self.pool = pool
        self.settings = settings
        self.keys: dict[bytes, KeyInfo] = {}
        # GET /me's names and expiry of a key (accounts.describe_key), by key id. Any
        # notification drops them all: the names change seldom, and a partner's or a
        # sub-account's name is not told apart from its keys' by the payload.
        self.descriptions: dict[uuid.UUID, Any] = {}
        self.leases: dict[uuid.UUID, Lease] = {}
        self.generation = 0
        # Read by the metrics (app/observe/metrics.py) as the key cache's hit ratio.
        self.key_hits = 0
        self.key_misses = 0
        self.listener = listener
        listener.subscribe(CHANNEL, self._notified, self._reset)
        # A large budget is divided among workers: at most budget / (4 x workers) per lease.
        self.share = 4 * settings.workers
        self.exact_below = settings.lease_exact_below

    @property
    def active(self) -> bool:
        """Whether the cache may serve: only while its notifications can arrive."""
        return self.listener.active

    @property
    def _listener(self) -> asyncpg.Connection | None:
        return self.listener.connection

    # Invalidation ------------------------------------------------------------------

    def _notified(self, payload: str) -> None:
        self.generation += 1
        self.descriptions.clear()
        if payload == "*":
            self.keys.clear()
            return
        stale = [h for h, info in self.keys.items() if str(info.principal.partner_id) == payload]
        for key_hash in stale:
            del self.keys[key_hash]

    def _reset(self) -> None:
        self.generation += 1
        self.keys.clear()
        self.descriptions.clear()

    async def close(self) -> None:
        await self.flush(final=True)

    # Lookups -----------------------------------------------------------------------

    async def key_info(self, key_hash: bytes) -> KeyInfo | None:
        info = self.keys.get(key_hash)
        if info is not None:
            return info
        self.key_misses += 1
        generation = self.generation
        row = await self.pool.fetchrow(KEY_INFO, key_hash)
        if row is None:
            return None  # unknown keys are not cached
        info = KeyInfo(
            principal=principal_from_row(
                row,
                rate_limit=row["per_minute"],
                remaining=0,
                day_limit=row["per_day"],
                day_remaining=0,
            ),
            per_day=row["per_day"],
            expires_at=_epoch(row["expires_at"]),
            revoked_at=_epoch(row["revoked_at"]),
        )
        # A notification that came while the row was read may predate it: keep the answer
        # for this request only.
        if self.active and generation == self.generation:
            self.keys[key_hash] = info
        return info

    async def describe(self, key_id: uuid.UUID) -> Any:
        """The row of accounts.describe_key for a key (its name, expiry, partner and
        sub-account names), kept until the next `auth_changed` notification: the triggers
        of 015-auth-cache.sql notify at commit of any change to a key, partner or
        sub-account, which are what the row is read from."""
        row = self.descriptions.get(key_id)
        if row is not None:
            return row
        generation = self.generation
        row = await self.pool.fetchrow(DESCRIBE_KEY, key_id)
        # As in key_info: a row read while a notification came may predate it.
        if row is not None and self.active and generation == self.generation:
            self.descriptions[key_id] = row
        return row

    async def permit(self, info: KeyInfo) -> tuple[int, int]:
        """Spends one permit of the key; returns what is left of the minute window and of
        the day (the rate-limit headers), or raises Limited."""
        limit = info.principal.rate_limit
        key_id = info.principal.key_id
        lease = self.leases.get(key_id)
        if lease is None:
            lease = self.leases[key_id] = Lease(key_id)
        clock = time.monotonic()
        # Marks the lease as in use before any wait, so the flush loop does not forget it
        # (a forgotten lease that was still being granted kept its permits unreturned).
        lease.touched = clock
        if lease.holds_permit(clock):
            return self._spend(lease, limit, info.per_day)
        async with lease.lock:
            asked = time.monotonic()
            if lease.holds_permit(asked):
                return self._spend(lease, limit, info.per_day)
            if asked < lease.deadline:
                # Still the lease's second, its permits all spent: ask for what it needed.
                lease.demand += 1
                want = max(lease.demand, lease.last_demand)
            else:
                follows = asked < lease.deadline + 1.0
                lease.last_demand = lease.demand if follows else 0
                lease.demand = 1
                want = max(1, lease.last_demand)
            returned_second, returned = lease.second, lease.left
            lease.left = 0
            row = await self.pool.fetchrow(
                LEASE,
                key_id,
                min(want, MAX_LEASE),
                returned_second,
                returned,
                limit,
                info.per_day,
                self.share,
                self.exact_below,
            )
            lease.second = row["second"]
            lease.deadline = asked + row["valid_ms"] / 1000
            lease.base = row["in_window"]
            lease.day_used = row["day_used"]
            lease.used = 0
            lease.left = row["granted"]
            if lease.left == 0:
                raise Limited(
                    row["outcome"],
                    limit,
                    max(limit - row["in_window"], 0),
                    row["retry_after"],
                    max(info.per_day - lease.day_used, 0),
                    row["hold_ms"] / 1000,
                )
            lease.left -= 1
            lease.used = 1
            return (
                max(limit - lease.base - 1, 0),
                max(info.per_day - lease.day_used + lease.left, 0),
            )

    @staticmethod
    def _spend(lease: Lease, limit: int, per_day: int) -> tuple[int, int]:
        lease.left -= 1
        lease.used += 1
        lease.demand += 1
        # The day's count holds every permit of the grant: those not spent yet are left.
        return (
            max(limit - lease.base - lease.used, 0),
            max(per_day - lease.day_used + lease.left, 0),
        )

    async def authenticate(self, key_hash: bytes) -> Principal:
        """The principal of a key hash with its permit spent, or the 401/429 of D2-D4."""
        info = self.keys.get(key_hash)
        if info is None:
            info = await self.key_info(key_hash)
        else:
            self.key_hits += 1
        if info is None:
            raise unauthorized("unauthorized")
        refusal = _refusal(info, time.time())
        if refusal is not None:
            raise unauthorized(refusal)
        try:
            remaining, day_remaining = await self.permit(info)
        except Limited as limited:
            if limited.hold_s > 0:
                # A whole window was granted within this second: its slots free just over
                # 60 s from now, so the answer waits (under a second) to say 60 truly.
                await asyncio.sleep(limited.hold_s)
            raise limited_error(
                limited.outcome,
                limited.limit,
                limited.remaining,
                limited.retry_after,
                info.per_day,
                limited.day_remaining,
            ) from None
        return msgspec.structs.replace(
            info.principal, remaining=remaining, day_remaining=day_remaining
        )

    def ready(self, key_hash: bytes, scope: str) -> KeyInfo | None:
        """The key's entry when `authenticate` needs nothing but this worker's memory for
        it: cached, valid, holding `scope`, with a leased permit of the current second
        left. None when the answer needs a wait, a statement or an error: nothing is then
        spent or counted, and the caller takes the full path (app/latest/lean.py). With no
        await between the two, `spend_ready` then spends that very permit."""
        info = self.keys.get(key_hash)
        if info is None or _refusal(info, time.time()) is not None:
            return None
        if scope not in info.principal.scopes:
            return None
        lease = self.leases.get(info.principal.key_id)
        if lease is None or not lease.holds_permit(time.monotonic()):
            return None
        return info

    async def ready_after_renewal(self, key_hash: bytes, scope: str) -> KeyInfo | None:
        """`ready` once the lease of a cached key, being renewed by another request, has
        its new permits; None at once when it is not being renewed, and after at most
        RENEWAL_WAIT_S when the renewal takes longer (the caller's full path then waits
        in its own bound). Under load most of the requests that found no permit left
        arrived while a renewal was in flight (py-spy and counts: 90% of /latest's
        fall-throughs at 64 connections)."""
        info = self.keys.get(key_hash)
        lease = self.leases.get(info.principal.key_id) if info is not None else None
        if lease is None or not lease.lock.locked():
            return None
        try:
            async with asyncio.timeout(RENEWAL_WAIT_S), lease.lock:
                pass
        except TimeoutError:
            return None
        return self.ready(key_hash, scope)

    def spend_ready(self, info: KeyInfo) -> Principal:
        """The principal of a `ready` key with its permit spent, as `authenticate` gives it."""
        self.key_hits += 1
        lease = self.leases[info.principal.key_id]
        lease.touched = time.monotonic()
        remaining, day_remaining = self._spend(lease, info.principal.rate_limit, info.per_day)
        return msgspec.structs.replace(
            info.principal, remaining=remaining, day_remaining=day_remaining
        )

    # Returning unused permits --------------------------------------------------------

    async def flush(self, final: bool = False) -> None:
        """Gives back the unused permits of past seconds (all of them when `final`)."""
        for lease in list(self.leases.values()):
            now = time.monotonic()
            if lease.lock.locked():
                continue  # being leased: that call gives back what is left
            if lease.left <= 0:
                if lease.touched < now - IDLE_S:
                    self.leases.pop(lease.key_id, None)
                continue
            if lease.deadline > now and not final:
                continue
            async with lease.lock:
                returned_second, returned = lease.second, lease.left
                if returned <= 0:
                    continue
                lease.left = 0
                try:
                    await self.pool.execute(
                        LEASE, lease.key_id, 0, returned_second, returned, 1, 1, 1, 1
                    )
                except (asyncpg.PostgresError, OSError) as error:
                    # Kept as spent: a count too high only under-serves the key.
                    log.warning("auth cache: could not give back %d permits: %s", returned, error)

    async def run(self) -> None:
        """Returns unused permits every second."""
        while True:
            await asyncio.sleep(FLUSH_EVERY_S)
            try:
                await self.flush()
            except (asyncpg.PostgresError, OSError) as error:
                log.warning("auth cache: flush failed: %s", error)


def _refusal(info: KeyInfo, clock: float) -> str | None:
    """The 401 outcome of a cached key at wall-clock `clock`, or None while it is valid."""
    if info.revoked_at <= clock:
        return "key_revoked"
    if info.expires_at <= clock:
        return "key_expired"
    return None


def _epoch(value: datetime | None) -> float:
    return math.inf if value is None else value.timestamp()


def current_cache(app: Any) -> AuthCache | None:
    """The worker's cache while it may serve; None means authenticate per request."""
    cache: AuthCache | None = getattr(app.state, "auth_cache", None)
    if cache is None or not cache.active:
        return None
    return cache
