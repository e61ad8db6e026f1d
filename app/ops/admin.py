"""Operations the spec says are "done in the app": keys, device status, feature switches.

Driven by the `telemetry` command line (operations.md section 1). Operator mistakes raise
`OperationError`, which the command prints as one line.
"""

from __future__ import annotations

import secrets
import uuid
from datetime import datetime
from typing import Any

from app.auth.principal import hash_secret
from app.core.api import normalize_eui
from app.core.enums import ALL_SCOPES, DeviceStatus
from app.core.sql import QUERIES


class OperationError(Exception):
    """An operator's mistake (unknown id, bad scope, ...), reported as one line."""


def parse_id(label: str, text: str) -> uuid.UUID:
    try:
        return uuid.UUID(text)
    except (ValueError, AttributeError, TypeError):
        raise OperationError(f"{label}: not a UUID: {text}") from None


def new_key_secret() -> str:
    return "svc_live_" + secrets.token_urlsafe(32)


async def create_key(
    conn: Any,
    partner_id: str | None,
    sub_account_id: str | None,
    name: str,
    scopes: list[str],
    expires_at: datetime | None,
) -> tuple[str, str]:
    """Creates a partner or sub-account key; returns its id and the secret (shown once)."""
    if (partner_id is None) == (sub_account_id is None):
        raise OperationError("give exactly one of --partner and --sub-account")
    if not name.strip():
        raise OperationError("--name: must not be empty")
    if not scopes:
        raise OperationError("--scopes: give at least one scope")
    unknown = [scope for scope in scopes if scope not in ALL_SCOPES]
    if unknown:
        known = ", ".join(sorted(ALL_SCOPES))
        raise OperationError(f"--scopes: unknown scope {unknown[0]!r} (known: {known})")
    scopes = list(dict.fromkeys(scopes))
    bound_to: uuid.UUID | None = None
    if sub_account_id is not None:
        bound_to = parse_id("--sub-account", sub_account_id)
        owner = await conn.fetchval(QUERIES["admin.sub_account_partner"], bound_to)
        if owner is None:
            raise OperationError(f"no sub-account with id {bound_to}")
    else:
        owner = parse_id("--partner", partner_id or "")
        if not await conn.fetchval(QUERIES["admin.partner_exists"], owner):
            raise OperationError(f"no partner with id {owner}")
    key_id = uuid.uuid4()
    secret = new_key_secret()
    detail = {
        "keyId": str(key_id),
        "name": name,
        "subAccountId": None if bound_to is None else str(bound_to),
        "scopes": scopes,
        "expiresAt": None if expires_at is None else expires_at.isoformat(),
        "source": "cli",
    }
    async with conn.transaction():
        await conn.execute(
            QUERIES["admin.insert_key"],
            key_id,
            owner,
            bound_to,
            name,
            hash_secret(secret),
            scopes,
            expires_at,
        )
        await conn.execute(QUERIES["admin.insert_key_usage"], key_id)
        await conn.execute(QUERIES["admin.insert_audit"], owner, "key.created", detail)
    return str(key_id), secret


async def revoke_key(conn: Any, key_id: str) -> None:
    """Revokes a key at once; revoking a revoked key again changes nothing."""
    parsed = parse_id("KEY_ID", key_id)
    async with conn.transaction():
        row = await conn.fetchrow(QUERIES["admin.revoke_key"], parsed)
        if row is None:
            raise OperationError(f"no key with id {parsed}")
        detail = {"keyId": str(parsed), "name": row["name"], "source": "cli"}
        await conn.execute(QUERIES["admin.insert_audit"], row["partner_id"], "key.revoked", detail)


