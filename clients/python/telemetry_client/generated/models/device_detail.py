from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.device_detail_status import DeviceDetailStatus
from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.battery import Battery
  from ..models.device_profile_detail import DeviceProfileDetail
  from ..models.location import Location





T = TypeVar("T", bound="DeviceDetail")



@_attrs_define
class DeviceDetail:
    """ 
        Attributes:
            id (UUID): Service id (UUID, lowercase).
            dev_eui (str): DevEUI: 16 lowercase hex characters.
            name (str): Display name.
            serial_number (None | str): Serial number, or null.
            status (DeviceDetailStatus): State of the item (see the enum).
            sub_account_id (None | UUID): Id of the sub-account it belongs to (null for a partner's inventory).
            device_profile_id (UUID): Id of the device's profile (field catalog).
            network_id (None | UUID): Id of its network; null when none or the Networks feature is off.
            site_id (None | UUID): Id of its site; null when none or the multi-site feature is off.
            online (bool): Assigned and heard from within the offline threshold (default 30 minutes).
            signal_quality (int | None): 0-100, from the RSSI and SNR of the newest uplink; null without uplinks.
            battery (Battery | None): The newest battery reading, or null when the device never reported one.
            last_seen_at (datetime.datetime | None): Newest message of any kind (RFC 3339 UTC), or null.
            last_uplink_at (datetime.datetime | None): Newest uplink (RFC 3339 UTC), or null.
            location (Location | None): Position `{latitude, longitude, altitude}`, or null.
            device_profile (DeviceProfileDetail):
     """

    id: UUID
    dev_eui: str
    name: str
    serial_number: None | str
    status: DeviceDetailStatus
    sub_account_id: None | UUID
    device_profile_id: UUID
    network_id: None | UUID
    site_id: None | UUID
    online: bool
    signal_quality: int | None
    battery: Battery | None
    last_seen_at: datetime.datetime | None
    last_uplink_at: datetime.datetime | None
    location: Location | None
    device_profile: DeviceProfileDetail
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.battery import Battery # noqa: PLC0415
        from ..models.device_profile_detail import DeviceProfileDetail # noqa: PLC0415
        from ..models.location import Location # noqa: PLC0415
        id = str(self.id)

        dev_eui = self.dev_eui

        name = self.name

        serial_number: None | str
        serial_number = self.serial_number

        status = self.status.value

        sub_account_id: None | str
        if isinstance(self.sub_account_id, UUID):
            sub_account_id = str(self.sub_account_id)
        else:
            sub_account_id = self.sub_account_id

        device_profile_id = str(self.device_profile_id)

        network_id: None | str
        if isinstance(self.network_id, UUID):
            network_id = str(self.network_id)
        else:
            network_id = self.network_id

        site_id: None | str
        if isinstance(self.site_id, UUID):
            site_id = str(self.site_id)
        else:
            site_id = self.site_id

        online = self.online

        signal_quality: int | None
        signal_quality = self.signal_quality

        battery: dict[str, Any] | None
        if isinstance(self.battery, Battery):
            battery = self.battery.to_dict()
        else:
            battery = self.battery

        last_seen_at: None | str
        if isinstance(self.last_seen_at, datetime.datetime):
            last_seen_at = self.last_seen_at.isoformat()
        else:
            last_seen_at = self.last_seen_at

        last_uplink_at: None | str
        if isinstance(self.last_uplink_at, datetime.datetime):
            last_uplink_at = self.last_uplink_at.isoformat()
        else:
            last_uplink_at = self.last_uplink_at

        location: dict[str, Any] | None
        if isinstance(self.location, Location):
            location = self.location.to_dict()
        else:
            location = self.location

        device_profile = self.device_profile.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "id": id,
            "devEui": dev_eui,
            "name": name,
            "serialNumber": serial_number,
            "status": status,
            "subAccountId": sub_account_id,
            "deviceProfileId": device_profile_id,
            "networkId": network_id,
            "siteId": site_id,
            "online": online,
            "signalQuality": signal_quality,
            "battery": battery,
            "lastSeenAt": last_seen_at,
            "lastUplinkAt": last_uplink_at,
            "location": location,
            "deviceProfile": device_profile,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.battery import Battery # noqa: PLC0415
        from ..models.device_profile_detail import DeviceProfileDetail # noqa: PLC0415
        from ..models.location import Location # noqa: PLC0415
        d = dict(src_dict)
        id = UUID(d.pop("id"))




        dev_eui = d.pop("devEui")

        name = d.pop("name")

        def _parse_serial_number(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        serial_number = _parse_serial_number(d.pop("serialNumber"))


        status = DeviceDetailStatus(d.pop("status"))




        def _parse_sub_account_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                sub_account_id_type_0 = UUID(data)



                return sub_account_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        sub_account_id = _parse_sub_account_id(d.pop("subAccountId"))


        device_profile_id = UUID(d.pop("deviceProfileId"))




        def _parse_network_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                network_id_type_0 = UUID(data)



                return network_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        network_id = _parse_network_id(d.pop("networkId"))


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


        online = d.pop("online")

        def _parse_signal_quality(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        signal_quality = _parse_signal_quality(d.pop("signalQuality"))


        def _parse_battery(data: object) -> Battery | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                battery_type_0 = Battery.from_dict(data)



                return battery_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Battery | None, data)

        battery = _parse_battery(d.pop("battery"))


        def _parse_last_seen_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_seen_at_type_0 = datetime.datetime.fromisoformat(data)



                return last_seen_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_seen_at = _parse_last_seen_at(d.pop("lastSeenAt"))


        def _parse_last_uplink_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_uplink_at_type_0 = datetime.datetime.fromisoformat(data)



                return last_uplink_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_uplink_at = _parse_last_uplink_at(d.pop("lastUplinkAt"))


        def _parse_location(data: object) -> Location | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                location_type_0 = Location.from_dict(data)



                return location_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Location | None, data)

        location = _parse_location(d.pop("location"))


        device_profile = DeviceProfileDetail.from_dict(d.pop("deviceProfile"))




        device_detail = cls(
            id=id,
            dev_eui=dev_eui,
            name=name,
            serial_number=serial_number,
            status=status,
            sub_account_id=sub_account_id,
            device_profile_id=device_profile_id,
            network_id=network_id,
            site_id=site_id,
            online=online,
            signal_quality=signal_quality,
            battery=battery,
            last_seen_at=last_seen_at,
            last_uplink_at=last_uplink_at,
            location=location,
            device_profile=device_profile,
        )


        device_detail.additional_properties = d
        return device_detail

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
