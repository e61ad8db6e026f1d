from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
import datetime






T = TypeVar("T", bound="DeviceOnlineEventData")



@_attrs_define
class DeviceOnlineEventData:
    """ What the event type carries (integrations.md 1.2).

        Attributes:
            dev_eui (str):
            last_uplink_at (datetime.datetime):
            offline_threshold_minutes (int):
     """

    dev_eui: str
    last_uplink_at: datetime.datetime
    offline_threshold_minutes: int





    def to_dict(self) -> dict[str, Any]:
        dev_eui = self.dev_eui

        last_uplink_at = self.last_uplink_at.isoformat()

        offline_threshold_minutes = self.offline_threshold_minutes


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "devEui": dev_eui,
            "lastUplinkAt": last_uplink_at,
            "offlineThresholdMinutes": offline_threshold_minutes,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        dev_eui = d.pop("devEui")

        last_uplink_at = datetime.datetime.fromisoformat(d.pop("lastUplinkAt"))




        offline_threshold_minutes = d.pop("offlineThresholdMinutes")

        device_online_event_data = cls(
            dev_eui=dev_eui,
            last_uplink_at=last_uplink_at,
            offline_threshold_minutes=offline_threshold_minutes,
        )

        return device_online_event_data