async def _lock_device(conn: Any, device_id: str) -> Any:
    """The device by UUID, or by DevEUI when exactly one partner has that DevEUI."""
    parsed: uuid.UUID | None
    try:
        parsed = uuid.UUID(device_id)
    except ValueError:
        parsed = None
    if parsed is not None:
        row = await conn.fetchrow(QUERIES["admin.lock_device"], parsed)
        if row is None:
            raise OperationError(f"no device with id {parsed}")
        return row
    dev_eui = normalize_eui(device_id)
    if dev_eui is None:
        raise OperationError(f"DEVICE_ID: not a UUID or DevEUI: {device_id}")
    rows = await conn.fetch(QUERIES["admin.lock_device_by_eui"], dev_eui)
    if not rows:
        raise OperationError(f"no device with DevEUI {dev_eui}")
    if len(rows) > 1:
        raise OperationError(f"DevEUI {dev_eui} is used by several partners; give the device id")
    return rows[0]


async def set_device_status(
    conn: Any, device_id: str, status: str, sub_account_id: str | None
) -> None:
    """Moves a device between inventory, assigned and archived (D16, D18).

    To inventory: its telemetry is deleted and it leaves its sub-account, network and site,
    in one transaction; it stays a member of its multicast groups, listed with its status
    and skipped when a group is executed (api-spec 2.9, 4.7). Assigning needs a sub-account
    (its own or `--sub-account`); archiving keeps its sub-account unless `--sub-account`
    names another. A device that lands in a sub-account leaves the groups of every other
    one, so a group never holds a device of another tenant.
    """
    if status not in set(DeviceStatus):
        raise OperationError(f"status must be one of {', '.join(DeviceStatus)}")
    target: uuid.UUID | None = None
    if sub_account_id is not None:
        if status == "inventory":
            raise OperationError("--sub-account does not apply to a move to inventory")
        target = parse_id("--sub-account", sub_account_id)
    async with conn.transaction():
        device = await _lock_device(conn, device_id)
        if target is not None:
            owner = await conn.fetchval(QUERIES["admin.sub_account_partner"], target)
            if owner is None:
                raise OperationError(f"no sub-account with id {target}")
            if owner != device["partner_id"]:
                raise OperationError(
                    f"sub-account {target} belongs to another partner than device {device['id']}"
                )
        if status == "inventory":
            await conn.execute(QUERIES["admin.delete_device_telemetry"], device["num"])
            await conn.execute(QUERIES["admin.move_device"], device["id"], status, None, True)
            return
        current = device["sub_account_id"]
        new_sub_account = target if target is not None else current
        if new_sub_account is None and status == DeviceStatus.ASSIGNED:
            raise OperationError(
                "--sub-account is required to assign a device that has no sub-account"
            )
        leaves = current is not None and new_sub_account != current
        if new_sub_account is not None:
            await conn.execute(
                QUERIES["admin.leave_foreign_multicast_groups"], device["id"], new_sub_account
            )
        await conn.execute(
            QUERIES["admin.move_device"], device["id"], status, new_sub_account, leaves
        )


async def set_features(
    conn: Any,
    partner_id: str | None,
    sub_account_id: str | None,
    networks: bool | None,
    multi_site: bool | None,
) -> None:
    """Switches features of a partner (the default) or a sub-account (its own setting)."""
    if (partner_id is None) == (sub_account_id is None):
        raise OperationError("give exactly one of --partner and --sub-account")
    if networks is None and multi_site is None:
        raise OperationError("nothing to change: give --networks and/or --multi-site")
    detail: dict[str, Any] = {"networks": networks, "multiSite": multi_site, "source": "cli"}
    async with conn.transaction():
        if sub_account_id is not None:
            target = parse_id("--sub-account", sub_account_id)
            owner = await conn.fetchval(
                QUERIES["admin.set_sub_account_features"], target, networks, multi_site
            )
            if owner is None:
                raise OperationError(f"no sub-account with id {target}")
            detail["subAccountId"] = str(target)
        else:
            target = parse_id("--partner", partner_id or "")
            owner = await conn.fetchval(
                QUERIES["admin.set_partner_features"], target, networks, multi_site
            )
            if owner is None:
                raise OperationError(f"no partner with id {target}")
        await conn.execute(QUERIES["admin.insert_audit"], owner, "features.set", detail)
