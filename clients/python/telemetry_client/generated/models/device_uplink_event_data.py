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
  from ..models.device_uplink_event_data_battery_type_0 import DeviceUplinkEventDataBatteryType0
  from ..models.device_uplink_event_data_derived import DeviceUplinkEventDataDerived
  from ..models.device_uplink_event_data_retained import DeviceUplinkEventDataRetained
  from ..models.device_uplink_event_data_values import DeviceUplinkEventDataValues





T = TypeVar("T", bound="DeviceUplinkEventData")



@_attrs_define
class DeviceUplinkEventData:
    """ What the event type carries (integrations.md 1.2).

        Attributes:
            dev_eui (str):
            time (datetime.datetime):
            values (DeviceUplinkEventDataValues):
            signal_quality (int | None):
            battery (DeviceUplinkEventDataBatteryType0 | None):
            site_id (None | UUID):
            f_port (int | None):
            f_cnt (int | None):
            derived (DeviceUplinkEventDataDerived | Unset):
            retained (DeviceUplinkEventDataRetained | Unset):
     """

    dev_eui: str
    time: datetime.datetime
    values: DeviceUplinkEventDataValues
    signal_quality: int | None
    battery: DeviceUplinkEventDataBatteryType0 | None
    site_id: None | UUID
    f_port: int | None
    f_cnt: int | None
    derived: DeviceUplinkEventDataDerived | Unset = UNSET
    retained: DeviceUplinkEventDataRetained | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.device_uplink_event_data_battery_type_0 import DeviceUplinkEventDataBatteryType0 # noqa: PLC0415
        from ..models.device_uplink_event_data_derived import DeviceUplinkEventDataDerived # noqa: PLC0415
        from ..models.device_uplink_event_data_retained import DeviceUplinkEventDataRetained # noqa: PLC0415
        from ..models.device_uplink_event_data_values import DeviceUplinkEventDataValues # noqa: PLC0415
        dev_eui = self.dev_eui

        time = self.time.isoformat()

        values = self.values.to_dict()

        signal_quality: int | None
        signal_quality = self.signal_quality

        battery: dict[str, Any] | None
        if isinstance(self.battery, DeviceUplinkEventDataBatteryType0):
            battery = self.battery.to_dict()
        else:
            battery = self.battery

        site_id: None | str
        if isinstance(self.site_id, UUID):
            site_id = str(self.site_id)
        else:
            site_id = self.site_id

        f_port: int | None
        f_port = self.f_port

        f_cnt: int | None
        f_cnt = self.f_cnt

        derived: dict[str, Any] | Unset = UNSET
        if not isinstance(self.derived, Unset):
            derived = self.derived.to_dict()

        retained: dict[str, Any] | Unset = UNSET
        if not isinstance(self.retained, Unset):
            retained = self.retained.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "devEui": dev_eui,
            "time": time,
            "values": values,
            "signalQuality": signal_quality,
            "battery": battery,
            "siteId": site_id,
            "fPort": f_port,
            "fCnt": f_cnt,
        })
        if derived is not UNSET:
            field_dict["derived"] = derived
        if retained is not UNSET:
            field_dict["retained"] = retained

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.device_uplink_event_data_battery_type_0 import DeviceUplinkEventDataBatteryType0 # noqa: PLC0415
        from ..models.device_uplink_event_data_derived import DeviceUplinkEventDataDerived # noqa: PLC0415
        from ..models.device_uplink_event_data_retained import DeviceUplinkEventDataRetained # noqa: PLC0415
        from ..models.device_uplink_event_data_values import DeviceUplinkEventDataValues # noqa: PLC0415
        d = dict(src_dict)
        dev_eui = d.pop("devEui")

        time = datetime.datetime.fromisoformat(d.pop("time"))




        values = DeviceUplinkEventDataValues.from_dict(d.pop("values"))




        def _parse_signal_quality(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        signal_quality = _parse_signal_quality(d.pop("signalQuality"))


        def _parse_battery(data: object) -> DeviceUplinkEventDataBatteryType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                battery_type_0 = DeviceUplinkEventDataBatteryType0.from_dict(data)



                return battery_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DeviceUplinkEventDataBatteryType0 | None, data)

        battery = _parse_battery(d.pop("battery"))


        def _parse_site_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                site_id_type_0 = UUID(data)



                return site_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        site_id = _parse_site_id(d.pop("siteId"))


        def _parse_f_port(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        f_port = _parse_f_port(d.pop("fPort"))


        def _parse_f_cnt(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        f_cnt = _parse_f_cnt(d.pop("fCnt"))


        _derived = d.pop("derived", UNSET)
        derived: DeviceUplinkEventDataDerived | Unset
        if isinstance(_derived,  Unset):
            derived = UNSET
        else:
            derived = DeviceUplinkEventDataDerived.from_dict(_derived)




        _retained = d.pop("retained", UNSET)
        retained: DeviceUplinkEventDataRetained | Unset
        if isinstance(_retained,  Unset):
            retained = UNSET
        else:
            retained = DeviceUplinkEventDataRetained.from_dict(_retained)




        device_uplink_event_data = cls(
            dev_eui=dev_eui,
            time=time,
            values=values,
            signal_quality=signal_quality,
            battery=battery,
            site_id=site_id,
            f_port=f_port,
            f_cnt=f_cnt,
            derived=derived,
            retained=retained,
        )

        return device_uplink_event_data

