"""A fake of ChirpStack's gRPC `DeviceService` (Enqueue, GetQueue, FlushQueue), served by
grpc.aio with the `chirpstack-api` package's real stubs, in the test's own event loop.

It checks the `authorization: Bearer <token>` metadata, keeps a queue per DevEUI, records
every call, and misbehaves on demand per DevEUI (`enqueue_faults`, a list consumed one call
at a time): `unavailable`, `internal`, `resource_exhausted`, `unknown` (fail before
queueing), the same with `_after` (queue the item, then fail: the answer is lost), `hang`
and `hang_after` (never answer, before or after queueing), or a refusal code name
(`not_found`, `invalid_argument`, ...). `getqueue_down` makes GetQueue answer UNAVAILABLE
for a DevEUI until it is cleared. `latency_s` delays every Enqueue.
"""

from __future__ import annotations

import asyncio
import secrets
import uuid
from collections import defaultdict
from typing import Any

import grpc
from chirpstack_api import api
from google.protobuf import empty_pb2

FAILURES = {
    "unavailable": grpc.StatusCode.UNAVAILABLE,
    "internal": grpc.StatusCode.INTERNAL,
    "resource_exhausted": grpc.StatusCode.RESOURCE_EXHAUSTED,
    "unknown": grpc.StatusCode.UNKNOWN,
}
REFUSALS = {
    "invalid_argument": grpc.StatusCode.INVALID_ARGUMENT,
    "not_found": grpc.StatusCode.NOT_FOUND,
    "failed_precondition": grpc.StatusCode.FAILED_PRECONDITION,
    "permission_denied": grpc.StatusCode.PERMISSION_DENIED,
}


class FakeDeviceService(api.DeviceServiceServicer):
    def __init__(self, token: str) -> None:
        self.token = token
        self.queues: dict[str, list[api.DeviceQueueItem]] = defaultdict(list)
        self.enqueued: list[api.DeviceQueueItem] = []  # every item ever queued, in order
        self.enqueue_calls: dict[str, int] = defaultdict(int)
        self.getqueue_calls: dict[str, int] = defaultdict(int)
        self.calls: list[tuple[str, str]] = []  # (method, dev_eui) in order
        self.enqueue_faults: dict[str, list[str]] = defaultdict(list)
        self.getqueue_down: set[str] = set()
        self.latency_s = 0.0

    async def _authorize(self, context: Any) -> None:
        metadata = dict(context.invocation_metadata())
        if metadata.get("authorization") != f"Bearer {self.token}":
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "invalid API token")

    def items_of(self, dev_eui: str) -> list[api.DeviceQueueItem]:
        return [item for item in self.enqueued if item.dev_eui == dev_eui]

    def transmit(self, dev_eui: str) -> api.DeviceQueueItem:
        """The network sends the device's first queued item: it leaves the queue."""
        return self.queues[dev_eui].pop(0)

    async def Enqueue(self, request: Any, context: Any) -> Any:
        await self._authorize(context)
        dev_eui = request.queue_item.dev_eui
        self.enqueue_calls[dev_eui] += 1
        self.calls.append(("Enqueue", dev_eui))
        faults = self.enqueue_faults[dev_eui]
        fault = faults.pop(0) if faults else ""
        if self.latency_s:
            await asyncio.sleep(self.latency_s)
        if fault in REFUSALS:
            await context.abort(REFUSALS[fault], f"refused: {fault}")
        if fault in FAILURES:
            await context.abort(FAILURES[fault], f"failed: {fault}")
        if fault == "hang":
            await asyncio.sleep(3600)
        item = api.DeviceQueueItem()
        item.CopyFrom(request.queue_item)
        item.id = str(uuid.uuid4())
        item.is_pending = False
        self.queues[dev_eui].append(item)
        self.enqueued.append(item)
        if fault.endswith("_after") and fault[: -len("_after")] in FAILURES:
            await context.abort(
                FAILURES[fault[: -len("_after")]], f"failed after queueing: {fault}"
            )
        if fault == "hang_after":
            await asyncio.sleep(3600)
        return api.EnqueueDeviceQueueItemResponse(id=item.id)

    async def GetQueue(self, request: Any, context: Any) -> Any:
        await self._authorize(context)
        self.getqueue_calls[request.dev_eui] += 1
        self.calls.append(("GetQueue", request.dev_eui))
        if request.dev_eui in self.getqueue_down:
            await context.abort(grpc.StatusCode.UNAVAILABLE, "queue unavailable")
        queue = self.queues[request.dev_eui]
        return api.GetDeviceQueueItemsResponse(total_count=len(queue), result=queue)

    async def FlushQueue(self, request: Any, context: Any) -> Any:
        await self._authorize(context)
        self.calls.append(("FlushQueue", request.dev_eui))
        self.queues[request.dev_eui].clear()
        return empty_pb2.Empty()


class FakeChirpStack:
    """The fake served on a free loopback port."""

    def __init__(self, token: str | None = None) -> None:
        token = token or secrets.token_urlsafe(16)
        self.service = FakeDeviceService(token)
        self.token = token
        self.server = self._server()
        self.port = self.server.add_insecure_port("127.0.0.1:0")
        self.url = f"127.0.0.1:{self.port}"

    def _server(self) -> Any:
        server = grpc.aio.server()
        api.add_DeviceServiceServicer_to_server(self.service, server)
        return server

    async def start(self) -> None:
        await self.server.start()

    async def stop(self) -> None:
        """Closes every connection at once, calls in progress included."""
        await self.server.stop(grace=None)

    async def restart(self) -> None:
        """Serves again on the same port, with the same queues."""
        self.server = self._server()
        self.server.add_insecure_port(self.url)
        await self.server.start()
