from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.query_telemetry_query_body_downsample_type_0 import QueryTelemetryQueryBodyDownsampleType0
from ..models.query_telemetry_query_body_fill_type_0 import QueryTelemetryQueryBodyFillType0
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.query_telemetry_query_body_agg_type_0_type_1 import QueryTelemetryQueryBodyAggType0Type1
  from ..models.query_telemetry_query_body_device_selection import QueryTelemetryQueryBodyDeviceSelection





T = TypeVar("T", bound="QueryTelemetryQueryBody")



@_attrs_define
class QueryTelemetryQueryBody:
    """ 
        Attributes:
            devices (QueryTelemetryQueryBodyDeviceSelection): `ids`, or the filters of GET /devices (status is always
                assigned), not both.
            fields (list[str]): Field identifiers or `signal_quality`, each once, at most 20.
            from_ (Any): Start (inclusive): ISO 8601, `now` or `now-<duration>`, as /history.
            to (Any): End (exclusive), in the same forms as `from`.
            resolution (None | str | Unset):
            agg (None | QueryTelemetryQueryBodyAggType0Type1 | str | Unset):
            tz (None | str | Unset):
            fill (None | QueryTelemetryQueryBodyFillType0 | Unset):
            fill_max_gap (None | str | Unset):
            max_points (int | None | Unset):
            downsample (None | QueryTelemetryQueryBodyDownsampleType0 | Unset):
            limit (int | Unset): Points per page. Default: 10000.
            cursor (None | str | Unset):
     """

    devices: QueryTelemetryQueryBodyDeviceSelection
    fields: list[str]
    from_: Any
    to: Any
    resolution: None | str | Unset = UNSET
    agg: None | QueryTelemetryQueryBodyAggType0Type1 | str | Unset = UNSET
    tz: None | str | Unset = UNSET
    fill: None | QueryTelemetryQueryBodyFillType0 | Unset = UNSET
    fill_max_gap: None | str | Unset = UNSET
    max_points: int | None | Unset = UNSET
    downsample: None | QueryTelemetryQueryBodyDownsampleType0 | Unset = UNSET
    limit: int | Unset = 10000
    cursor: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.query_telemetry_query_body_agg_type_0_type_1 import QueryTelemetryQueryBodyAggType0Type1 # noqa: PLC0415
        from ..models.query_telemetry_query_body_device_selection import QueryTelemetryQueryBodyDeviceSelection # noqa: PLC0415
        devices = self.devices.to_dict()

        fields = self.fields



        from_: Any
        from_ = self.from_

        to: Any
        to = self.to

        resolution: None | str | Unset
        if isinstance(self.resolution, Unset):
            resolution = UNSET
        else:
            resolution = self.resolution

        agg: dict[str, Any] | None | str | Unset
        if isinstance(self.agg, Unset):
            agg = UNSET
        elif isinstance(self.agg, QueryTelemetryQueryBodyAggType0Type1):
            agg = self.agg.to_dict()
        else:
            agg = self.agg

        tz: None | str | Unset
        if isinstance(self.tz, Unset):
            tz = UNSET
        else:
            tz = self.tz

        fill: None | str | Unset
        if isinstance(self.fill, Unset):
            fill = UNSET
        elif isinstance(self.fill, QueryTelemetryQueryBodyFillType0):
            fill = self.fill.value
        else:
            fill = self.fill

        fill_max_gap: None | str | Unset
        if isinstance(self.fill_max_gap, Unset):
            fill_max_gap = UNSET
        else:
            fill_max_gap = self.fill_max_gap

        max_points: int | None | Unset
        if isinstance(self.max_points, Unset):
            max_points = UNSET
        else:
            max_points = self.max_points

        downsample: None | str | Unset
        if isinstance(self.downsample, Unset):
            downsample = UNSET
        elif isinstance(self.downsample, QueryTelemetryQueryBodyDownsampleType0):
            downsample = self.downsample.value
        else:
            downsample = self.downsample

        limit = self.limit

        cursor: None | str | Unset
        if isinstance(self.cursor, Unset):
            cursor = UNSET
        else:
            cursor = self.cursor


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "devices": devices,
            "fields": fields,
            "from": from_,
            "to": to,
        })
        if resolution is not UNSET:
            field_dict["resolution"] = resolution
        if agg is not UNSET:
            field_dict["agg"] = agg
        if tz is not UNSET:
            field_dict["tz"] = tz
        if fill is not UNSET:
            field_dict["fill"] = fill
        if fill_max_gap is not UNSET:
            field_dict["fillMaxGap"] = fill_max_gap
        if max_points is not UNSET:
            field_dict["maxPoints"] = max_points
        if downsample is not UNSET:
            field_dict["downsample"] = downsample
        if limit is not UNSET:
            field_dict["limit"] = limit
        if cursor is not UNSET:
            field_dict["cursor"] = cursor

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.query_telemetry_query_body_agg_type_0_type_1 import QueryTelemetryQueryBodyAggType0Type1 # noqa: PLC0415
        from ..models.query_telemetry_query_body_device_selection import QueryTelemetryQueryBodyDeviceSelection # noqa: PLC0415
        d = dict(src_dict)
        devices = QueryTelemetryQueryBodyDeviceSelection.from_dict(d.pop("devices"))




        fields = cast(list[str], d.pop("fields"))


        def _parse_from_(data: object) -> Any:
            return cast(Any, data)

        from_ = _parse_from_(d.pop("from"))


        def _parse_to(data: object) -> Any:
            return cast(Any, data)

        to = _parse_to(d.pop("to"))


        def _parse_resolution(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        resolution = _parse_resolution(d.pop("resolution", UNSET))


        def _parse_agg(data: object) -> None | QueryTelemetryQueryBodyAggType0Type1 | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                agg_type_0_type_1 = QueryTelemetryQueryBodyAggType0Type1.from_dict(data)



                return agg_type_0_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | QueryTelemetryQueryBodyAggType0Type1 | str | Unset, data)

        agg = _parse_agg(d.pop("agg", UNSET))


        def _parse_tz(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tz = _parse_tz(d.pop("tz", UNSET))


        def _parse_fill(data: object) -> None | QueryTelemetryQueryBodyFillType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                fill_type_0 = QueryTelemetryQueryBodyFillType0(data)



                return fill_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | QueryTelemetryQueryBodyFillType0 | Unset, data)

        fill = _parse_fill(d.pop("fill", UNSET))


        def _parse_fill_max_gap(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        fill_max_gap = _parse_fill_max_gap(d.pop("fillMaxGap", UNSET))


        def _parse_max_points(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_points = _parse_max_points(d.pop("maxPoints", UNSET))


        def _parse_downsample(data: object) -> None | QueryTelemetryQueryBodyDownsampleType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                downsample_type_0 = QueryTelemetryQueryBodyDownsampleType0(data)



                return downsample_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | QueryTelemetryQueryBodyDownsampleType0 | Unset, data)

        downsample = _parse_downsample(d.pop("downsample", UNSET))


        limit = d.pop("limit", UNSET)

        def _parse_cursor(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        cursor = _parse_cursor(d.pop("cursor", UNSET))


        query_telemetry_query_body = cls(
            devices=devices,
            fields=fields,
            from_=from_,
            to=to,
            resolution=resolution,
            agg=agg,
            tz=tz,
            fill=fill,
            fill_max_gap=fill_max_gap,
            max_points=max_points,
            downsample=downsample,
            limit=limit,
            cursor=cursor,
        )

        return query_telemetry_query_body

