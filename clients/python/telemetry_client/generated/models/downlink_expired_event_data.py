from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
from typing import Literal, cast
from uuid import UUID

if TYPE_CHECKING:
  from ..models.downlink_expired_event_data_error_type_1 import DownlinkExpiredEventDataErrorType1





T = TypeVar("T", bound="DownlinkExpiredEventData")



@_attrs_define
class DownlinkExpiredEventData:
    """ What the event type carries (integrations.md 1.2).

        Attributes:
            dev_eui (str):
            queue_item_id (UUID):
            status (Literal['expired']):
            f_port (int):
            f_cnt_down (int | None | Unset):
            error (DownlinkExpiredEventDataErrorType1 | None | str | Unset):
     """

    dev_eui: str
    queue_item_id: UUID
    status: Literal['expired']
    f_port: int
    f_cnt_down: int | None | Unset = UNSET
    error: DownlinkExpiredEventDataErrorType1 | None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.downlink_expired_event_data_error_type_1 import DownlinkExpiredEventDataErrorType1 # noqa: PLC0415
        dev_eui = self.dev_eui

        queue_item_id = str(self.queue_item_id)

        status = self.status

        f_port = self.f_port

        f_cnt_down: int | None | Unset
        if isinstance(self.f_cnt_down, Unset):
            f_cnt_down = UNSET
        else:
            f_cnt_down = self.f_cnt_down

        error: dict[str, Any] | None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        elif isinstance(self.error, DownlinkExpiredEventDataErrorType1):
            error = self.error.to_dict()
        else:
            error = self.error


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "devEui": dev_eui,
            "queueItemId": queue_item_id,
            "status": status,
            "fPort": f_port,
        })
        if f_cnt_down is not UNSET:
            field_dict["fCntDown"] = f_cnt_down
        if error is not UNSET:
            field_dict["error"] = error

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.downlink_expired_event_data_error_type_1 import DownlinkExpiredEventDataErrorType1 # noqa: PLC0415
        d = dict(src_dict)
        dev_eui = d.pop("devEui")

        queue_item_id = UUID(d.pop("queueItemId"))




        status = cast(Literal['expired'] , d.pop("status"))
        if status != 'expired':
            raise ValueError(f"status must match const 'expired', got '{status}'")

        f_port = d.pop("fPort")

        def _parse_f_cnt_down(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        f_cnt_down = _parse_f_cnt_down(d.pop("fCntDown", UNSET))


        def _parse_error(data: object) -> DownlinkExpiredEventDataErrorType1 | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_1 = DownlinkExpiredEventDataErrorType1.from_dict(data)



                return error_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DownlinkExpiredEventDataErrorType1 | None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))


        downlink_expired_event_data = cls(
            dev_eui=dev_eui,
            queue_item_id=queue_item_id,
            status=status,
            f_port=f_port,
            f_cnt_down=f_cnt_down,
            error=error,
        )

        return downlink_expired_event_data

