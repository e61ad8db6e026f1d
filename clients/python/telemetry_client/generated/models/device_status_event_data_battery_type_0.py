from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.device_status_event_data_battery_type_0_source import DeviceStatusEventDataBatteryType0Source
from ..models.device_status_event_data_battery_type_0_state import DeviceStatusEventDataBatteryType0State
from typing import cast
import datetime






T = TypeVar("T", bound="DeviceStatusEventDataBatteryType0")



@_attrs_define
class DeviceStatusEventDataBatteryType0:
    """ 
        Attributes:
            state (DeviceStatusEventDataBatteryType0State):
            value (int | None):
            at (datetime.datetime):
            source (DeviceStatusEventDataBatteryType0Source):
     """

    state: DeviceStatusEventDataBatteryType0State
    value: int | None
    at: datetime.datetime
    source: DeviceStatusEventDataBatteryType0Source
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        state = self.state.value

        value: int | None
        value = self.value

        at = self.at.isoformat()

        source = self.source.value


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "state": state,
            "value": value,
            "at": at,
            "source": source,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        state = DeviceStatusEventDataBatteryType0State(d.pop("state"))




        def _parse_value(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        value = _parse_value(d.pop("value"))


        at = datetime.datetime.fromisoformat(d.pop("at"))




        source = DeviceStatusEventDataBatteryType0Source(d.pop("source"))




        device_status_event_data_battery_type_0 = cls(
            state=state,
            value=value,
            at=at,
            source=source,
        )


        device_status_event_data_battery_type_0.additional_properties = d
        return device_status_event_data_battery_type_0

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
