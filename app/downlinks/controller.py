"""GET and POST /devices/{id}/downlinks: a device's templates, and queueing a downlink."""

from __future__ import annotations

import uuid
from typing import Any

import asyncpg
from litestar import Controller, Request, Response, get, post
from litestar.handlers import HTTPRouteHandler

from app.auth.principal import Principal
from app.auth.tenancy import resolve_device
from app.core.api import Listing, Page, Single, parse_uuid
from app.core.body import json_body_operation, read_json_body
from app.core.errors import ApiError, ErrorCode, not_found
from app.core.reads import fetch_page, from_row
from app.core.sql import QUERIES
from app.downlinks.encoding import encode_payload
from app.downlinks.queue import Planned, enqueue, load_templates, pick_template, require_reference
from app.downlinks.structs import (
    SEND_DECODER,
    DownlinkItem,
    DownlinkTemplate,
    QueuedDownlink,
    SendDownlink,
)

SEND_DESCRIPTION = (
    "`key` or `templateId` (exactly one, or both naming the same template); `data` "
    "overrides the template's `sampleData` field by field (a field the template does not "
    "have is 400 `invalid_body`); `expiresInSeconds` is a JSON integer 1..2592000. The "
    "payload is encoded from the template's layout; a value out of its type's range is "
    "400 `invalid_body` naming the field."
)


def queueing_post(operation_id: str, summary: str, description: str) -> HTTPRouteHandler:
    """The declaration of a route that queues downlinks (one device, or a multicast group):
    the write scope and plan, 202 Accepted, the body of a send and the same refusals."""
    return post(
        operation_id=operation_id,
        summary=summary,
        description=description,
        opt={"scope": "downlinks:write", "write": True},
        status_code=202,
        operation_class=json_body_operation(SendDownlink, SEND_DESCRIPTION),
    )


async def read_send(request: Request[Any, Any, Any]) -> tuple[SendDownlink, uuid.UUID | None]:
    """The body of a send (one device or a group) and its parsed `templateId`: a 400 for a
    body that names no template, before anything is looked up."""
    body = await read_json_body(request, SEND_DECODER)
    return body, require_reference(body)


def device_rate_limited(retry_after: int) -> ApiError:
    return ApiError(
        429,
        ErrorCode.RATE_LIMITED,
        "the device's hourly downlink limit is reached",
        {"Retry-After": str(retry_after)},
    )


class DownlinkController(Controller):
    path = "/devices/{device_id:str}/downlinks"
    tags = ["Downlinks"]

    @get(
        operation_id="listDownlinkTemplates",
        summary="The downlink templates of the device's profile",
        description="Needs `devices:read`. Inventory and archived devices answer 404.",
        opt={"scope": "devices:read"},
    )
    async def list_templates(
        self,
        pool: asyncpg.Pool,
        principal: Principal,
        device_id: str,
        page: Page,
    ) -> Listing[DownlinkTemplate]:
        device = await resolve_device(pool, principal, device_id, live=True)
        return await fetch_page(
            pool,
            lambda row: from_row(DownlinkTemplate, row, template_id=row["id"]),
            QUERIES["downlinks.list_templates"],
            device.profile_id,
            page=page,
            count=QUERIES["downlinks.count_templates"],
        )

    @queueing_post(
        "sendDownlink",
        "Queue a downlink to one device",
        "Needs `downlinks:write` and a plan with API write access. At most the device's "
        "`downlinkRatePerHour` (default 30) items per rolling hour; over it 429 "
        "`rate_limited` with `Retry-After` (seconds until a slot frees). `expiresAt` is "
        "now + `expiresInSeconds`, else now + the device's configured expiry, else null.",
    )
    async def send(
        self,
        request: Request[Any, Any, Any],
        pool: asyncpg.Pool,
        principal: Principal,
        device_id: str,
    ) -> Response[Single[QueuedDownlink]]:
        body, template_id = await read_send(request)
        device = await resolve_device(pool, principal, device_id, live=True)
        template = pick_template(await load_templates(pool, [device.profile_id]), body, template_id)
        payload = encode_payload(template.layout, template.sample_data, body.data)
        planned = Planned(device.num, template, payload, body.expires_in_seconds)
        async with pool.acquire() as connection, connection.transaction():
            outcome = (await enqueue(connection, [planned])).get(device.num)
        if outcome is None:
            raise not_found("device")  # No longer assigned when its row was locked.
        if outcome.queue_item_id is None:
            raise device_rate_limited(outcome.retry_after or 1)
        return Response(
            Single(
                QueuedDownlink(
                    status="queued",
                    queue_item_id=outcome.queue_item_id,
                    f_port=template.f_port,
                    byte_count=len(payload),
                    expires_at=outcome.expires_at,
                )
            ),
            status_code=202,
        )

    @get(
        "/{queue_item_id:str}",
        operation_id="getDownlink",
        summary="One queued downlink and its delivery state",
        description=(
            "Needs `devices:read`. `status`: `queued` (accepted), `submitted` (ChirpStack "
            "took it), `sent` (transmitted), `acknowledged` / `nacked` (confirmed downlinks), "
            "`failed` (refused, or a downlink error reported by the network; see `error`), "
            "`expired` (`expiresAt` passed before it was sent). Inventory and archived "
            "devices, another device's item and an unknown id answer 404."
        ),
        opt={"scope": "devices:read"},
    )
    async def get_item(
        self, pool: asyncpg.Pool, principal: Principal, device_id: str, queue_item_id: str
    ) -> Single[DownlinkItem]:
        device = await resolve_device(pool, principal, device_id, live=True)
        wanted = parse_uuid(queue_item_id)
        row = (
            await pool.fetchrow(QUERIES["downlinks.get_item"], device.num, wanted)
            if wanted is not None
            else None
        )
        if row is None:
            raise not_found("downlink")
        return Single(from_row(DownlinkItem, row, queue_item_id=row["id"]))
