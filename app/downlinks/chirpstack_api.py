"""ChirpStack v4's gRPC `DeviceService`, through the `chirpstack-api` package's own stubs.

Every call carries `authorization: Bearer <apiToken>` and a deadline; a call that passes
its deadline ends with DEADLINE_EXCEEDED, whose outcome is unknown (the dispatcher then
reconciles with `GetQueue` before it tries again).
"""

from __future__ import annotations

from datetime import datetime

import grpc
from chirpstack_api import api
from google.protobuf.timestamp_pb2 import Timestamp

# Final answers: the request itself is wrong, so trying again cannot help.
REFUSALS = frozenset(
    {
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.NOT_FOUND,
        grpc.StatusCode.FAILED_PRECONDITION,
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.UNAUTHENTICATED,
    }
)


def timestamp(value: datetime) -> Timestamp:
    stamp = Timestamp()
    stamp.FromDatetime(value)
    return stamp


class DeviceApi:
    """One ChirpStack server: a channel, reused by every call."""

    def __init__(self, url: str, api_token: str, tls: bool, timeout_s: float) -> None:
        self.channel = (
            grpc.aio.secure_channel(url, grpc.ssl_channel_credentials())
            if tls
            else grpc.aio.insecure_channel(url)
        )
        self.stub = api.DeviceServiceStub(self.channel)
        self.metadata = (("authorization", f"Bearer {api_token}"),)
        self.timeout_s = timeout_s

    async def enqueue(
        self,
        dev_eui: str,
        f_port: int,
        data: bytes,
        confirmed: bool,
        expires_at: datetime | None,
    ) -> str:
        """ChirpStack's queue item id of the new item."""
        item = api.DeviceQueueItem(dev_eui=dev_eui, f_port=f_port, data=data, confirmed=confirmed)
        if expires_at is not None:
            item.expires_at.CopyFrom(timestamp(expires_at))
        response = await self.stub.Enqueue(
            api.EnqueueDeviceQueueItemRequest(queue_item=item),
            metadata=self.metadata,
            timeout=self.timeout_s,
        )
        return str(response.id)

    async def queue(self, dev_eui: str) -> list[api.DeviceQueueItem]:
        """The items of a device that ChirpStack still holds."""
        response = await self.stub.GetQueue(
            api.GetDeviceQueueItemsRequest(dev_eui=dev_eui),
            metadata=self.metadata,
            timeout=self.timeout_s,
        )
        return list(response.result)

    async def close(self) -> None:
        await self.channel.close()
