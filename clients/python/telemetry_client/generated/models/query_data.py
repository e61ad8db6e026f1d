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
  from ..models.query_series import QuerySeries





T = TypeVar("T", bound="QueryData")



@_attrs_define
class QueryData:
    """ 
        Attributes:
            from_ (datetime.datetime): Start of the range read (the cutoff when clamped).
            to (datetime.datetime): End of the range (exclusive).
            resolution (str): The resolution as asked (`raw` by default).
            series (list[QuerySeries]): The page's series: by device id, then fields, then aggregates.
            tz (str | Unset): The zone of the buckets, when asked.
            clamped (bool | Unset): True when retention moved `from` to the cutoff.
            retention_cutoff (datetime.datetime | Unset): The oldest time the plan keeps (when clamped).
     """

    from_: datetime.datetime
    to: datetime.datetime
    resolution: str
    series: list[QuerySeries]
    tz: str | Unset = UNSET
    clamped: bool | Unset = UNSET
    retention_cutoff: datetime.datetime | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.query_series import QuerySeries # noqa: PLC0415
        from_ = self.from_.isoformat()

        to = self.to.isoformat()

        resolution = self.resolution

        series = []
        for series_item_data in self.series:
            series_item = series_item_data.to_dict()
            series.append(series_item)



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



        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "from": from_,
            "to": to,
            "resolution": resolution,
            "series": series,
        })
        if tz is not UNSET:
            field_dict["tz"] = tz
        if clamped is not UNSET:
            field_dict["clamped"] = clamped
        if retention_cutoff is not UNSET:
            field_dict["retentionCutoff"] = retention_cutoff

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.query_series import QuerySeries # noqa: PLC0415
        d = dict(src_dict)
        from_ = datetime.datetime.fromisoformat(d.pop("from"))




        to = datetime.datetime.fromisoformat(d.pop("to"))




        resolution = d.pop("resolution")

        series = []
        _series = d.pop("series")
        for series_item_data in (_series):
            series_item = QuerySeries.from_dict(series_item_data)



            series.append(series_item)


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


        query_data = cls(
            from_=from_,
            to=to,
            resolution=resolution,
            series=series,
            tz=tz,
            clamped=clamped,
            retention_cutoff=retention_cutoff,
        )


        query_data.additional_properties = d
        return query_data

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
