from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset






T = TypeVar("T", bound="IngestTheThingsStackApplicationUpEndDeviceIds")



@_attrs_define
class IngestTheThingsStackApplicationUpEndDeviceIds:
    """ 
        Attributes:
            device_id (str | Unset):  Default: ''.
            dev_eui (str | Unset):  Default: ''.
     """

    device_id: str | Unset = ''
    dev_eui: str | Unset = ''
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        device_id = self.device_id

        dev_eui = self.dev_eui


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
        })
        if device_id is not UNSET:
            field_dict["device_id"] = device_id
        if dev_eui is not UNSET:
            field_dict["dev_eui"] = dev_eui

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        device_id = d.pop("device_id", UNSET)

        dev_eui = d.pop("dev_eui", UNSET)

        ingest_the_things_stack_application_up_end_device_ids = cls(
            device_id=device_id,
            dev_eui=dev_eui,
        )


        ingest_the_things_stack_application_up_end_device_ids.additional_properties = d
        return ingest_the_things_stack_application_up_end_device_ids

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
