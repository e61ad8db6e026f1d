from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.ingest_the_things_stack_application_up_end_device_ids import IngestTheThingsStackApplicationUpEndDeviceIds
  from ..models.ingest_the_things_stack_application_up_join_accept import IngestTheThingsStackApplicationUpJoinAccept
  from ..models.ingest_the_things_stack_application_up_location_solved import IngestTheThingsStackApplicationUpLocationSolved
  from ..models.ingest_the_things_stack_application_up_uplink_message import IngestTheThingsStackApplicationUpUplinkMessage





T = TypeVar("T", bound="IngestTheThingsStackApplicationUp")



@_attrs_define
class IngestTheThingsStackApplicationUp:
    """ One webhook body: exactly one of the message fields is set.

        Attributes:
            end_device_ids (IngestTheThingsStackApplicationUpEndDeviceIds):
            correlation_ids (list[str] | Unset):
            received_at (datetime.datetime | None | Unset):
            uplink_message (IngestTheThingsStackApplicationUpUplinkMessage | None | Unset):
            join_accept (IngestTheThingsStackApplicationUpJoinAccept | None | Unset):
            location_solved (IngestTheThingsStackApplicationUpLocationSolved | None | Unset):
     """

    end_device_ids: IngestTheThingsStackApplicationUpEndDeviceIds
    correlation_ids: list[str] | Unset = UNSET
    received_at: datetime.datetime | None | Unset = UNSET
    uplink_message: IngestTheThingsStackApplicationUpUplinkMessage | None | Unset = UNSET
    join_accept: IngestTheThingsStackApplicationUpJoinAccept | None | Unset = UNSET
    location_solved: IngestTheThingsStackApplicationUpLocationSolved | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.ingest_the_things_stack_application_up_end_device_ids import IngestTheThingsStackApplicationUpEndDeviceIds # noqa: PLC0415
        from ..models.ingest_the_things_stack_application_up_join_accept import IngestTheThingsStackApplicationUpJoinAccept # noqa: PLC0415
        from ..models.ingest_the_things_stack_application_up_location_solved import IngestTheThingsStackApplicationUpLocationSolved # noqa: PLC0415
        from ..models.ingest_the_things_stack_application_up_uplink_message import IngestTheThingsStackApplicationUpUplinkMessage # noqa: PLC0415
        end_device_ids = self.end_device_ids.to_dict()

        correlation_ids: list[str] | Unset = UNSET
        if not isinstance(self.correlation_ids, Unset):
            correlation_ids = self.correlation_ids



        received_at: None | str | Unset
        if isinstance(self.received_at, Unset):
            received_at = UNSET
        elif isinstance(self.received_at, datetime.datetime):
            received_at = self.received_at.isoformat()
        else:
            received_at = self.received_at

        uplink_message: dict[str, Any] | None | Unset
        if isinstance(self.uplink_message, Unset):
            uplink_message = UNSET
        elif isinstance(self.uplink_message, IngestTheThingsStackApplicationUpUplinkMessage):
            uplink_message = self.uplink_message.to_dict()
        else:
            uplink_message = self.uplink_message

        join_accept: dict[str, Any] | None | Unset
        if isinstance(self.join_accept, Unset):
            join_accept = UNSET
        elif isinstance(self.join_accept, IngestTheThingsStackApplicationUpJoinAccept):
            join_accept = self.join_accept.to_dict()
        else:
            join_accept = self.join_accept

        location_solved: dict[str, Any] | None | Unset
        if isinstance(self.location_solved, Unset):
            location_solved = UNSET
        elif isinstance(self.location_solved, IngestTheThingsStackApplicationUpLocationSolved):
            location_solved = self.location_solved.to_dict()
        else:
            location_solved = self.location_solved


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "end_device_ids": end_device_ids,
        })
        if correlation_ids is not UNSET:
            field_dict["correlation_ids"] = correlation_ids
        if received_at is not UNSET:
            field_dict["received_at"] = received_at
        if uplink_message is not UNSET:
            field_dict["uplink_message"] = uplink_message
        if join_accept is not UNSET:
            field_dict["join_accept"] = join_accept
        if location_solved is not UNSET:
            field_dict["location_solved"] = location_solved

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.ingest_the_things_stack_application_up_end_device_ids import IngestTheThingsStackApplicationUpEndDeviceIds # noqa: PLC0415
        from ..models.ingest_the_things_stack_application_up_join_accept import IngestTheThingsStackApplicationUpJoinAccept # noqa: PLC0415
        from ..models.ingest_the_things_stack_application_up_location_solved import IngestTheThingsStackApplicationUpLocationSolved # noqa: PLC0415
        from ..models.ingest_the_things_stack_application_up_uplink_message import IngestTheThingsStackApplicationUpUplinkMessage # noqa: PLC0415
        d = dict(src_dict)
        end_device_ids = IngestTheThingsStackApplicationUpEndDeviceIds.from_dict(d.pop("end_device_ids"))




        correlation_ids = cast(list[str], d.pop("correlation_ids", UNSET))


        def _parse_received_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                received_at_type_0 = datetime.datetime.fromisoformat(data)



                return received_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        received_at = _parse_received_at(d.pop("received_at", UNSET))


        def _parse_uplink_message(data: object) -> IngestTheThingsStackApplicationUpUplinkMessage | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                uplink_message_uplink_message = IngestTheThingsStackApplicationUpUplinkMessage.from_dict(data)



                return uplink_message_uplink_message
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(IngestTheThingsStackApplicationUpUplinkMessage | None | Unset, data)

        uplink_message = _parse_uplink_message(d.pop("uplink_message", UNSET))


        def _parse_join_accept(data: object) -> IngestTheThingsStackApplicationUpJoinAccept | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                join_accept_join_accept = IngestTheThingsStackApplicationUpJoinAccept.from_dict(data)



                return join_accept_join_accept
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(IngestTheThingsStackApplicationUpJoinAccept | None | Unset, data)

        join_accept = _parse_join_accept(d.pop("join_accept", UNSET))


        def _parse_location_solved(data: object) -> IngestTheThingsStackApplicationUpLocationSolved | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                location_solved_location_solved = IngestTheThingsStackApplicationUpLocationSolved.from_dict(data)



                return location_solved_location_solved
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(IngestTheThingsStackApplicationUpLocationSolved | None | Unset, data)

        location_solved = _parse_location_solved(d.pop("location_solved", UNSET))


        ingest_the_things_stack_application_up = cls(
            end_device_ids=end_device_ids,
            correlation_ids=correlation_ids,
            received_at=received_at,
            uplink_message=uplink_message,
            join_accept=join_accept,
            location_solved=location_solved,
        )


        ingest_the_things_stack_application_up.additional_properties = d
        return ingest_the_things_stack_application_up

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
