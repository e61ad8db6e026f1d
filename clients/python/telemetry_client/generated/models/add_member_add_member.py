from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.add_member_add_member_role import AddMemberAddMemberRole
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="AddMemberAddMember")



@_attrs_define
class AddMemberAddMember:
    """ 
        Attributes:
            email (str): Compared case-insensitively after trimming.
            name (None | str | Unset):
            password (None | str | Unset):
            role (AddMemberAddMemberRole | None | Unset):
            site_id (None | str | Unset):
     """

    email: str
    name: None | str | Unset = UNSET
    password: None | str | Unset = UNSET
    role: AddMemberAddMemberRole | None | Unset = UNSET
    site_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        email = self.email

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        password: None | str | Unset
        if isinstance(self.password, Unset):
            password = UNSET
        else:
            password = self.password

        role: None | str | Unset
        if isinstance(self.role, Unset):
            role = UNSET
        elif isinstance(self.role, AddMemberAddMemberRole):
            role = self.role.value
        else:
            role = self.role

        site_id: None | str | Unset
        if isinstance(self.site_id, Unset):
            site_id = UNSET
        else:
            site_id = self.site_id


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "email": email,
        })
        if name is not UNSET:
            field_dict["name"] = name
        if password is not UNSET:
            field_dict["password"] = password
        if role is not UNSET:
            field_dict["role"] = role
        if site_id is not UNSET:
            field_dict["siteId"] = site_id

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        email = d.pop("email")

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))


        def _parse_password(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        password = _parse_password(d.pop("password", UNSET))


        def _parse_role(data: object) -> AddMemberAddMemberRole | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                role_role = AddMemberAddMemberRole(data)



                return role_role
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AddMemberAddMemberRole | None | Unset, data)

        role = _parse_role(d.pop("role", UNSET))


        def _parse_site_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        site_id = _parse_site_id(d.pop("siteId", UNSET))


        add_member_add_member = cls(
            email=email,
            name=name,
            password=password,
            role=role,
            site_id=site_id,
        )


        add_member_add_member.additional_properties = d
        return add_member_add_member

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
