"""One ChirpStack MQTT integration consumed durably (integrations.md 2.1).

paho-mqtt 2.x, because acknowledging after commit needs `manual_ack=True` and
`ack(mid, qos)`: the PUBACK of a message is sent only once its event is committed, so a
consumer killed at any moment loses nothing (the broker redelivers what was not acked,
and the event's `deduplicationId` stores it once). The session is persistent (MQTT 5,
clean start off, a session that never expires) under the integration's `clientId`, so
messages published while no consumer runs wait in the broker.

paho runs its network loop in its own thread; each message is handed to the event loop
and goes through the receive flow of app/ingest/receive.py with ChirpStack's adapter,
the very flow behind `POST /ingest/chirpstack`. The consumer has a Receiver of its own
(its caches are of its pool's database, like an app's).
Messages are handled concurrently, so uplinks share the group commit of
app/ingest/batch.py (one transaction per batch), and each is acknowledged after its
batch commits, in the order the broker sent them.

A message id is only valid on the connection that delivered it: after a reconnect the
broker redelivers what was not acknowledged, under new ids. So an ack is sent only if the
connection that delivered the message is still the current one (`_generation`).
"""

from __future__ import annotations

import asyncio
import logging
import ssl
import threading
from collections import OrderedDict
from typing import Any
from urllib.parse import unquote, urlsplit

import asyncpg
import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from app.core.errors import ApiError
from app.ingest.chirpstack_http import CHIRPSTACK
from app.ingest.receive import Receiver
from app.profiles.contexts import DeviceContexts

log = logging.getLogger("telemetry.mqtt")

# Unacknowledged messages the broker may have in flight to us at once: the width of the
# group commit. The session lives as long as the broker keeps it (MQTT 5's maximum).
RECEIVE_MAXIMUM = 256
SESSION_NEVER_EXPIRES = 0xFFFFFFFF
KEEPALIVE_S = 30
RETRY_MAX_S = 5.0
UNEXPECTED_TRIES = 5
# Failures of the database or the way to it: worth waiting out, however long they last.
TRANSIENT = (
    OSError,
    TimeoutError,
    asyncpg.InterfaceError,
    asyncpg.exceptions.PostgresConnectionError,
    asyncpg.exceptions.OperatorInterventionError,
    asyncpg.exceptions.InsufficientResourcesError,
    asyncpg.exceptions.QueryCanceledError,
    asyncpg.exceptions.TransactionRollbackError,
)


class Integration:
    """The row of an integration with an MQTT broker."""

    def __init__(self, row: Any) -> None:
        self.id = row["id"]
        self.token_hash: bytes = row["token_hash"]
        self.url: str = row["mqtt_url"]
        self.topic: str = row["mqtt_topic"] or "application/+/device/+/event/+"
        self.client_id: str = row["mqtt_client_id"]


def event_of(topic: str) -> str:
    """The event type: the last level of `application/{id}/device/{devEui}/event/{event}`."""
    return topic.rsplit("/", 1)[-1]


