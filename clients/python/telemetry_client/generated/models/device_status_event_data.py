from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.device_status_event_data_battery_type_0 import DeviceStatusEventDataBatteryType0





T = TypeVar("T", bound="DeviceStatusEventData")



@_attrs_define
class DeviceStatusEventData:
    """ What the event type carries (integrations.md 1.2).

        Attributes:
            dev_eui (str):
            battery (DeviceStatusEventDataBatteryType0 | None):
     """

    dev_eui: str
    battery: DeviceStatusEventDataBatteryType0 | None





    def to_dict(self) -> dict[str, Any]:
        from ..models.device_status_event_data_battery_type_0 import DeviceStatusEventDataBatteryType0 # noqa: PLC0415
        dev_eui = self.dev_eui

        battery: dict[str, Any] | None
        if isinstance(self.battery, DeviceStatusEventDataBatteryType0):
            battery = self.battery.to_dict()
        else:
            battery = self.battery


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "devEui": dev_eui,
            "battery": battery,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.device_status_event_data_battery_type_0 import DeviceStatusEventDataBatteryType0 # noqa: PLC0415
        d = dict(src_dict)
        dev_eui = d.pop("devEui")

        def _parse_battery(data: object) -> DeviceStatusEventDataBatteryType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                battery_type_0 = DeviceStatusEventDataBatteryType0.from_dict(data)



                return battery_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DeviceStatusEventDataBatteryType0 | None, data)

        battery = _parse_battery(d.pop("battery"))


        device_status_event_data = cls(
            dev_eui=dev_eui,
            battery=battery,
        )

        return device_status_event_data

