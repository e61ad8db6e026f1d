"""The downlink dispatcher: hands queued downlinks to ChirpStack's `DeviceService.Enqueue`
(integrations.md section 3). It runs inside `telemetry serve` and alone as
`telemetry dispatch`, once across all workers and instances (app/core/exclusive.py).

Per device, items go in the order they were queued: only a device's oldest waiting item
is tried, and one device has at most one call in flight. A new item wakes the dispatcher
at commit (NOTIFY `downlink_queued`); retries and expiry are checked every second.

Never twice. Enqueue has no idempotency key, so before each call the item is marked in
doubt in a committed transaction. A refusal is final (`failed`) and nothing was queued.
Any other failure (UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, INTERNAL, UNKNOWN,
a lost connection) leaves the outcome unknown: the item stays in doubt, and the next
attempt, after a backoff, first looks for it in ChirpStack's queue (`GetQueue`: an item of
the device with the same port, bytes, confirmation and expiry whose id we do not know),
and among the ids the network reported for the device since (a `txack` can outrun the
answer, and a sent item leaves the queue). Found, it is `submitted` with that id;
otherwise it is enqueued. A dispatcher killed mid-call leaves the item in doubt, so its
successor reconciles the same way. Retries go on until the item expires.
"""

from __future__ import annotations

import asyncio
import logging
import random
from datetime import UTC, datetime
from typing import Any

import asyncpg
import grpc

from app.core.config import Settings
from app.core.db import close_connection, connect_listener
from app.core.errors import is_unavailable
from app.core.exclusive import run_exclusively
from app.core.sql import QUERIES
from app.downlinks.chirpstack_api import REFUSALS, DeviceApi
from app.downlinks.events import apply_early_events
from app.downlinks.states import transition

log = logging.getLogger("telemetry.dispatch")

ELECTION = "downlinks:dispatch"
CLOSE_S = 2.0  # giving the database the listening connection back, at most
MAX_IN_FLIGHT = 64
SWEEP_EVERY_S = 1.0
MAX_BACKOFF_S = 60.0


def backoff(base_s: float, attempts: int) -> float:
    """Doubling from `base_s`, at most a minute, with 10 % jitter."""
    delay = min(base_s * 2 ** max(attempts - 1, 0), MAX_BACKOFF_S)
    return delay * random.uniform(0.9, 1.1)


def _same_expiry(stored: datetime | None, item: Any) -> bool:
    if stored is None:
        return not item.HasField("expires_at")
    if not item.HasField("expires_at"):
        return False
    theirs = item.expires_at.ToDatetime(tzinfo=UTC)
    return abs((theirs - stored).total_seconds()) < 1.0


