from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID

if TYPE_CHECKING:
  from ..models.group_member import GroupMember





T = TypeVar("T", bound="MulticastGroupDetail")



@_attrs_define
class MulticastGroupDetail:
    """ 
        Attributes:
            id (UUID): Service id (UUID, lowercase).
            name (str): Display name.
            sub_account_id (UUID): Id of the sub-account it belongs to (null for a partner's inventory).
            device_count (int): Number of member devices.
            devices (list[GroupMember]): Member devices.
     """

    id: UUID
    name: str
    sub_account_id: UUID
    device_count: int
    devices: list[GroupMember]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.group_member import GroupMember # noqa: PLC0415
        id = str(self.id)

        name = self.name

        sub_account_id = str(self.sub_account_id)

        device_count = self.device_count

        devices = []
        for devices_item_data in self.devices:
            devices_item = devices_item_data.to_dict()
            devices.append(devices_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "id": id,
            "name": name,
            "subAccountId": sub_account_id,
            "deviceCount": device_count,
            "devices": devices,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.group_member import GroupMember # noqa: PLC0415
        d = dict(src_dict)
        id = UUID(d.pop("id"))




        name = d.pop("name")

        sub_account_id = UUID(d.pop("subAccountId"))




        device_count = d.pop("deviceCount")

        devices = []
        _devices = d.pop("devices")
        for devices_item_data in (_devices):
            devices_item = GroupMember.from_dict(devices_item_data)



            devices.append(devices_item)


        multicast_group_detail = cls(
            id=id,
            name=name,
            sub_account_id=sub_account_id,
            device_count=device_count,
            devices=devices,
        )


        multicast_group_detail.additional_properties = d
        return multicast_group_detail

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
