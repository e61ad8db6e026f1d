from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID

if TYPE_CHECKING:
  from ..models.network_device import NetworkDevice
  from ..models.network_gateway import NetworkGateway





T = TypeVar("T", bound="NetworkDetail")



@_attrs_define
class NetworkDetail:
    """ 
        Attributes:
            id (UUID): Service id (UUID, lowercase).
            name (str): Display name.
            site_id (None | UUID): Id of its site; null when none or the multi-site feature is off.
            sub_account_id (UUID): Id of the sub-account it belongs to (null for a partner's inventory).
            device_count (int): Number of member devices.
            device_online_count (int): Member devices online.
            device_offline_count (int): Member devices offline (online + offline = deviceCount).
            device_alerting_count (int): Member devices with at least one active alert of any level.
            gateway_count (int): Number of member gateways.
            gateway_online_count (int): Member gateways online.
            gateway_offline_count (int): Member gateways offline.
            devices (list[NetworkDevice]): Member devices.
            gateways (list[NetworkGateway]): Member gateways.
     """

    id: UUID
    name: str
    site_id: None | UUID
    sub_account_id: UUID
    device_count: int
    device_online_count: int
    device_offline_count: int
    device_alerting_count: int
    gateway_count: int
    gateway_online_count: int
    gateway_offline_count: int
    devices: list[NetworkDevice]
    gateways: list[NetworkGateway]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.network_device import NetworkDevice # noqa: PLC0415
        from ..models.network_gateway import NetworkGateway # noqa: PLC0415
        id = str(self.id)

        name = self.name

        site_id: None | str
        if isinstance(self.site_id, UUID):
            site_id = str(self.site_id)
        else:
            site_id = self.site_id

        sub_account_id = str(self.sub_account_id)

        device_count = self.device_count

        device_online_count = self.device_online_count

        device_offline_count = self.device_offline_count

        device_alerting_count = self.device_alerting_count

        gateway_count = self.gateway_count

        gateway_online_count = self.gateway_online_count

        gateway_offline_count = self.gateway_offline_count

        devices = []
        for devices_item_data in self.devices:
            devices_item = devices_item_data.to_dict()
            devices.append(devices_item)



        gateways = []
        for gateways_item_data in self.gateways:
            gateways_item = gateways_item_data.to_dict()
            gateways.append(gateways_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "id": id,
            "name": name,
            "siteId": site_id,
            "subAccountId": sub_account_id,
            "deviceCount": device_count,
            "deviceOnlineCount": device_online_count,
            "deviceOfflineCount": device_offline_count,
            "deviceAlertingCount": device_alerting_count,
            "gatewayCount": gateway_count,
            "gatewayOnlineCount": gateway_online_count,
            "gatewayOfflineCount": gateway_offline_count,
            "devices": devices,
            "gateways": gateways,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.network_device import NetworkDevice # noqa: PLC0415
        from ..models.network_gateway import NetworkGateway # noqa: PLC0415
        d = dict(src_dict)
        id = UUID(d.pop("id"))




        name = d.pop("name")

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


        sub_account_id = UUID(d.pop("subAccountId"))




        device_count = d.pop("deviceCount")

        device_online_count = d.pop("deviceOnlineCount")

        device_offline_count = d.pop("deviceOfflineCount")

        device_alerting_count = d.pop("deviceAlertingCount")

        gateway_count = d.pop("gatewayCount")

        gateway_online_count = d.pop("gatewayOnlineCount")

        gateway_offline_count = d.pop("gatewayOfflineCount")

        devices = []
        _devices = d.pop("devices")
        for devices_item_data in (_devices):
            devices_item = NetworkDevice.from_dict(devices_item_data)



            devices.append(devices_item)


        gateways = []
        _gateways = d.pop("gateways")
        for gateways_item_data in (_gateways):
            gateways_item = NetworkGateway.from_dict(gateways_item_data)



            gateways.append(gateways_item)


        network_detail = cls(
            id=id,
            name=name,
            site_id=site_id,
            sub_account_id=sub_account_id,
            device_count=device_count,
            device_online_count=device_online_count,
            device_offline_count=device_offline_count,
            device_alerting_count=device_alerting_count,
            gateway_count=gateway_count,
            gateway_online_count=gateway_online_count,
            gateway_offline_count=gateway_offline_count,
            devices=devices,
            gateways=gateways,
        )


        network_detail.additional_properties = d
        return network_detail

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
