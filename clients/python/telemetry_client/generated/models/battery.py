from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.battery_source import BatterySource
from ..models.battery_state import BatteryState
from ..types import UNSET, Unset
from typing import cast
import datetime






T = TypeVar("T", bound="Battery")



@_attrs_define
class Battery:
    """ 
        Attributes:
            state (BatteryState): `pct` (a percentage), `external` (externally powered) or `unavailable`.
            at (datetime.datetime): Time of the reading itself (RFC 3339 UTC), possibly hours old.
            source (BatterySource): `field` (a decoded payload field with the battery role) or `status` (network status
                polling).
            value (int | None | Unset): Battery percentage 0-100 when state is `pct`, else null.
     """

    state: BatteryState
    at: datetime.datetime
    source: BatterySource
    value: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        state = self.state.value

        at = self.at.isoformat()

        source = self.source.value

        value: int | None | Unset
        if isinstance(self.value, Unset):
            value = UNSET
        else:
            value = self.value


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "state": state,
            "at": at,
            "source": source,
        })
        if value is not UNSET:
            field_dict["value"] = value

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        state = BatteryState(d.pop("state"))




        at = datetime.datetime.fromisoformat(d.pop("at"))




        source = BatterySource(d.pop("source"))




        def _parse_value(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        value = _parse_value(d.pop("value", UNSET))


        battery = cls(
            state=state,
            at=at,
            source=source,
            value=value,
        )


        battery.additional_properties = d
        return battery

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
