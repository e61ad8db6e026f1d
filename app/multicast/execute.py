"""POST /multicast-groups/{group_id}/execute: one queued downlink per assigned member.

Each member gets the template of ITS OWN profile: `key` is looked up in every member's
profile, and `templateId` names one template of one profile, so members of another
profile cannot take it. A member whose profile lacks the template, or whose template
cannot encode `data`, is counted as `failed` with an `error`; a member whose rolling hour
is full is `rate_limited`. When nothing could be sent to any member for such a reason,
the request itself is wrong and answers 400 `invalid_body`, exactly like a single send.
Inventory and archived members are skipped and left out of the result. Every item is
queued in one transaction.
"""

from __future__ import annotations

import uuid
from typing import Any, Literal

import asyncpg
import msgspec
from litestar import Controller, Request, Response

from app.auth.principal import Principal
from app.core.api import Single
from app.core.errors import ApiError
from app.core.reads import fetch_owned_by_id
from app.core.sql import QUERIES
from app.downlinks.controller import queueing_post, read_send
from app.downlinks.encoding import encode_payload
from app.downlinks.queue import (
    Planned,
    Template,
    enqueue,
    find_template,
    load_templates,
    pick_template,
    template_error,
)
from app.downlinks.structs import SendDownlink


class MemberResult(msgspec.Struct, rename="camel"):
    device_id: uuid.UUID
    dev_eui: str
    status: Literal["queued", "rate_limited", "failed"]
    queue_item_id: uuid.UUID | None
    error: str | None


class ExecuteResult(msgspec.Struct, rename="camel"):
    device_count: int
    enqueued_count: int
    rate_limited_count: int
    failed_count: int
    per_device: list[MemberResult]


def _templates_by_profile(
    members: list[Any], templates: list[Template], body: SendDownlink, wanted: uuid.UUID | None
) -> dict[uuid.UUID, Template | str]:
    """For each member profile: its template, or why it has none (as a result `error`)."""
    chosen: dict[uuid.UUID, Template | str] = {}
    reasons: list[str] = []
    for profile_id in sorted({m["profile_id"] for m in members}):
        found = find_template([t for t in templates if t.profile_id == profile_id], body, wanted)
        if isinstance(found, Template):
            chosen[profile_id] = found
        else:
            reasons.append(found)
            chosen[profile_id] = f"template_not_found: {template_error(found).message}"
    if reasons and len(reasons) == len(chosen):
        # No member can take it: the same 400 a single send gives.
        raise template_error(reasons[0])
    return chosen


def _payloads(
    chosen: dict[uuid.UUID, Template | str], data: dict[str, Any] | None
) -> dict[uuid.UUID, bytes | str]:
    """Encodes each distinct template once; 400 when no template can encode `data`."""
    payloads: dict[uuid.UUID, bytes | str] = {}
    first_error: ApiError | None = None
    for template in {t.id: t for t in chosen.values() if isinstance(t, Template)}.values():
        try:
            payloads[template.id] = encode_payload(template.layout, template.sample_data, data)
        except ApiError as error:
            first_error = first_error or error
            payloads[template.id] = f"invalid_data: {error.message}"
    if first_error is not None and not any(isinstance(p, bytes) for p in payloads.values()):
        raise first_error
    return payloads


async def _check_reference(
    pool: asyncpg.Pool, partner_id: uuid.UUID, body: SendDownlink, wanted: uuid.UUID | None
) -> None:
    """A group without assigned members still refuses a request no profile could take.

    The 400 of a single send must not depend on who happens to be assigned right now: the
    request is checked against every profile of the partner, and is wrong when none has a
    template that fits it and encodes `data`.
    """
    profiles = await pool.fetch(QUERIES["multicast_execute.partner_profiles"], partner_id)
    templates = await load_templates(pool, [row["profile_id"] for row in profiles])
    if not templates:
        pick_template([], body, wanted)  # Raises the 400 naming the reference.
    _payloads(_templates_by_profile(list(profiles), templates, body, wanted), body.data)


class MulticastExecuteController(Controller):
    path = "/multicast-groups/{group_id:str}/execute"
    tags = ["Multicast groups"]

    @queueing_post(
        "executeMulticastGroup",
        "Queue a downlink to every assigned member of a group",
        (
            "Needs `downlinks:write` and a plan with API write access. Body as a single send. "
            "Each member takes the template of its own profile (`key` is looked up per "
            "profile; `templateId` fits only members of that template's profile); a member "
            "without it is `failed` with `error`. When no member can take the request, 400 "
            "`invalid_body`. Inventory and archived members are left out; `deviceCount` = "
            "`enqueuedCount` + `rateLimitedCount` + `failedCount`; `perDevice` is ordered by "
            "device name. `error` is null when "
            "queued, else `<code>: <detail>` with code `rate_limited`, `template_not_found` "
            "or `invalid_data`."
        ),
    )
    async def execute(
        self,
        request: Request[Any, Any, Any],
        pool: asyncpg.Pool,
        principal: Principal,
        group_id: str,
    ) -> Response[Single[ExecuteResult]]:
        body, wanted = await read_send(request)
        query = QUERIES["multicast.get_group"]
        group = await fetch_owned_by_id(pool, principal, "multicast group", query, group_id)
        members = await pool.fetch(
            QUERIES["multicast_execute.assigned_members"], group["id"], group["sub_account_id"]
        )
        if not members:
            await _check_reference(pool, principal.partner_id, body, wanted)
        templates = await load_templates(pool, sorted({m["profile_id"] for m in members}))
        chosen = _templates_by_profile(list(members), templates, body, wanted)
        payloads = _payloads(chosen, body.data)

        failures: dict[int, str] = {}
        planned: list[Planned] = []
        for member in members:
            template = chosen[member["profile_id"]]
            if isinstance(template, str):
                failures[member["num"]] = template
                continue
            payload = payloads[template.id]
            if isinstance(payload, str):
                failures[member["num"]] = payload
                continue
            planned.append(Planned(member["num"], template, payload, body.expires_in_seconds))
        async with pool.acquire() as connection, connection.transaction():
            outcomes = await enqueue(connection, planned)
        return Response(Single(_result(list(members), failures, outcomes)), status_code=202)


def _result(
    members: list[Any], failures: dict[int, str], outcomes: dict[int, Any]
) -> ExecuteResult:
    per_device: list[MemberResult] = []
    for member in members:
        num = member["num"]
        if num in failures:
            status, item, error = "failed", None, failures[num]
        elif num not in outcomes:
            continue  # No longer assigned when the rows were locked: left out.
        elif outcomes[num].queue_item_id is None:
            status, item = "rate_limited", None
            error = (
                "rate_limited: the device's hourly downlink limit is reached; "
                f"a slot frees in {outcomes[num].retry_after} s"
            )
        else:
            status, item, error = "queued", outcomes[num].queue_item_id, None
        per_device.append(
            MemberResult(
                device_id=member["id"],
                dev_eui=member["dev_eui"],
                status=status,  # type: ignore[arg-type]
                queue_item_id=item,
                error=error,
            )
        )
    counts = {s: sum(1 for r in per_device if r.status == s) for s in ("queued", "rate_limited")}
    return ExecuteResult(
        device_count=len(per_device),
        enqueued_count=counts["queued"],
        rate_limited_count=counts["rate_limited"],
        failed_count=len(per_device) - counts["queued"] - counts["rate_limited"],
        per_device=per_device,
    )
