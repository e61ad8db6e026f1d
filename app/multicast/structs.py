"""Multicast group shapes (decisions D17)."""

from __future__ import annotations

import uuid

import msgspec

from app.core.enums import DeviceStatus


class MulticastGroup(msgspec.Struct, rename="camel"):
    id: uuid.UUID
    name: str
    sub_account_id: uuid.UUID
    device_count: int


class GroupMember(msgspec.Struct, rename="camel"):
    device_id: uuid.UUID
    dev_eui: str
    name: str
    status: DeviceStatus


class MulticastGroupDetail(MulticastGroup, rename="camel"):
    devices: list[GroupMember]
