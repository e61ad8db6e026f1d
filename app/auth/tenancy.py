"""The one place that turns a path id into a device of the caller's tenancy.

Every route that addresses a device goes through `resolve_device`, so a device of another
tenant (or an inventory device seen through a sub-account key) is indistinguishable from
a missing one.
"""

from __future__ import annotations

import uuid
from typing import Any

import asyncpg
import msgspec

from app.auth.principal import Principal
from app.core.api import normalize_eui, parse_uuid
from app.core.enums import DeviceStatus
from app.core.errors import not_found
from app.core.sql import QUERIES

RESOLVE_DEVICE = QUERIES["auth.resolve_device"]


class DeviceRef(msgspec.Struct, frozen=True):
    id: uuid.UUID
    num: int
    status: str
    partner_id: uuid.UUID
    sub_account_id: uuid.UUID | None
    profile_id: uuid.UUID
    network_id: uuid.UUID | None
    site_id: uuid.UUID | None
    site_num: int | None
    dev_eui: str
    name: str


def split_reference(reference: str) -> tuple[uuid.UUID | None, str | None]:
    """A path id as (service id, DevEUI/GatewayEUI); both None when it is neither."""
    as_uuid = parse_uuid(reference) if len(reference) >= 32 else None
    return as_uuid, None if as_uuid else normalize_eui(reference)


async def resolve_device(
    connection: asyncpg.Pool | asyncpg.Connection,
    principal: Principal,
    reference: str,
    *,
    live: bool = False,
) -> DeviceRef:
    """The device, or 404. `live=True` also answers 404 for inventory/archived devices."""
    device_id, dev_eui = split_reference(reference)
    if device_id is None and dev_eui is None:
        raise not_found("device")
    row: Any = await connection.fetchrow(
        RESOLVE_DEVICE, principal.partner_id, principal.sub_account_id, device_id, dev_eui
    )
    if row is None or (live and row["status"] != DeviceStatus.ASSIGNED):
        raise not_found("device")
    return DeviceRef(**dict(row))
