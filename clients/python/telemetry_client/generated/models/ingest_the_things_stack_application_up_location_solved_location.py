from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="IngestTheThingsStackApplicationUpLocationSolvedLocation")



@_attrs_define
class IngestTheThingsStackApplicationUpLocationSolvedLocation:
    """ 
        Attributes:
            latitude (float | Unset):  Default: 0.0.
            longitude (float | Unset):  Default: 0.0.
            altitude (float | None | Unset):
     """

    latitude: float | Unset = 0.0
    longitude: float | Unset = 0.0
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
        })
        if latitude is not UNSET:
            field_dict["latitude"] = latitude
        if longitude is not UNSET:
            field_dict["longitude"] = longitude
        if altitude is not UNSET:
            field_dict["altitude"] = altitude

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        latitude = d.pop("latitude", UNSET)

        longitude = d.pop("longitude", UNSET)

        def _parse_altitude(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        altitude = _parse_altitude(d.pop("altitude", UNSET))


        ingest_the_things_stack_application_up_location_solved_location = cls(
            latitude=latitude,
            longitude=longitude,
            altitude=altitude,
        )


        ingest_the_things_stack_application_up_location_solved_location.additional_properties = d
        return ingest_the_things_stack_application_up_location_solved_location

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
