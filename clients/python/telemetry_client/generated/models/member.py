from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.member_status import MemberStatus
from ..models.role import Role
from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="Member")



@_attrs_define
class Member:
    """ 
        Attributes:
            user_id (UUID): Id of the user.
            email (str): Email address (compared case-insensitively).
            name (str): Display name.
            role (Role):
            status (MemberStatus): State of the item (see the enum).
            mfa_enabled (bool): Whether the user has MFA enabled in the service.
            last_login_at (datetime.datetime | None): Last sign-in (RFC 3339 UTC), or null if never.
            added_at (datetime.datetime): When the membership was added (RFC 3339 UTC).
            sub_account_id (UUID): Id of the sub-account it belongs to (null for a partner's inventory).
            sub_account_name (str): Name of that sub-account.
            site_id (None | UUID): Id of its site; null when none or the multi-site feature is off.
            site_name (None | str): Name of that site; null with siteId.
     """

    user_id: UUID
    email: str
    name: str
    role: Role
    status: MemberStatus
    mfa_enabled: bool
    last_login_at: datetime.datetime | None
    added_at: datetime.datetime
    sub_account_id: UUID
    sub_account_name: str
    site_id: None | UUID
    site_name: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        user_id = str(self.user_id)

        email = self.email

        name = self.name

        role = self.role.value

        status = self.status.value

        mfa_enabled = self.mfa_enabled

        last_login_at: None | str
        if isinstance(self.last_login_at, datetime.datetime):
            last_login_at = self.last_login_at.isoformat()
        else:
            last_login_at = self.last_login_at

        added_at = self.added_at.isoformat()

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
            "userId": user_id,
            "email": email,
            "name": name,
            "role": role,
            "status": status,
            "mfaEnabled": mfa_enabled,
            "lastLoginAt": last_login_at,
            "addedAt": added_at,
            "subAccountId": sub_account_id,
            "subAccountName": sub_account_name,
            "siteId": site_id,
            "siteName": site_name,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        user_id = UUID(d.pop("userId"))




        email = d.pop("email")

        name = d.pop("name")

        role = Role(d.pop("role"))




        status = MemberStatus(d.pop("status"))




        mfa_enabled = d.pop("mfaEnabled")

        def _parse_last_login_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_login_at_type_0 = datetime.datetime.fromisoformat(data)



                return last_login_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_login_at = _parse_last_login_at(d.pop("lastLoginAt"))


        added_at = datetime.datetime.fromisoformat(d.pop("addedAt"))




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


        member = cls(
            user_id=user_id,
            email=email,
            name=name,
            role=role,
            status=status,
            mfa_enabled=mfa_enabled,
            last_login_at=last_login_at,
            added_at=added_at,
            sub_account_id=sub_account_id,
            sub_account_name=sub_account_name,
            site_id=site_id,
            site_name=site_name,
        )


        member.additional_properties = d
        return member

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
