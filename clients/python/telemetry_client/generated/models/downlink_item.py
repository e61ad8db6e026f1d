from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.downlink_item_status import DownlinkItemStatus
from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="DownlinkItem")



@_attrs_define
class DownlinkItem:
    """ 
        Attributes:
            queue_item_id (UUID): Id of the queued item (null when not queued).
            status (DownlinkItemStatus): Delivery state: `queued`, `submitted`, `sent`, `acknowledged`, `nacked`, `failed`
                or `expired`.
            f_port (int): LoRaWAN FPort the payload is sent on.
            byte_count (int): Length of the encoded payload in bytes.
            confirmed (bool): Whether the device must acknowledge the downlink.
            created_at (datetime.datetime): When the API accepted it (RFC 3339 UTC).
            expires_at (datetime.datetime | None): When the item expires unsent (RFC 3339 UTC), or null.
            submitted_at (datetime.datetime | None): When ChirpStack took it (RFC 3339 UTC), or null.
            sent_at (datetime.datetime | None): When the network transmitted it (`txack`; RFC 3339 UTC), or null.
            f_cnt_down (int | None): The downlink frame counter it was sent with, or null before `sent`.
            acknowledged_at (datetime.datetime | None): When the device acknowledged or nacked it (RFC 3339 UTC), or null.
            error (None | str): Why it failed (ChirpStack's refusal or the network's log), or null.
     """

    queue_item_id: UUID
    status: DownlinkItemStatus
    f_port: int
    byte_count: int
    confirmed: bool
    created_at: datetime.datetime
    expires_at: datetime.datetime | None
    submitted_at: datetime.datetime | None
    sent_at: datetime.datetime | None
    f_cnt_down: int | None
    acknowledged_at: datetime.datetime | None
    error: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        queue_item_id = str(self.queue_item_id)

        status = self.status.value

        f_port = self.f_port

        byte_count = self.byte_count

        confirmed = self.confirmed

        created_at = self.created_at.isoformat()

        expires_at: None | str
        if isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        submitted_at: None | str
        if isinstance(self.submitted_at, datetime.datetime):
            submitted_at = self.submitted_at.isoformat()
        else:
            submitted_at = self.submitted_at

        sent_at: None | str
        if isinstance(self.sent_at, datetime.datetime):
            sent_at = self.sent_at.isoformat()
        else:
            sent_at = self.sent_at

        f_cnt_down: int | None
        f_cnt_down = self.f_cnt_down

        acknowledged_at: None | str
        if isinstance(self.acknowledged_at, datetime.datetime):
            acknowledged_at = self.acknowledged_at.isoformat()
        else:
            acknowledged_at = self.acknowledged_at

        error: None | str
        error = self.error


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "queueItemId": queue_item_id,
            "status": status,
            "fPort": f_port,
            "byteCount": byte_count,
            "confirmed": confirmed,
            "createdAt": created_at,
            "expiresAt": expires_at,
            "submittedAt": submitted_at,
            "sentAt": sent_at,
            "fCntDown": f_cnt_down,
            "acknowledgedAt": acknowledged_at,
            "error": error,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        queue_item_id = UUID(d.pop("queueItemId"))




        status = DownlinkItemStatus(d.pop("status"))




        f_port = d.pop("fPort")

        byte_count = d.pop("byteCount")

        confirmed = d.pop("confirmed")

        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))




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


        def _parse_submitted_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                submitted_at_type_0 = datetime.datetime.fromisoformat(data)



                return submitted_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        submitted_at = _parse_submitted_at(d.pop("submittedAt"))


        def _parse_sent_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                sent_at_type_0 = datetime.datetime.fromisoformat(data)



                return sent_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        sent_at = _parse_sent_at(d.pop("sentAt"))


        def _parse_f_cnt_down(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        f_cnt_down = _parse_f_cnt_down(d.pop("fCntDown"))


        def _parse_acknowledged_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                acknowledged_at_type_0 = datetime.datetime.fromisoformat(data)



                return acknowledged_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        acknowledged_at = _parse_acknowledged_at(d.pop("acknowledgedAt"))


        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))


        downlink_item = cls(
            queue_item_id=queue_item_id,
            status=status,
            f_port=f_port,
            byte_count=byte_count,
            confirmed=confirmed,
            created_at=created_at,
            expires_at=expires_at,
            submitted_at=submitted_at,
            sent_at=sent_at,
            f_cnt_down=f_cnt_down,
            acknowledged_at=acknowledged_at,
            error=error,
        )


        downlink_item.additional_properties = d
        return downlink_item

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
