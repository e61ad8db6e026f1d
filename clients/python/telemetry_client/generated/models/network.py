from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID






T = TypeVar("T", bound="Network")



@_attrs_define
class Network:
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
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
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
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
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

        network = cls(
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
        )


        network.additional_properties = d
        return network

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
