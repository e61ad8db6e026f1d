"""The worker's one LISTEN connection, shared by its caches (the key cache of
app/auth/cache.py and the /latest cache of app/latest/cache.py) and by the live
hub of long polls and streams (app/notify/hub.py). A channel may have several subscribers
(the /latest cache and the live hub both follow `latest_changed`); each is called in the
order it subscribed, so the cache has dropped a changed entry before a held request wakes.

A cache subscribes a channel with two callbacks: one for each notification's payload, and
a reset for whenever the connection is (re)established or lost, since notifications sent
while nobody listened are gone and whatever a cache holds may be stale. The caches serve
only while `active`; when the connection drops every request reads the database again
until `run` has reopened it (within about a second). The connection goes to
DATABASE_LISTEN_URL when set: straight to the primary, past a transaction-pooling PgBouncer
that cannot keep a session's LISTEN.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

import asyncpg

from app.core.config import Settings
from app.core.db import connect_listener

RECONNECT_EVERY_S = 1.0
log = logging.getLogger(__name__)


class Listener:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.connection: asyncpg.Connection | None = None
        self.active = False
        self._channels: dict[str, list[Callable[[str], None]]] = {}
        self._resets: list[Callable[[], None]] = []

    def subscribe(
        self, channel: str, on_notify: Callable[[str], None], on_reset: Callable[[], None]
    ) -> None:
        """Registers a channel's subscriber; call before `listen`."""
        self._channels.setdefault(channel, []).append(on_notify)
        self._resets.append(on_reset)

    def _reset(self) -> None:
        for reset in self._resets:
            reset()

    def _notified(self, connection: Any, pid: int, channel: str, payload: str) -> None:
        for on_notify in self._channels[channel]:
            on_notify(payload)

    def _lost(self, connection: Any) -> None:
        if connection is not self.connection:
            return  # an older connection, already replaced
        log.warning("listener: connection lost; caches bypassed until it is back")
        self._deactivate()

    def _deactivate(self) -> None:
        self.active = False
        self.connection = None
        self._reset()

    async def listen(self) -> None:
        """Opens the connection; the caches serve only once every LISTEN is in place."""
        connection = await connect_listener(self.settings)
        try:
            for channel in self._channels:
                await connection.add_listener(channel, self._notified)
        except BaseException:
            await connection.close()
            raise
        connection.add_termination_listener(self._lost)
        self.connection = connection
        self._reset()
        self.active = True

    async def close(self) -> None:
        connection, self.connection = self.connection, None
        self.active = False
        if connection is not None:
            connection.remove_termination_listener(self._lost)
            with contextlib.suppress(Exception):
                await connection.close()

    async def run(self) -> None:
        """Reopens a lost connection, checking every RECONNECT_EVERY_S."""
        while True:
            await asyncio.sleep(RECONNECT_EVERY_S)
            try:
                if self.connection is None or self.connection.is_closed():
                    if self.active:
                        self._deactivate()
                    await self.listen()
                    log.info("listener: listening again")
            except (asyncpg.PostgresError, OSError) as error:
                log.debug("listener: cannot listen yet: %s", error)
