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

if TYPE_CHECKING:
  from ..models.downlink_nacked_event_data import DownlinkNackedEventData





T = TypeVar("T", bound="DownlinkNackedEvent")



@_attrs_define
class DownlinkNackedEvent:
    """ The `downlink.nacked` webhook event (integrations.md 1.2). One event per request; the body is the exact bytes
    signed. Source: `https://telemetry.example/webhooks/schemas/downlink.nacked.json`.

        Attributes:
            id (str): The event's id, `msg_` and 26 characters; also the `webhook-id` header.
            type_ (Literal['downlink.nacked']): The event type.
            timestamp (datetime.datetime): When it happened (RFC 3339 UTC): the message's time for uplink, status, join and
                location events, else the time of the change.
            partner_id (UUID): The partner the device belongs to.
            sub_account_id (None | UUID): The device's sub-account; null for a partner's own device.
            device_id (UUID): The device; null for events about no device (`webhook.test`).
            sequence (int): Per device, +1 for each event of that device, from 1: gaps and order show here (no order is
                promised across events); null without a device.
            data (DownlinkNackedEventData): What the event type carries (integrations.md 1.2).
     """

    id: str
    type_: Literal['downlink.nacked']
    timestamp: datetime.datetime
    partner_id: UUID
    sub_account_id: None | UUID
    device_id: UUID
    sequence: int
    data: DownlinkNackedEventData





    def to_dict(self) -> dict[str, Any]:
        from ..models.downlink_nacked_event_data import DownlinkNackedEventData # noqa: PLC0415
        id = self.id

        type_ = self.type_

        timestamp = self.timestamp.isoformat()

        partner_id = str(self.partner_id)

        sub_account_id: None | str
        if isinstance(self.sub_account_id, UUID):
            sub_account_id = str(self.sub_account_id)
        else:
            sub_account_id = self.sub_account_id

        device_id = str(self.device_id)

        sequence = self.sequence

        data = self.data.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "id": id,
            "type": type_,
            "timestamp": timestamp,
            "partnerId": partner_id,
            "subAccountId": sub_account_id,
            "deviceId": device_id,
            "sequence": sequence,
            "data": data,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.downlink_nacked_event_data import DownlinkNackedEventData # noqa: PLC0415
        d = dict(src_dict)
        id = d.pop("id")

        type_ = cast(Literal['downlink.nacked'] , d.pop("type"))
        if type_ != 'downlink.nacked':
            raise ValueError(f"type must match const 'downlink.nacked', got '{type_}'")

        timestamp = datetime.datetime.fromisoformat(d.pop("timestamp"))




        partner_id = UUID(d.pop("partnerId"))




        def _parse_sub_account_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                sub_account_id_type_0 = UUID(data)



                return sub_account_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        sub_account_id = _parse_sub_account_id(d.pop("subAccountId"))


        device_id = UUID(d.pop("deviceId"))




        sequence = d.pop("sequence")

        data = DownlinkNackedEventData.from_dict(d.pop("data"))




        downlink_nacked_event = cls(
            id=id,
            type_=type_,
            timestamp=timestamp,
            partner_id=partner_id,
            sub_account_id=sub_account_id,
            device_id=device_id,
            sequence=sequence,
            data=data,
        )

        return downlink_nacked_event

