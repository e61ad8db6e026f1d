from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID






T = TypeVar("T", bound="Site")



@_attrs_define
class Site:
    """ 
        Attributes:
            id (UUID): Service id (UUID, lowercase).
            name (str): Display name.
            parent_site_id (None | UUID): Id of the parent site; null for a root site.
            sub_account_id (UUID): Id of the sub-account it belongs to (null for a partner's inventory).
     """

    id: UUID
    name: str
    parent_site_id: None | UUID
    sub_account_id: UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        name = self.name

        parent_site_id: None | str
        if isinstance(self.parent_site_id, UUID):
            parent_site_id = str(self.parent_site_id)
        else:
            parent_site_id = self.parent_site_id

        sub_account_id = str(self.sub_account_id)


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "id": id,
            "name": name,
            "parentSiteId": parent_site_id,
            "subAccountId": sub_account_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = UUID(d.pop("id"))




        name = d.pop("name")

        def _parse_parent_site_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                parent_site_id_type_0 = UUID(data)



                return parent_site_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        parent_site_id = _parse_parent_site_id(d.pop("parentSiteId"))


        sub_account_id = UUID(d.pop("subAccountId"))




        site = cls(
            id=id,
            name=name,
            parent_site_id=parent_site_id,
            sub_account_id=sub_account_id,
        )


        site.additional_properties = d
        return site

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
