from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.member_result import MemberResult





T = TypeVar("T", bound="ExecuteResult")



@_attrs_define
class ExecuteResult:
    """ 
        Attributes:
            device_count (int): Assigned members the downlink was planned for.
            enqueued_count (int): Devices the downlink was queued for.
            rate_limited_count (int): Devices over their hourly downlink limit.
            failed_count (int): Devices whose profile cannot take the template or data.
            per_device (list[MemberResult]): The outcome for each assigned member.
     """

    device_count: int
    enqueued_count: int
    rate_limited_count: int
    failed_count: int
    per_device: list[MemberResult]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.member_result import MemberResult # noqa: PLC0415
        device_count = self.device_count

        enqueued_count = self.enqueued_count

        rate_limited_count = self.rate_limited_count

        failed_count = self.failed_count

        per_device = []
        for per_device_item_data in self.per_device:
            per_device_item = per_device_item_data.to_dict()
            per_device.append(per_device_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "deviceCount": device_count,
            "enqueuedCount": enqueued_count,
            "rateLimitedCount": rate_limited_count,
            "failedCount": failed_count,
            "perDevice": per_device,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.member_result import MemberResult # noqa: PLC0415
        d = dict(src_dict)
        device_count = d.pop("deviceCount")

        enqueued_count = d.pop("enqueuedCount")

        rate_limited_count = d.pop("rateLimitedCount")

        failed_count = d.pop("failedCount")

        per_device = []
        _per_device = d.pop("perDevice")
        for per_device_item_data in (_per_device):
            per_device_item = MemberResult.from_dict(per_device_item_data)



            per_device.append(per_device_item)


        execute_result = cls(
            device_count=device_count,
            enqueued_count=enqueued_count,
            rate_limited_count=rate_limited_count,
            failed_count=failed_count,
            per_device=per_device,
        )


        execute_result.additional_properties = d
        return execute_result

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
