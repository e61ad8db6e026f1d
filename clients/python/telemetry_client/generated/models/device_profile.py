from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from uuid import UUID






T = TypeVar("T", bound="DeviceProfile")



@_attrs_define
class DeviceProfile:
    """ 
        Attributes:
            id (UUID): Service id (UUID, lowercase).
            name (str): Display name.
            retain_last_value (bool): Whether fields missing from an uplink are carried from earlier ones.
            field_count (int): Number of fields in the catalog.
     """

    id: UUID
    name: str
    retain_last_value: bool
    field_count: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        name = self.name

        retain_last_value = self.retain_last_value

        field_count = self.field_count


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "id": id,
            "name": name,
            "retainLastValue": retain_last_value,
            "fieldCount": field_count,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = UUID(d.pop("id"))




        name = d.pop("name")

        retain_last_value = d.pop("retainLastValue")

        field_count = d.pop("fieldCount")

        device_profile = cls(
            id=id,
            name=name,
            retain_last_value=retain_last_value,
            field_count=field_count,
        )


        device_profile.additional_properties = d
        return device_profile

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
