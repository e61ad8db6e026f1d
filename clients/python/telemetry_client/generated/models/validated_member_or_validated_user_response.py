from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.validated_member import ValidatedMember
  from ..models.validated_user import ValidatedUser





T = TypeVar("T", bound="ValidatedMemberOrValidatedUserResponse")



@_attrs_define
class ValidatedMemberOrValidatedUserResponse:
    """ 
        Attributes:
            data (ValidatedMember | ValidatedUser): The result.
     """

    data: ValidatedMember | ValidatedUser
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.validated_member import ValidatedMember # noqa: PLC0415
        from ..models.validated_user import ValidatedUser # noqa: PLC0415
        data: dict[str, Any]
        if isinstance(self.data, ValidatedMember):
            data = self.data.to_dict()
        else:
            data = self.data.to_dict()



        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "data": data,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.validated_member import ValidatedMember # noqa: PLC0415
        from ..models.validated_user import ValidatedUser # noqa: PLC0415
        d = dict(src_dict)
        def _parse_data(data: object) -> ValidatedMember | ValidatedUser:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                data_type_0 = ValidatedMember.from_dict(data)



                return data_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            data_type_1 = ValidatedUser.from_dict(data)



            return data_type_1

        data = _parse_data(d.pop("data"))


        validated_member_or_validated_user_response = cls(
            data=data,
        )


        validated_member_or_validated_user_response.additional_properties = d
        return validated_member_or_validated_user_response

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
