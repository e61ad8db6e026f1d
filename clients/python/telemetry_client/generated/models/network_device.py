from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="NetworkDevice")



@_attrs_define
class NetworkDevice:
    """ 
        Attributes:
            device_id (UUID): Id of the device.
            name (str): Display name.
            dev_eui (str): DevEUI: 16 lowercase hex characters.
            online (bool): Assigned and heard from within the offline threshold (default 30 minutes).
            signal_quality (int | None): 0-100, from the RSSI and SNR of the newest uplink; null without uplinks.
            last_seen_at (datetime.datetime | None): Newest message of any kind (RFC 3339 UTC), or null.
     """

    device_id: UUID
    name: str
    dev_eui: str
    online: bool
    signal_quality: int | None
    last_seen_at: datetime.datetime | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        device_id = str(self.device_id)

        name = self.name

        dev_eui = self.dev_eui

        online = self.online

        signal_quality: int | None
        signal_quality = self.signal_quality

        last_seen_at: None | str
        if isinstance(self.last_seen_at, datetime.datetime):
            last_seen_at = self.last_seen_at.isoformat()
        else:
            last_seen_at = self.last_seen_at


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "deviceId": device_id,
            "name": name,
            "devEui": dev_eui,
            "online": online,
            "signalQuality": signal_quality,
            "lastSeenAt": last_seen_at,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        device_id = UUID(d.pop("deviceId"))




        name = d.pop("name")

        dev_eui = d.pop("devEui")

        online = d.pop("online")

        def _parse_signal_quality(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        signal_quality = _parse_signal_quality(d.pop("signalQuality"))


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


        network_device = cls(
            device_id=device_id,
            name=name,
            dev_eui=dev_eui,
            online=online,
            signal_quality=signal_quality,
            last_seen_at=last_seen_at,
        )


        network_device.additional_properties = d
        return network_device

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
