from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from typing import Literal, cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="QueuedDownlink")



@_attrs_define
class QueuedDownlink:
    """ 
        Attributes:
            status (Literal['queued']): State of the item (see the enum).
            queue_item_id (UUID): Id of the queued item (null when not queued).
            f_port (int): LoRaWAN FPort the payload is sent on.
            byte_count (int): Length of the encoded payload in bytes.
            expires_at (datetime.datetime | None): When the item or key expires (RFC 3339 UTC), or null for never.
     """

    status: Literal['queued']
    queue_item_id: UUID
    f_port: int
    byte_count: int
    expires_at: datetime.datetime | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        status = self.status

        queue_item_id = str(self.queue_item_id)

        f_port = self.f_port

        byte_count = self.byte_count

        expires_at: None | str
        if isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "status": status,
            "queueItemId": queue_item_id,
            "fPort": f_port,
            "byteCount": byte_count,
            "expiresAt": expires_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        status = cast(Literal['queued'] , d.pop("status"))
        if status != 'queued':
            raise ValueError(f"status must match const 'queued', got '{status}'")

        queue_item_id = UUID(d.pop("queueItemId"))




        f_port = d.pop("fPort")

        byte_count = d.pop("byteCount")

        def _parse_expires_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expires_at_type_0 = datetime.datetime.fromisoformat(data)



                return expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        expires_at = _parse_expires_at(d.pop("expiresAt"))


        queued_downlink = cls(
            status=status,
            queue_item_id=queue_item_id,
            f_port=f_port,
            byte_count=byte_count,
            expires_at=expires_at,
        )


        queued_downlink.additional_properties = d
        return queued_downlink

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
