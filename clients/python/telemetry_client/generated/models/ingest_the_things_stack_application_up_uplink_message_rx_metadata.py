from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.ingest_the_things_stack_application_up_uplink_message_rx_metadata_gateway_ids import IngestTheThingsStackApplicationUpUplinkMessageRxMetadataGatewayIds





T = TypeVar("T", bound="IngestTheThingsStackApplicationUpUplinkMessageRxMetadata")



@_attrs_define
class IngestTheThingsStackApplicationUpUplinkMessageRxMetadata:
    """ 
        Attributes:
            gateway_ids (IngestTheThingsStackApplicationUpUplinkMessageRxMetadataGatewayIds | Unset):
            rssi (float | Unset):  Default: 0.0.
            channel_rssi (float | Unset):  Default: 0.0.
            snr (float | Unset):  Default: 0.0.
     """

    gateway_ids: IngestTheThingsStackApplicationUpUplinkMessageRxMetadataGatewayIds | Unset = UNSET
    rssi: float | Unset = 0.0
    channel_rssi: float | Unset = 0.0
    snr: float | Unset = 0.0
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.ingest_the_things_stack_application_up_uplink_message_rx_metadata_gateway_ids import IngestTheThingsStackApplicationUpUplinkMessageRxMetadataGatewayIds # noqa: PLC0415
        gateway_ids: dict[str, Any] | Unset = UNSET
        if not isinstance(self.gateway_ids, Unset):
            gateway_ids = self.gateway_ids.to_dict()

        rssi = self.rssi

        channel_rssi = self.channel_rssi

        snr = self.snr


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
        })
        if gateway_ids is not UNSET:
            field_dict["gateway_ids"] = gateway_ids
        if rssi is not UNSET:
            field_dict["rssi"] = rssi
        if channel_rssi is not UNSET:
            field_dict["channel_rssi"] = channel_rssi
        if snr is not UNSET:
            field_dict["snr"] = snr

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.ingest_the_things_stack_application_up_uplink_message_rx_metadata_gateway_ids import IngestTheThingsStackApplicationUpUplinkMessageRxMetadataGatewayIds # noqa: PLC0415
        d = dict(src_dict)
        _gateway_ids = d.pop("gateway_ids", UNSET)
        gateway_ids: IngestTheThingsStackApplicationUpUplinkMessageRxMetadataGatewayIds | Unset
        if isinstance(_gateway_ids,  Unset):
            gateway_ids = UNSET
        else:
            gateway_ids = IngestTheThingsStackApplicationUpUplinkMessageRxMetadataGatewayIds.from_dict(_gateway_ids)




        rssi = d.pop("rssi", UNSET)

        channel_rssi = d.pop("channel_rssi", UNSET)

        snr = d.pop("snr", UNSET)

        ingest_the_things_stack_application_up_uplink_message_rx_metadata = cls(
            gateway_ids=gateway_ids,
            rssi=rssi,
            channel_rssi=channel_rssi,
            snr=snr,
        )


        ingest_the_things_stack_application_up_uplink_message_rx_metadata.additional_properties = d
        return ingest_the_things_stack_application_up_uplink_message_rx_metadata

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
