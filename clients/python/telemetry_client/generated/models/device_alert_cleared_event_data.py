from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.device_alert_cleared_event_data_level import DeviceAlertClearedEventDataLevel
from ..models.device_alert_cleared_event_data_op import DeviceAlertClearedEventDataOp
from typing import cast
import datetime






T = TypeVar("T", bound="DeviceAlertClearedEventData")



@_attrs_define
class DeviceAlertClearedEventData:
    """ What the event type carries (integrations.md 1.2).

        Attributes:
            dev_eui (str):
            field (str):
            op (DeviceAlertClearedEventDataOp):
            threshold (Any):
            level (DeviceAlertClearedEventDataLevel):
            value (Any):
            time (datetime.datetime):
     """

    dev_eui: str
    field: str
    op: DeviceAlertClearedEventDataOp
    threshold: Any
    level: DeviceAlertClearedEventDataLevel
    value: Any
    time: datetime.datetime





    def to_dict(self) -> dict[str, Any]:
        dev_eui = self.dev_eui

        field = self.field

        op = self.op.value

        threshold = self.threshold

        level = self.level.value

        value = self.value

        time = self.time.isoformat()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "devEui": dev_eui,
            "field": field,
            "op": op,
            "threshold": threshold,
            "level": level,
            "value": value,
            "time": time,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        dev_eui = d.pop("devEui")

        field = d.pop("field")

        op = DeviceAlertClearedEventDataOp(d.pop("op"))




        threshold = d.pop("threshold")

        level = DeviceAlertClearedEventDataLevel(d.pop("level"))




        value = d.pop("value")

        time = datetime.datetime.fromisoformat(d.pop("time"))




        device_alert_cleared_event_data = cls(
            dev_eui=dev_eui,
            field=field,
            op=op,
            threshold=threshold,
            level=level,
            value=value,
            time=time,
        )

        return device_alert_cleared_event_data

