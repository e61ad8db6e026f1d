from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.downsampled import Downsampled
  from ..models.history_point import HistoryPoint





T = TypeVar("T", bound="History")



@_attrs_define
class History:
    """ 
        Attributes:
            device_id (UUID): Id of the device.
            field (str): The field's identifier (or `signal_quality`).
            resolution (str): The resolution as requested (`raw`, `hourly`, `daily` or a duration).
            from_ (datetime.datetime): Start of the range served (the retention cutoff when clamped).
            to (datetime.datetime): End of the range (exclusive).
            points (list[HistoryPoint]): The points, newest first.
            agg (str | Unset): The aggregate of bucketed points; absent for raw.
            tz (str | Unset): The IANA zone the buckets follow, as requested; absent without `tz`.
            clamped (bool | Unset): True when the range was cut at the retention cutoff; absent otherwise.
            retention_cutoff (datetime.datetime | Unset): The retention cutoff, present with `clamped`.
            truncated (bool | Unset): Raw only: true when more than 500 readings matched; absent otherwise.
            downsampled (Downsampled | Unset):
     """

    device_id: UUID
    field: str
    resolution: str
    from_: datetime.datetime
    to: datetime.datetime
    points: list[HistoryPoint]
    agg: str | Unset = UNSET
    tz: str | Unset = UNSET
    clamped: bool | Unset = UNSET
    retention_cutoff: datetime.datetime | Unset = UNSET
    truncated: bool | Unset = UNSET
    downsampled: Downsampled | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.downsampled import Downsampled # noqa: PLC0415
        from ..models.history_point import HistoryPoint # noqa: PLC0415
        device_id = str(self.device_id)

        field = self.field

        resolution = self.resolution

        from_ = self.from_.isoformat()

        to = self.to.isoformat()

        points = []
        for points_item_data in self.points:
            points_item = points_item_data.to_dict()
            points.append(points_item)



        agg: str | Unset
        if isinstance(self.agg, Unset):
            agg = UNSET
        else:
            agg = self.agg

        tz: str | Unset
        if isinstance(self.tz, Unset):
            tz = UNSET
        else:
            tz = self.tz

        clamped: bool | Unset
        if isinstance(self.clamped, Unset):
            clamped = UNSET
        else:
            clamped = self.clamped

        retention_cutoff: str | Unset
        if isinstance(self.retention_cutoff, Unset):
            retention_cutoff = UNSET
        else:
            retention_cutoff = self.retention_cutoff.isoformat()


        truncated: bool | Unset
        if isinstance(self.truncated, Unset):
            truncated = UNSET
        else:
            truncated = self.truncated

        downsampled: dict[str, Any] | Unset = UNSET
        if not isinstance(self.downsampled, Unset):
            downsampled = self.downsampled.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "deviceId": device_id,
            "field": field,
            "resolution": resolution,
            "from": from_,
            "to": to,
            "points": points,
        })
        if agg is not UNSET:
            field_dict["agg"] = agg
        if tz is not UNSET:
            field_dict["tz"] = tz
        if clamped is not UNSET:
            field_dict["clamped"] = clamped
        if retention_cutoff is not UNSET:
            field_dict["retentionCutoff"] = retention_cutoff
        if truncated is not UNSET:
            field_dict["truncated"] = truncated
        if downsampled is not UNSET:
            field_dict["downsampled"] = downsampled

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.downsampled import Downsampled # noqa: PLC0415
        from ..models.history_point import HistoryPoint # noqa: PLC0415
        d = dict(src_dict)
        device_id = UUID(d.pop("deviceId"))




        field = d.pop("field")

        resolution = d.pop("resolution")

        from_ = datetime.datetime.fromisoformat(d.pop("from"))




        to = datetime.datetime.fromisoformat(d.pop("to"))




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


        def _parse_tz(data: object) -> str | Unset:
            if isinstance(data, Unset):
                return data
            return cast(str | Unset, data)

        tz = _parse_tz(d.pop("tz", UNSET))


        def _parse_clamped(data: object) -> bool | Unset:
            if isinstance(data, Unset):
                return data
            return cast(bool | Unset, data)

        clamped = _parse_clamped(d.pop("clamped", UNSET))


        def _parse_retention_cutoff(data: object) -> datetime.datetime | Unset:
            if isinstance(data, Unset):
                return data
            if not isinstance(data, str):
                raise TypeError()
            retention_cutoff_type_0 = datetime.datetime.fromisoformat(data)



            return retention_cutoff_type_0

        retention_cutoff = _parse_retention_cutoff(d.pop("retentionCutoff", UNSET))


        def _parse_truncated(data: object) -> bool | Unset:
            if isinstance(data, Unset):
                return data
            return cast(bool | Unset, data)

        truncated = _parse_truncated(d.pop("truncated", UNSET))


        _downsampled = d.pop("downsampled", UNSET)
        downsampled: Downsampled | Unset
        if isinstance(_downsampled,  Unset):
            downsampled = UNSET
        else:
            downsampled = Downsampled.from_dict(_downsampled)




        history = cls(
            device_id=device_id,
            field=field,
            resolution=resolution,
            from_=from_,
            to=to,
            points=points,
            agg=agg,
            tz=tz,
            clamped=clamped,
            retention_cutoff=retention_cutoff,
            truncated=truncated,
            downsampled=downsampled,
        )


        history.additional_properties = d
        return history

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