class Consumer:
    def __init__(self, pool: asyncpg.Pool, integration: Integration) -> None:
        self.pool = pool
        self.integration = integration
        # No generation table to bump: the consumer answers no client, so read-your-writes
        # does not arise; the workers' /latest caches learn of a commit by its notification.
        self.receiver = Receiver(pool, DeviceContexts(), None)
        self.loop = asyncio.get_running_loop()
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=integration.client_id,
            protocol=mqtt.MQTTv5,
            manual_ack=True,
        )
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self.client.on_subscribe = self._on_subscribe
        self.client.reconnect_delay_set(min_delay=1, max_delay=5)
        self._lock = threading.Lock()
        self._generation = 0
        self._connected = False
        # Per connection: message id -> done, in arrival order (acks go out in that order).
        self._pending: OrderedDict[int, bool] = OrderedDict()
        self._tasks: set[asyncio.Task[None]] = set()
        self.connected = asyncio.Event()
        self.handled = 0

    # paho's thread ---------------------------------------------------------------------

    def _on_connect(self, client: mqtt.Client, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        if reason.is_failure:
            log.warning("mqtt %s: connection refused: %s", self.integration.id, reason)
            return
        with self._lock:
            self._generation += 1
            self._connected = True
            self._pending = OrderedDict()
        client.subscribe(self.integration.topic, qos=1)
        self.loop.call_soon_threadsafe(self.connected.set)
        log.info("mqtt %s: connected as %s", self.integration.id, self.integration.client_id)

    def _on_subscribe(self, _c: Any, _u: Any, _m: Any, reasons: Any, _p: Any) -> None:
        if any(reason.is_failure for reason in reasons):
            log.error("mqtt %s: subscription refused: %s", self.integration.id, reasons)
        else:
            log.info("mqtt %s: subscribed to %s", self.integration.id, self.integration.topic)

    def _on_disconnect(self, _c: Any, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        with self._lock:
            self._generation += 1
            self._connected = False
        self.loop.call_soon_threadsafe(self.connected.clear)
        log.warning("mqtt %s: disconnected (%s); reconnecting", self.integration.id, reason)

    def _on_message(self, _c: Any, _u: Any, message: mqtt.MQTTMessage) -> None:
        with self._lock:
            generation = self._generation
            if message.qos > 0:  # QoS 0 messages have no id and need no acknowledgement.
                self._pending[message.mid] = False
        self.loop.call_soon_threadsafe(
            self._start, generation, message.mid, message.qos, message.topic, message.payload
        )

    # the event loop --------------------------------------------------------------------

    def _start(
        self, generation: int, mid: int, qos: int, topic: str, payload: bytes | bytearray
    ) -> None:
        task = self.loop.create_task(self._handle(generation, mid, qos, topic, payload))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _current(self, generation: int) -> bool:
        with self._lock:
            return self._connected and generation == self._generation

    async def _handle(
        self, generation: int, mid: int, qos: int, topic: str, payload: bytes | bytearray
    ) -> None:
        event = event_of(topic)
        delay = 0.1
        unexpected = 0
        while True:
            try:
                await self.receiver.receive(
                    CHIRPSTACK, self.integration.token_hash, bytes(payload), event
                )
                break
            except ApiError as error:
                if error.status >= 500:
                    if not self._current(generation):
                        return
                    log.warning("mqtt %s: %s; retrying", self.integration.id, error.message)
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, RETRY_MAX_S)
                    continue
                # What the HTTP route answers with a 4xx: the network server would not
                # retry it either, so it is acknowledged and logged, never redelivered.
                log.warning(
                    "mqtt %s: %s on %s dropped: %s",
                    self.integration.id,
                    error.code,
                    topic,
                    error.message,
                )
                break
            except TRANSIENT:
                # The database is unreachable or slow: the message stays unacknowledged
                # and is tried again for as long as its connection lasts (after that the
                # broker redelivers it anyway).
                if not self._current(generation):
                    return
                log.exception("mqtt %s: storing a message failed; retrying", self.integration.id)
                await asyncio.sleep(delay)
                delay = min(delay * 2, RETRY_MAX_S)
            except Exception:
                # Anything else is a defect, where the HTTP route would answer 500 (and the
                # network server drop the event). A few tries, then the same: logged and
                # acknowledged, so that one message cannot hold up every later one.
                unexpected += 1
                if unexpected >= UNEXPECTED_TRIES:
                    log.exception("mqtt %s: message on %s dropped", self.integration.id, topic)
                    break
                await asyncio.sleep(delay)
                delay = min(delay * 2, RETRY_MAX_S)
        self.handled += 1
        self._ack(generation, mid, qos)

    def _ack(self, generation: int, mid: int, qos: int) -> None:
        """Marks the message done and acknowledges every done message at the head."""
        if qos == 0:
            return
        with self._lock:
            if not (self._connected and generation == self._generation):
                return  # Redelivered on the new connection under another id.
            if mid in self._pending:
                self._pending[mid] = True
            while self._pending:
                head, done = next(iter(self._pending.items()))
                if not done:
                    break
                del self._pending[head]
                self.client.ack(head, qos)

    def start(self) -> None:
        parts = urlsplit(self.integration.url)
        if parts.username:
            self.client.username_pw_set(unquote(parts.username), unquote(parts.password or ""))
        if parts.scheme == "mqtts":
            self.client.tls_set_context(ssl.create_default_context())
        properties = Properties(PacketTypes.CONNECT)
        properties.SessionExpiryInterval = SESSION_NEVER_EXPIRES
        properties.ReceiveMaximum = RECEIVE_MAXIMUM
        self.client.connect_async(
            parts.hostname or "127.0.0.1",
            parts.port or (8883 if parts.scheme == "mqtts" else 1883),
            keepalive=KEEPALIVE_S,
            clean_start=False,
            properties=properties,
        )
        self.client.loop_start()

    async def stop(self) -> None:
        """Disconnects; messages still being stored are left unacknowledged (redelivered)."""
        with self._lock:
            self._generation += 1
            self._connected = False
        await asyncio.to_thread(self.client.disconnect)
        await asyncio.to_thread(self.client.loop_stop)
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
