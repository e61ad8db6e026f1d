from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from uuid import UUID

if TYPE_CHECKING:
  from ..models.downsampled import Downsampled
  from ..models.history_point import HistoryPoint





T = TypeVar("T", bound="QuerySeries")



@_attrs_define
class QuerySeries:
    """ 
        Attributes:
            device_id (UUID): Id of the device.
            dev_eui (str): DevEUI: 16 lowercase hex characters.
            field (str): The field identifier as asked.
            points (list[HistoryPoint]): Oldest first; on a continued page, the rest of the series.
            agg (str | Unset): The aggregate of the buckets (bucketed only).
            downsampled (Downsampled | Unset):
     """

    device_id: UUID
    dev_eui: str
    field: str
    points: list[HistoryPoint]
    agg: str | Unset = UNSET
    downsampled: Downsampled | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.downsampled import Downsampled # noqa: PLC0415
        from ..models.history_point import HistoryPoint # noqa: PLC0415
        device_id = str(self.device_id)

        dev_eui = self.dev_eui

        field = self.field

        points = []
        for points_item_data in self.points:
            points_item = points_item_data.to_dict()
            points.append(points_item)



        agg: str | Unset
        if isinstance(self.agg, Unset):
            agg = UNSET
        else:
            agg = self.agg

        downsampled: dict[str, Any] | Unset = UNSET
        if not isinstance(self.downsampled, Unset):
            downsampled = self.downsampled.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "deviceId": device_id,
            "devEui": dev_eui,
            "field": field,
            "points": points,
        })
        if agg is not UNSET:
            field_dict["agg"] = agg
        if downsampled is not UNSET:
            field_dict["downsampled"] = downsampled

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.downsampled import Downsampled # noqa: PLC0415
        from ..models.history_point import HistoryPoint # noqa: PLC0415
        d = dict(src_dict)
        device_id = UUID(d.pop("deviceId"))




        dev_eui = d.pop("devEui")

        field = d.pop("field")

        points = []
        _points = d.pop("points")
        for points_item_data in (_points):
            points_item = HistoryPoint.from_dict(points_item_data)



            points.append(points_item)


        def _parse_agg(data: object) -> str | Unset:
            if isinstance(data, Unset):
                return data
            return cast(str | Unset, data)

        agg = _parse_agg(d.pop("agg", UNSET))


        _downsampled = d.pop("downsampled", UNSET)
        downsampled: Downsampled | Unset
        if isinstance(_downsampled,  Unset):
            downsampled = UNSET
        else:
            downsampled = Downsampled.from_dict(_downsampled)




        query_series = cls(
            device_id=device_id,
            dev_eui=dev_eui,
            field=field,
            points=points,
            agg=agg,
            downsampled=downsampled,
        )


        query_series.additional_properties = d
        return query_series

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
