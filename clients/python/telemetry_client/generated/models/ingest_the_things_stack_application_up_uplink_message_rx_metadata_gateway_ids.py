from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset






T = TypeVar("T", bound="IngestTheThingsStackApplicationUpUplinkMessageRxMetadataGatewayIds")



@_attrs_define
class IngestTheThingsStackApplicationUpUplinkMessageRxMetadataGatewayIds:
    """ 
        Attributes:
            gateway_id (str | Unset):  Default: ''.
            eui (str | Unset):  Default: ''.
     """

    gateway_id: str | Unset = ''
    eui: str | Unset = ''
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        gateway_id = self.gateway_id

        eui = self.eui


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
        })
        if gateway_id is not UNSET:
            field_dict["gateway_id"] = gateway_id
        if eui is not UNSET:
            field_dict["eui"] = eui

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        gateway_id = d.pop("gateway_id", UNSET)

        eui = d.pop("eui", UNSET)

        ingest_the_things_stack_application_up_uplink_message_rx_metadata_gateway_ids = cls(
            gateway_id=gateway_id,
            eui=eui,
        )


        ingest_the_things_stack_application_up_uplink_message_rx_metadata_gateway_ids.additional_properties = d
        return ingest_the_things_stack_application_up_uplink_message_rx_metadata_gateway_ids

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
