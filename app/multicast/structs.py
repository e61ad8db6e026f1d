"""Multicast group shapes (decisions D17)."""

from __future__ import annotations

import uuid
from typing import Literal

import msgspec


class MulticastGroup(msgspec.Struct, rename="camel"):
    id: uuid.UUID
    name: str
    sub_account_id: uuid.UUID
    device_count: int


class GroupMember(msgspec.Struct, rename="camel"):
    device_id: uuid.UUID
    dev_eui: str
    name: str
    status: Literal["inventory", "assigned", "archived"]


class MulticastGroupDetail(MulticastGroup, rename="camel"):
    devices: list[GroupMember]
