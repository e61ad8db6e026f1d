from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.device_status import DeviceStatus
from typing import cast
from uuid import UUID
import datetime

if TYPE_CHECKING:
  from ..models.location import Location





T = TypeVar("T", bound="Gateway")



@_attrs_define
class Gateway:
    """ 
        Attributes:
            id (UUID): Service id (UUID, lowercase).
            gateway_eui (str): GatewayEUI: 16 lowercase hex characters.
            name (str): Display name.
            status (DeviceStatus): Where a device or gateway is (D16): only `assigned` ones report and are listed to
                    sub-account keys.
            sub_account_id (None | UUID): Id of the sub-account it belongs to (null for a partner's inventory).
            network_id (None | UUID): Id of its network; null when none or the Networks feature is off.
            site_id (None | UUID): Id of its site; null when none or the multi-site feature is off.
            online (bool): Assigned and heard from within the offline threshold (default 30 minutes).
            last_seen_at (datetime.datetime | None): Newest message of any kind (RFC 3339 UTC), or null.
            last_stats_at (datetime.datetime | None): Newest gateway stats message (RFC 3339 UTC), or null.
            location (Location | None): Position `{latitude, longitude, altitude}`, or null.
     """

    id: UUID
    gateway_eui: str
    name: str
    status: DeviceStatus
    sub_account_id: None | UUID
    network_id: None | UUID
    site_id: None | UUID
    online: bool
    last_seen_at: datetime.datetime | None
    last_stats_at: datetime.datetime | None
    location: Location | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.location import Location # noqa: PLC0415
        id = str(self.id)

        gateway_eui = self.gateway_eui

        name = self.name

        status = self.status.value

        sub_account_id: None | str
        if isinstance(self.sub_account_id, UUID):
            sub_account_id = str(self.sub_account_id)
        else:
            sub_account_id = self.sub_account_id

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

        last_seen_at: None | str
        if isinstance(self.last_seen_at, datetime.datetime):
            last_seen_at = self.last_seen_at.isoformat()
        else:
            last_seen_at = self.last_seen_at

        last_stats_at: None | str
        if isinstance(self.last_stats_at, datetime.datetime):
            last_stats_at = self.last_stats_at.isoformat()
        else:
            last_stats_at = self.last_stats_at

        location: dict[str, Any] | None
        if isinstance(self.location, Location):
            location = self.location.to_dict()
        else:
            location = self.location


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "id": id,
            "gatewayEui": gateway_eui,
            "name": name,
            "status": status,
            "subAccountId": sub_account_id,
            "networkId": network_id,
            "siteId": site_id,
            "online": online,
            "lastSeenAt": last_seen_at,
            "lastStatsAt": last_stats_at,
            "location": location,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.location import Location # noqa: PLC0415
        d = dict(src_dict)
        id = UUID(d.pop("id"))




        gateway_eui = d.pop("gatewayEui")

        name = d.pop("name")

        status = DeviceStatus(d.pop("status"))




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


        def _parse_last_stats_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_stats_at_type_0 = datetime.datetime.fromisoformat(data)



                return last_stats_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_stats_at = _parse_last_stats_at(d.pop("lastStatsAt"))


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


        gateway = cls(
            id=id,
            gateway_eui=gateway_eui,
            name=name,
            status=status,
            sub_account_id=sub_account_id,
            network_id=network_id,
            site_id=site_id,
            online=online,
            last_seen_at=last_seen_at,
            last_stats_at=last_stats_at,
            location=location,
        )


        gateway.additional_properties = d
        return gateway

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
