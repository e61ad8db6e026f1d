from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.ingest_the_things_stack_application_up_uplink_message_decoded_payload_type_0 import IngestTheThingsStackApplicationUpUplinkMessageDecodedPayloadType0
  from ..models.ingest_the_things_stack_application_up_uplink_message_rx_metadata import IngestTheThingsStackApplicationUpUplinkMessageRxMetadata





T = TypeVar("T", bound="IngestTheThingsStackApplicationUpUplinkMessage")



@_attrs_define
class IngestTheThingsStackApplicationUpUplinkMessage:
    """ 
        Attributes:
            f_port (int | Unset):  Default: 0.
            f_cnt (int | Unset):  Default: 0.
            decoded_payload (IngestTheThingsStackApplicationUpUplinkMessageDecodedPayloadType0 | None | Unset):
            rx_metadata (list[IngestTheThingsStackApplicationUpUplinkMessageRxMetadata] | Unset):
            received_at (datetime.datetime | None | Unset):
     """

    f_port: int | Unset = 0
    f_cnt: int | Unset = 0
    decoded_payload: IngestTheThingsStackApplicationUpUplinkMessageDecodedPayloadType0 | None | Unset = UNSET
    rx_metadata: list[IngestTheThingsStackApplicationUpUplinkMessageRxMetadata] | Unset = UNSET
    received_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.ingest_the_things_stack_application_up_uplink_message_decoded_payload_type_0 import IngestTheThingsStackApplicationUpUplinkMessageDecodedPayloadType0 # noqa: PLC0415
        from ..models.ingest_the_things_stack_application_up_uplink_message_rx_metadata import IngestTheThingsStackApplicationUpUplinkMessageRxMetadata # noqa: PLC0415
        f_port = self.f_port

        f_cnt = self.f_cnt

        decoded_payload: dict[str, Any] | None | Unset
        if isinstance(self.decoded_payload, Unset):
            decoded_payload = UNSET
        elif isinstance(self.decoded_payload, IngestTheThingsStackApplicationUpUplinkMessageDecodedPayloadType0):
            decoded_payload = self.decoded_payload.to_dict()
        else:
            decoded_payload = self.decoded_payload

        rx_metadata: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.rx_metadata, Unset):
            rx_metadata = []
            for rx_metadata_item_data in self.rx_metadata:
                rx_metadata_item = rx_metadata_item_data.to_dict()
                rx_metadata.append(rx_metadata_item)



        received_at: None | str | Unset
        if isinstance(self.received_at, Unset):
            received_at = UNSET
        elif isinstance(self.received_at, datetime.datetime):
            received_at = self.received_at.isoformat()
        else:
            received_at = self.received_at


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
        })
        if f_port is not UNSET:
            field_dict["f_port"] = f_port
        if f_cnt is not UNSET:
            field_dict["f_cnt"] = f_cnt
        if decoded_payload is not UNSET:
            field_dict["decoded_payload"] = decoded_payload
        if rx_metadata is not UNSET:
            field_dict["rx_metadata"] = rx_metadata
        if received_at is not UNSET:
            field_dict["received_at"] = received_at

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.ingest_the_things_stack_application_up_uplink_message_decoded_payload_type_0 import IngestTheThingsStackApplicationUpUplinkMessageDecodedPayloadType0 # noqa: PLC0415
        from ..models.ingest_the_things_stack_application_up_uplink_message_rx_metadata import IngestTheThingsStackApplicationUpUplinkMessageRxMetadata # noqa: PLC0415
        d = dict(src_dict)
        f_port = d.pop("f_port", UNSET)

        f_cnt = d.pop("f_cnt", UNSET)

        def _parse_decoded_payload(data: object) -> IngestTheThingsStackApplicationUpUplinkMessageDecodedPayloadType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                decoded_payload_type_0 = IngestTheThingsStackApplicationUpUplinkMessageDecodedPayloadType0.from_dict(data)



                return decoded_payload_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(IngestTheThingsStackApplicationUpUplinkMessageDecodedPayloadType0 | None | Unset, data)

        decoded_payload = _parse_decoded_payload(d.pop("decoded_payload", UNSET))


        _rx_metadata = d.pop("rx_metadata", UNSET)
        rx_metadata: list[IngestTheThingsStackApplicationUpUplinkMessageRxMetadata] | Unset = UNSET
        if _rx_metadata is not UNSET:
            rx_metadata = []
            for rx_metadata_item_data in _rx_metadata:
                rx_metadata_item = IngestTheThingsStackApplicationUpUplinkMessageRxMetadata.from_dict(rx_metadata_item_data)



                rx_metadata.append(rx_metadata_item)


        def _parse_received_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                received_at_type_0 = datetime.datetime.fromisoformat(data)



                return received_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        received_at = _parse_received_at(d.pop("received_at", UNSET))


        ingest_the_things_stack_application_up_uplink_message = cls(
            f_port=f_port,
            f_cnt=f_cnt,
            decoded_payload=decoded_payload,
            rx_metadata=rx_metadata,
            received_at=received_at,
        )


        ingest_the_things_stack_application_up_uplink_message.additional_properties = d
        return ingest_the_things_stack_application_up_uplink_message

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
