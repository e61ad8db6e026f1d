from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="NetworkGateway")



@_attrs_define
class NetworkGateway:
    """ 
        Attributes:
            gateway_id (UUID): Id of the gateway.
            name (str): Display name.
            gateway_eui (str): GatewayEUI: 16 lowercase hex characters.
            online (bool): Assigned and heard from within the offline threshold (default 30 minutes).
            last_seen_at (datetime.datetime | None): Newest message of any kind (RFC 3339 UTC), or null.
     """

    gateway_id: UUID
    name: str
    gateway_eui: str
    online: bool
    last_seen_at: datetime.datetime | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        gateway_id = str(self.gateway_id)

        name = self.name

        gateway_eui = self.gateway_eui

        online = self.online

        last_seen_at: None | str
        if isinstance(self.last_seen_at, datetime.datetime):
            last_seen_at = self.last_seen_at.isoformat()
        else:
            last_seen_at = self.last_seen_at


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "gatewayId": gateway_id,
            "name": name,
            "gatewayEui": gateway_eui,
            "online": online,
            "lastSeenAt": last_seen_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        gateway_id = UUID(d.pop("gatewayId"))




        name = d.pop("name")

        gateway_eui = d.pop("gatewayEui")

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


        network_gateway = cls(
            gateway_id=gateway_id,
            name=name,
            gateway_eui=gateway_eui,
            online=online,
            last_seen_at=last_seen_at,
        )


        network_gateway.additional_properties = d
        return network_gateway

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