class Dispatcher:
    def __init__(self, pool: asyncpg.Pool, settings: Settings) -> None:
        self.pool = pool
        self.settings = settings
        self.apis: dict[tuple[str, str, bool], DeviceApi] = {}
        self.in_flight: dict[int, asyncio.Task[None]] = {}
        self.wake = asyncio.Event()
        self.submitted = 0

    def api_for(self, row: Any) -> DeviceApi:
        key = (row["grpc_url"], row["grpc_api_token"], row["grpc_tls"])
        api = self.apis.get(key)
        if api is None:
            api = self.apis[key] = DeviceApi(*key, timeout_s=self.settings.chirpstack_timeout_s)
        return api

    # one item ----------------------------------------------------------------------------

    async def deliver(self, row: Any) -> None:
        api = self.api_for(row)
        try:
            if row["in_doubt_since"] is not None:
                found = await self.reconcile(api, row)
                if found is not None:
                    log.info("downlink %s: found in ChirpStack as %s", row["id"], found)
                    await self.mark_submitted(row, found)
                    return
            started = await self.pool.fetchrow(QUERIES["downlinks.start_attempt"], row["id"])
            if started is None:
                return  # Expired or gone meanwhile.
            network_id = await api.enqueue(
                row["dev_eui"],
                row["f_port"],
                bytes(row["payload"]),
                row["confirmed"],
                row["expires_at"],
            )
        except grpc.aio.AioRpcError as error:
            code = error.code()
            if code in REFUSALS:
                await transition(
                    self.pool, row["id"], "failed", error=f"{code.name}: {error.details()}"
                )
                return
            await self.retry_later(row, f"{code.name}: {error.details()}")
            return
        except (TimeoutError, OSError, grpc.RpcError) as error:
            await self.retry_later(row, repr(error))
            return
        await self.mark_submitted(row, network_id)

    async def reconcile(self, api: DeviceApi, row: Any) -> str | None:
        """The ChirpStack id of an item whose Enqueue outcome was unknown, if it got there."""
        items = await api.queue(row["dev_eui"])
        ids = [item.id for item in items]
        known = {
            r["network_id"]
            for r in await self.pool.fetch(QUERIES["downlinks.known_network_ids"], ids)
        }
        payload = bytes(row["payload"])
        for item in items:
            if (
                item.id not in known
                and item.f_port == row["f_port"]
                and item.data == payload
                and item.confirmed == row["confirmed"]
                and _same_expiry(row["expires_at"], item)
            ):
                return str(item.id)
        reported: str | None = await self.pool.fetchval(
            QUERIES["downlinks.early_network_id"], row["device_num"], row["in_doubt_since"]
        )
        return reported

    async def mark_submitted(self, row: Any, network_id: str) -> None:
        async with self.pool.acquire() as connection, connection.transaction():
            changed = await transition(connection, row["id"], "submitted", network_id=network_id)
            if changed is not None:
                await apply_early_events(connection, row["id"], row["device_num"], network_id)
        if changed is None:
            log.warning(
                "downlink %s: enqueued as %s after it left the queue", row["id"], network_id
            )
        else:
            self.submitted += 1

    async def retry_later(self, row: Any, reason: str) -> None:
        attempts = row["attempts"] + 1
        delay = backoff(self.settings.dispatch_backoff_s, attempts)
        log.warning("downlink %s: %s; retrying in %.2f s", row["id"], reason, delay)
        await self.pool.execute(QUERIES["downlinks.retry_later"], row["id"], delay, True)
        asyncio.get_running_loop().call_later(delay, self.wake.set)

    # the loop ----------------------------------------------------------------------------

    async def sweep(self) -> None:
        """Expires what passed its expiresAt before it was sent; forgets old early events."""
        for row in await self.pool.fetch(QUERIES["downlinks.overdue_items"]):
            await transition(self.pool, row["id"], "expired", error="expired before it was sent")
        await self.pool.execute(QUERIES["downlinks.forget_early_events"])

    def _start(self, row: Any) -> None:
        num = row["device_num"]
        task = asyncio.create_task(self._guarded(row))
        self.in_flight[num] = task

        def done(_: asyncio.Task[None]) -> None:
            self.in_flight.pop(num, None)
            self.wake.set()  # The device's next item may be due now.

        task.add_done_callback(done)

    async def _guarded(self, row: Any) -> None:
        try:
            await self.deliver(row)
        except Exception as error:
            # The database failed between the steps: the item is still queued (in doubt
            # when the call was made) and is taken up again on a later round. An outage is
            # logged once by the election, when the loop's own next query fails.
            if is_unavailable(error):
                log.debug("downlink %s: no database (%r)", row["id"], error)
            else:
                log.exception("downlink %s: dispatch step failed", row["id"])
            await asyncio.sleep(self.settings.dispatch_backoff_s)

    async def run(self, quit_event: asyncio.Event) -> None:
        listener = await connect_listener(self.settings)
        await listener.add_listener("downlink_queued", lambda *_: self.wake.set())
        last_sweep = 0.0
        loop = asyncio.get_running_loop()
        try:
            while not quit_event.is_set():
                self.wake.clear()
                if loop.time() - last_sweep >= SWEEP_EVERY_S:
                    await self.sweep()
                    last_sweep = loop.time()
                room = MAX_IN_FLIGHT - len(self.in_flight)
                if room > 0:
                    rows = await self.pool.fetch(
                        QUERIES["downlinks.due_items"], list(self.in_flight), room
                    )
                    for row in rows:
                        self._start(row)
                if listener.is_closed():
                    raise ConnectionError("the listening connection was closed")
                waker = asyncio.ensure_future(self.wake.wait())
                stopper = asyncio.ensure_future(quit_event.wait())
                await asyncio.wait(
                    {waker, stopper}, timeout=SWEEP_EVERY_S, return_when=asyncio.FIRST_COMPLETED
                )
                waker.cancel()
                stopper.cancel()
        finally:
            for task in list(self.in_flight.values()):
                task.cancel()
            await asyncio.gather(*self.in_flight.values(), return_exceptions=True)
            await close_connection(listener, CLOSE_S)
            for api in self.apis.values():
                await api.close()


async def run_dispatcher(pool: asyncpg.Pool, settings: Settings, stop: asyncio.Event) -> None:
    """Until `stop`: the one dispatcher across all workers and instances."""

    async def work(quit_event: asyncio.Event) -> None:
        # A failure ends the work with its exception: the election logs it (a database
        # outage once) and starts a new dispatcher.
        await Dispatcher(pool, settings).run(quit_event)

    await run_exclusively(settings, ELECTION, work, stop)
