from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.member_result_status import MemberResultStatus
from typing import cast
from uuid import UUID






T = TypeVar("T", bound="MemberResult")



@_attrs_define
class MemberResult:
    """ 
        Attributes:
            device_id (UUID): Id of the device.
            dev_eui (str): DevEUI: 16 lowercase hex characters.
            status (MemberResultStatus): State of the item (see the enum).
            queue_item_id (None | UUID): Id of the queued item (null when not queued).
            error (None | str): Why this device failed, or null.
     """

    device_id: UUID
    dev_eui: str
    status: MemberResultStatus
    queue_item_id: None | UUID
    error: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        device_id = str(self.device_id)

        dev_eui = self.dev_eui

        status = self.status.value

        queue_item_id: None | str
        if isinstance(self.queue_item_id, UUID):
            queue_item_id = str(self.queue_item_id)
        else:
            queue_item_id = self.queue_item_id

        error: None | str
        error = self.error


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "deviceId": device_id,
            "devEui": dev_eui,
            "status": status,
            "queueItemId": queue_item_id,
            "error": error,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        device_id = UUID(d.pop("deviceId"))




        dev_eui = d.pop("devEui")

        status = MemberResultStatus(d.pop("status"))




        def _parse_queue_item_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                queue_item_id_type_0 = UUID(data)



                return queue_item_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        queue_item_id = _parse_queue_item_id(d.pop("queueItemId"))


        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))


        member_result = cls(
            device_id=device_id,
            dev_eui=dev_eui,
            status=status,
            queue_item_id=queue_item_id,
            error=error,
        )


        member_result.additional_properties = d
        return member_result

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
