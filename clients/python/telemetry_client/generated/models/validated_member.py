from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.role import Role
from typing import cast
from uuid import UUID






T = TypeVar("T", bound="ValidatedMember")



@_attrs_define
class ValidatedMember:
    """ 
        Attributes:
            valid (bool): Always true on success.
            user_id (UUID): Id of the user.
            email (str): Email address (compared case-insensitively).
            name (str): Display name.
            role (Role):
            mfa_enabled (bool): Whether the user has MFA enabled in the service.
            sub_account_id (UUID): Id of the sub-account it belongs to (null for a partner's inventory).
            sub_account_name (str): Name of that sub-account.
            site_id (None | UUID): Id of its site; null when none or the multi-site feature is off.
            site_name (None | str): Name of that site; null with siteId.
     """

    valid: bool
    user_id: UUID
    email: str
    name: str
    role: Role
    mfa_enabled: bool
    sub_account_id: UUID
    sub_account_name: str
    site_id: None | UUID
    site_name: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        valid = self.valid

        user_id = str(self.user_id)

        email = self.email

        name = self.name

        role = self.role.value

        mfa_enabled = self.mfa_enabled

        sub_account_id = str(self.sub_account_id)

        sub_account_name = self.sub_account_name

        site_id: None | str
        if isinstance(self.site_id, UUID):
            site_id = str(self.site_id)
        else:
            site_id = self.site_id

        site_name: None | str
        site_name = self.site_name


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "valid": valid,
            "userId": user_id,
            "email": email,
            "name": name,
            "role": role,
            "mfaEnabled": mfa_enabled,
            "subAccountId": sub_account_id,
            "subAccountName": sub_account_name,
            "siteId": site_id,
            "siteName": site_name,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        valid = d.pop("valid")

        user_id = UUID(d.pop("userId"))




        email = d.pop("email")

        name = d.pop("name")

        role = Role(d.pop("role"))




        mfa_enabled = d.pop("mfaEnabled")

        sub_account_id = UUID(d.pop("subAccountId"))




        sub_account_name = d.pop("subAccountName")

        def _parse_site_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                site_id_type_0 = UUID(data)



                return site_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        site_id = _parse_site_id(d.pop("siteId"))


        def _parse_site_name(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        site_name = _parse_site_name(d.pop("siteName"))


        validated_member = cls(
            valid=valid,
            user_id=user_id,
            email=email,
            name=name,
            role=role,
            mfa_enabled=mfa_enabled,
            sub_account_id=sub_account_id,
            sub_account_name=sub_account_name,
            site_id=site_id,
            site_name=site_name,
        )


        validated_member.additional_properties = d
        return validated_member

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
