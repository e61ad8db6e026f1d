from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID

if TYPE_CHECKING:
  from ..models.membership import Membership





T = TypeVar("T", bound="ValidatedUser")



@_attrs_define
class ValidatedUser:
    """ 
        Attributes:
            valid (bool): Always true on success.
            user_id (UUID): Id of the user.
            email (str): Email address (compared case-insensitively).
            name (str): Display name.
            mfa_enabled (bool): Whether the user has MFA enabled in the service.
            memberships (list[Membership]): Active memberships in the partner's sub-accounts (none is picked).
     """

    valid: bool
    user_id: UUID
    email: str
    name: str
    mfa_enabled: bool
    memberships: list[Membership]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.membership import Membership # noqa: PLC0415
        valid = self.valid

        user_id = str(self.user_id)

        email = self.email

        name = self.name

        mfa_enabled = self.mfa_enabled

        memberships = []
        for memberships_item_data in self.memberships:
            memberships_item = memberships_item_data.to_dict()
            memberships.append(memberships_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "valid": valid,
            "userId": user_id,
            "email": email,
            "name": name,
            "mfaEnabled": mfa_enabled,
            "memberships": memberships,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.membership import Membership # noqa: PLC0415
        d = dict(src_dict)
        valid = d.pop("valid")

        user_id = UUID(d.pop("userId"))




        email = d.pop("email")

        name = d.pop("name")

        mfa_enabled = d.pop("mfaEnabled")

        memberships = []
        _memberships = d.pop("memberships")
        for memberships_item_data in (_memberships):
            memberships_item = Membership.from_dict(memberships_item_data)



            memberships.append(memberships_item)


        validated_user = cls(
            valid=valid,
            user_id=user_id,
            email=email,
            name=name,
            mfa_enabled=mfa_enabled,
            memberships=memberships,
        )


        validated_user.additional_properties = d
        return validated_user

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
