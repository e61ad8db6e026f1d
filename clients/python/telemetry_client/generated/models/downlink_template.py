from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID

if TYPE_CHECKING:
  from ..models.downlink_template_sample_data import DownlinkTemplateSampleData





T = TypeVar("T", bound="DownlinkTemplate")



@_attrs_define
class DownlinkTemplate:
    """ 
        Attributes:
            template_id (UUID): Id of the downlink template.
            key (str): Stable key of the downlink template.
            name (str): Display name.
            f_port (int): LoRaWAN FPort the payload is sent on.
            confirmed (bool): Whether the device must acknowledge the downlink.
            sample_data (DownlinkTemplateSampleData): Default field values the template sends.
     """

    template_id: UUID
    key: str
    name: str
    f_port: int
    confirmed: bool
    sample_data: DownlinkTemplateSampleData
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.downlink_template_sample_data import DownlinkTemplateSampleData # noqa: PLC0415
        template_id = str(self.template_id)

        key = self.key

        name = self.name

        f_port = self.f_port

        confirmed = self.confirmed

        sample_data = self.sample_data.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "templateId": template_id,
            "key": key,
            "name": name,
            "fPort": f_port,
            "confirmed": confirmed,
            "sampleData": sample_data,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.downlink_template_sample_data import DownlinkTemplateSampleData # noqa: PLC0415
        d = dict(src_dict)
        template_id = UUID(d.pop("templateId"))




        key = d.pop("key")

        name = d.pop("name")

        f_port = d.pop("fPort")

        confirmed = d.pop("confirmed")

        sample_data = DownlinkTemplateSampleData.from_dict(d.pop("sampleData"))




        downlink_template = cls(
            template_id=template_id,
            key=key,
            name=name,
            f_port=f_port,
            confirmed=confirmed,
            sample_data=sample_data,
        )


        downlink_template.additional_properties = d
        return downlink_template

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
