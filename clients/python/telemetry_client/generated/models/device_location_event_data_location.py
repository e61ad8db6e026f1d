from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="DeviceLocationEventDataLocation")



@_attrs_define
class DeviceLocationEventDataLocation:
    """ 
        Attributes:
            latitude (float):
            longitude (float):
            altitude (float | None | Unset):
     """

    latitude: float
    longitude: float
    altitude: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        latitude = self.latitude

        longitude = self.longitude

        altitude: float | None | Unset
        if isinstance(self.altitude, Unset):
            altitude = UNSET
        else:
            altitude = self.altitude


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "latitude": latitude,
            "longitude": longitude,
        })
        if altitude is not UNSET:
            field_dict["altitude"] = altitude

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        latitude = d.pop("latitude")

        longitude = d.pop("longitude")

        def _parse_altitude(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        altitude = _parse_altitude(d.pop("altitude", UNSET))


        device_location_event_data_location = cls(
            latitude=latitude,
            longitude=longitude,
            altitude=altitude,
        )


        device_location_event_data_location.additional_properties = d
        return device_location_event_data_location

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
