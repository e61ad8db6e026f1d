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
  from ..models.latest_values_derived_type_0 import LatestValuesDerivedType0
  from ..models.latest_values_retained_type_0 import LatestValuesRetainedType0
  from ..models.latest_values_values import LatestValuesValues





T = TypeVar("T", bound="LatestValues")



@_attrs_define
class LatestValues:
    """ 
        Attributes:
            device_id (UUID): Id of the device.
            time (datetime.datetime | None): Time of the newest uplink; null until the device first reports.
            values (LatestValuesValues): Latest value by field identifier (static fields and formulas included).
            signal_quality (int | None): 0-100, from the RSSI and SNR of the newest uplink; null without uplinks.
            retained (LatestValuesRetainedType0 | Unset): Fields carried from an earlier uplink, with the time each was last
                reported; absent when nothing was carried.
            derived (LatestValuesDerivedType0 | Unset): The formula, mapping and calibrated values among `values`; absent
                when the profile has none.
     """

    device_id: UUID
    time: datetime.datetime | None
    values: LatestValuesValues
    signal_quality: int | None
    retained: LatestValuesRetainedType0 | Unset = UNSET
    derived: LatestValuesDerivedType0 | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.latest_values_derived_type_0 import LatestValuesDerivedType0 # noqa: PLC0415
        from ..models.latest_values_retained_type_0 import LatestValuesRetainedType0 # noqa: PLC0415
        from ..models.latest_values_values import LatestValuesValues # noqa: PLC0415
        device_id = str(self.device_id)

        time: None | str
        if isinstance(self.time, datetime.datetime):
            time = self.time.isoformat()
        else:
            time = self.time

        values = self.values.to_dict()

        signal_quality: int | None
        signal_quality = self.signal_quality

        retained: dict[str, Any] | Unset
        if isinstance(self.retained, Unset):
            retained = UNSET
        else:
            retained = self.retained.to_dict()


        derived: dict[str, Any] | Unset
        if isinstance(self.derived, Unset):
            derived = UNSET
        else:
            derived = self.derived.to_dict()



        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "deviceId": device_id,
            "time": time,
            "values": values,
            "signalQuality": signal_quality,
        })
        if retained is not UNSET:
            field_dict["retained"] = retained
        if derived is not UNSET:
            field_dict["derived"] = derived

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.latest_values_derived_type_0 import LatestValuesDerivedType0 # noqa: PLC0415
        from ..models.latest_values_retained_type_0 import LatestValuesRetainedType0 # noqa: PLC0415
        from ..models.latest_values_values import LatestValuesValues # noqa: PLC0415
        d = dict(src_dict)
        device_id = UUID(d.pop("deviceId"))




        def _parse_time(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                time_type_0 = datetime.datetime.fromisoformat(data)



                return time_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        time = _parse_time(d.pop("time"))


        values = LatestValuesValues.from_dict(d.pop("values"))




        def _parse_signal_quality(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        signal_quality = _parse_signal_quality(d.pop("signalQuality"))


        def _parse_retained(data: object) -> LatestValuesRetainedType0 | Unset:
            if isinstance(data, Unset):
                return data
            if not isinstance(data, dict):
                raise TypeError()
            retained_type_0 = LatestValuesRetainedType0.from_dict(data)



            return retained_type_0

        retained = _parse_retained(d.pop("retained", UNSET))


        def _parse_derived(data: object) -> LatestValuesDerivedType0 | Unset:
            if isinstance(data, Unset):
                return data
            if not isinstance(data, dict):
                raise TypeError()
            derived_type_0 = LatestValuesDerivedType0.from_dict(data)



            return derived_type_0

        derived = _parse_derived(d.pop("derived", UNSET))


        latest_values = cls(
            device_id=device_id,
            time=time,
            values=values,
            signal_quality=signal_quality,
            retained=retained,
            derived=derived,
        )


        latest_values.additional_properties = d
        return latest_values

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
