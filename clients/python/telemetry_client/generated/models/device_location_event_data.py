from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.device_location_event_data_location import DeviceLocationEventDataLocation





T = TypeVar("T", bound="DeviceLocationEventData")



@_attrs_define
class DeviceLocationEventData:
    """ What the event type carries (integrations.md 1.2).

        Attributes:
            dev_eui (str):
            location (DeviceLocationEventDataLocation):
            time (datetime.datetime):
     """

    dev_eui: str
    location: DeviceLocationEventDataLocation
    time: datetime.datetime





    def to_dict(self) -> dict[str, Any]:
        from ..models.device_location_event_data_location import DeviceLocationEventDataLocation # noqa: PLC0415
        dev_eui = self.dev_eui

        location = self.location.to_dict()

        time = self.time.isoformat()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "devEui": dev_eui,
            "location": location,
            "time": time,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.device_location_event_data_location import DeviceLocationEventDataLocation # noqa: PLC0415
        d = dict(src_dict)
        dev_eui = d.pop("devEui")

        location = DeviceLocationEventDataLocation.from_dict(d.pop("location"))




        time = datetime.datetime.fromisoformat(d.pop("time"))




        device_location_event_data = cls(
            dev_eui=dev_eui,
            location=location,
            time=time,
        )

        return device_location_event_data

