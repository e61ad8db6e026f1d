from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.ingest_the_things_stack_application_up_location_solved_location import IngestTheThingsStackApplicationUpLocationSolvedLocation





T = TypeVar("T", bound="IngestTheThingsStackApplicationUpLocationSolved")



@_attrs_define
class IngestTheThingsStackApplicationUpLocationSolved:
    """ 
        Attributes:
            service (str | Unset):  Default: ''.
            location (IngestTheThingsStackApplicationUpLocationSolvedLocation | Unset):
     """

    service: str | Unset = ''
    location: IngestTheThingsStackApplicationUpLocationSolvedLocation | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.ingest_the_things_stack_application_up_location_solved_location import IngestTheThingsStackApplicationUpLocationSolvedLocation # noqa: PLC0415
        service = self.service

        location: dict[str, Any] | Unset = UNSET
        if not isinstance(self.location, Unset):
            location = self.location.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
        })
        if service is not UNSET:
            field_dict["service"] = service
        if location is not UNSET:
            field_dict["location"] = location

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.ingest_the_things_stack_application_up_location_solved_location import IngestTheThingsStackApplicationUpLocationSolvedLocation # noqa: PLC0415
        d = dict(src_dict)
        service = d.pop("service", UNSET)

        _location = d.pop("location", UNSET)
        location: IngestTheThingsStackApplicationUpLocationSolvedLocation | Unset
        if isinstance(_location,  Unset):
            location = UNSET
        else:
            location = IngestTheThingsStackApplicationUpLocationSolvedLocation.from_dict(_location)




        ingest_the_things_stack_application_up_location_solved = cls(
            service=service,
            location=location,
        )


        ingest_the_things_stack_application_up_location_solved.additional_properties = d
        return ingest_the_things_stack_application_up_location_solved

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
