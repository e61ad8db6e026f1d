from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from uuid import UUID






T = TypeVar("T", bound="RemovedMember")



@_attrs_define
class RemovedMember:
    """ 
        Attributes:
            user_id (UUID): Id of the user.
            removed (bool): Always true: the membership is gone.
            sub_account_id (UUID): Id of the sub-account it belongs to (null for a partner's inventory).
            sub_account_name (str): Name of that sub-account.
     """

    user_id: UUID
    removed: bool
    sub_account_id: UUID
    sub_account_name: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        user_id = str(self.user_id)

        removed = self.removed

        sub_account_id = str(self.sub_account_id)

        sub_account_name = self.sub_account_name


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "userId": user_id,
            "removed": removed,
            "subAccountId": sub_account_id,
            "subAccountName": sub_account_name,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        user_id = UUID(d.pop("userId"))




        removed = d.pop("removed")

        sub_account_id = UUID(d.pop("subAccountId"))




        sub_account_name = d.pop("subAccountName")

        removed_member = cls(
            user_id=user_id,
            removed=removed,
            sub_account_id=sub_account_id,
            sub_account_name=sub_account_name,
        )


        removed_member.additional_properties = d
        return removed_member

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
