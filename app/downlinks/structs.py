"""Request and response shapes of the downlink routes (api-spec 2.8, 4.6; decisions D13)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

MAX_TTL_SECONDS = 2_592_000

TimeToLive = Annotated[
    int,
    Meta(
        ge=1,
        le=MAX_TTL_SECONDS,
        description="Whole seconds (a JSON integer), 1 to 2592000 (30 days).",
    ),
]


class DownlinkTemplate(msgspec.Struct, rename="camel"):
    template_id: uuid.UUID
    key: str
    name: str
    f_port: int
    confirmed: bool
    sample_data: dict[str, Any]


class SendDownlink(msgspec.Struct, rename="camel"):
    """Body of a single send and of a multicast execution."""

    key: Annotated[str, Meta(description="The template's key (recommended).")] | None = None
    template_id: Annotated[str, Meta(description="The template's id.")] | None = None
    data: (
        Annotated[
            dict[str, Any],
            Meta(description="Values overriding the template's sampleData, by field."),
        ]
        | None
    ) = None
    expires_in_seconds: TimeToLive | None = None


class QueuedDownlink(msgspec.Struct, rename="camel"):
    status: Literal["queued"]
    queue_item_id: uuid.UUID
    f_port: int
    byte_count: int
    expires_at: datetime | None


DeliveryStatus = Literal[
    "queued", "submitted", "sent", "acknowledged", "nacked", "failed", "expired"
]


class DownlinkItem(msgspec.Struct, rename="camel"):
    """One queued downlink and how far its delivery got (integrations.md section 3)."""

    queue_item_id: uuid.UUID
    status: DeliveryStatus
    f_port: int
    byte_count: int
    confirmed: bool
    created_at: datetime
    expires_at: datetime | None
    submitted_at: datetime | None
    sent_at: datetime | None
    f_cnt_down: int | None
    acknowledged_at: datetime | None
    error: str | None


SEND_DECODER = msgspec.json.Decoder(SendDownlink)
