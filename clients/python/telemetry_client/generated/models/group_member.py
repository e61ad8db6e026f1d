from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.device_status import DeviceStatus
from uuid import UUID






T = TypeVar("T", bound="GroupMember")



@_attrs_define
class GroupMember:
    """ 
        Attributes:
            device_id (UUID): Id of the device.
            dev_eui (str): DevEUI: 16 lowercase hex characters.
            name (str): Display name.
            status (DeviceStatus): Where a device or gateway is (D16): only `assigned` ones report and are listed to
                    sub-account keys.
     """

    device_id: UUID
    dev_eui: str
    name: str
    status: DeviceStatus
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        device_id = str(self.device_id)

        dev_eui = self.dev_eui

        name = self.name

        status = self.status.value


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "deviceId": device_id,
            "devEui": dev_eui,
            "name": name,
            "status": status,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        device_id = UUID(d.pop("deviceId"))




        dev_eui = d.pop("devEui")

        name = d.pop("name")

        status = DeviceStatus(d.pop("status"))




        group_member = cls(
            device_id=device_id,
            dev_eui=dev_eui,
            name=name,
            status=status,
        )


        group_member.additional_properties = d
        return group_member

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
