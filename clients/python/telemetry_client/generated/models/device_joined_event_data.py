from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
import datetime






T = TypeVar("T", bound="DeviceJoinedEventData")



@_attrs_define
class DeviceJoinedEventData:
    """ What the event type carries (integrations.md 1.2).

        Attributes:
            dev_eui (str):
            time (datetime.datetime):
     """

    dev_eui: str
    time: datetime.datetime





    def to_dict(self) -> dict[str, Any]:
        dev_eui = self.dev_eui

        time = self.time.isoformat()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "devEui": dev_eui,
            "time": time,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        dev_eui = d.pop("devEui")

        time = datetime.datetime.fromisoformat(d.pop("time"))




        device_joined_event_data = cls(
            dev_eui=dev_eui,
            time=time,
        )

        return device_joined_event_data

