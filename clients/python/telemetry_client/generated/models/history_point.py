from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="HistoryPoint")



@_attrs_define
class HistoryPoint:
    """ 
        Attributes:
            time (datetime.datetime): Time of the reading, or the start of its bucket.
            value (Any): The reading (bucketed: the aggregate); its type is the field's.
            site_id (None | Unset | UUID): Id of its site; null when none or the multi-site feature is off.
            filled (bool | Unset): With `fill`: true when the bucket is empty and its value comes from the fill rule, false
                otherwise.
     """

    time: datetime.datetime
    value: Any
    site_id: None | Unset | UUID = UNSET
    filled: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        time = self.time.isoformat()

        value = self.value

        site_id: None | str | Unset
        if isinstance(self.site_id, Unset):
            site_id = UNSET
        elif isinstance(self.site_id, UUID):
            site_id = str(self.site_id)
        else:
            site_id = self.site_id

        filled: bool | Unset
        if isinstance(self.filled, Unset):
            filled = UNSET
        else:
            filled = self.filled


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "time": time,
            "value": value,
        })
        if site_id is not UNSET:
            field_dict["siteId"] = site_id
        if filled is not UNSET:
            field_dict["filled"] = filled

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        time = datetime.datetime.fromisoformat(d.pop("time"))




        value = d.pop("value")

        def _parse_site_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                site_id_type_0 = UUID(data)



                return site_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        site_id = _parse_site_id(d.pop("siteId", UNSET))


        def _parse_filled(data: object) -> bool | Unset:
            if isinstance(data, Unset):
                return data
            return cast(bool | Unset, data)

        filled = _parse_filled(d.pop("filled", UNSET))


        history_point = cls(
            time=time,
            value=value,
            site_id=site_id,
            filled=filled,
        )


        history_point.additional_properties = d
        return history_point

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
