from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="QueryTelemetryQueryBodyDeviceSelection")



@_attrs_define
class QueryTelemetryQueryBodyDeviceSelection:
    """ `ids`, or the filters of GET /devices (status is always assigned), not both.

        Attributes:
            ids (list[str] | None | Unset):
            sub_account_id (None | str | Unset):
            device_profile_id (None | str | Unset):
            network_id (None | str | Unset):
            site_id (None | str | Unset):
            include_descendants (bool | None | str | Unset):
            online (bool | None | str | Unset):
            search (None | str | Unset):
     """

    ids: list[str] | None | Unset = UNSET
    sub_account_id: None | str | Unset = UNSET
    device_profile_id: None | str | Unset = UNSET
    network_id: None | str | Unset = UNSET
    site_id: None | str | Unset = UNSET
    include_descendants: bool | None | str | Unset = UNSET
    online: bool | None | str | Unset = UNSET
    search: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        ids: list[str] | None | Unset
        if isinstance(self.ids, Unset):
            ids = UNSET
        elif isinstance(self.ids, list):
            ids = self.ids


        else:
            ids = self.ids

        sub_account_id: None | str | Unset
        if isinstance(self.sub_account_id, Unset):
            sub_account_id = UNSET
        else:
            sub_account_id = self.sub_account_id

        device_profile_id: None | str | Unset
        if isinstance(self.device_profile_id, Unset):
            device_profile_id = UNSET
        else:
            device_profile_id = self.device_profile_id

        network_id: None | str | Unset
        if isinstance(self.network_id, Unset):
            network_id = UNSET
        else:
            network_id = self.network_id

        site_id: None | str | Unset
        if isinstance(self.site_id, Unset):
            site_id = UNSET
        else:
            site_id = self.site_id

        include_descendants: bool | None | str | Unset
        if isinstance(self.include_descendants, Unset):
            include_descendants = UNSET
        else:
            include_descendants = self.include_descendants

        online: bool | None | str | Unset
        if isinstance(self.online, Unset):
            online = UNSET
        else:
            online = self.online

        search: None | str | Unset
        if isinstance(self.search, Unset):
            search = UNSET
        else:
            search = self.search


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if ids is not UNSET:
            field_dict["ids"] = ids
        if sub_account_id is not UNSET:
            field_dict["subAccountId"] = sub_account_id
        if device_profile_id is not UNSET:
            field_dict["deviceProfileId"] = device_profile_id
        if network_id is not UNSET:
            field_dict["networkId"] = network_id
        if site_id is not UNSET:
            field_dict["siteId"] = site_id
        if include_descendants is not UNSET:
            field_dict["includeDescendants"] = include_descendants
        if online is not UNSET:
            field_dict["online"] = online
        if search is not UNSET:
            field_dict["search"] = search

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_ids(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                ids_type_0 = cast(list[str], data)

                return ids_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        ids = _parse_ids(d.pop("ids", UNSET))


        def _parse_sub_account_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        sub_account_id = _parse_sub_account_id(d.pop("subAccountId", UNSET))


        def _parse_device_profile_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        device_profile_id = _parse_device_profile_id(d.pop("deviceProfileId", UNSET))


        def _parse_network_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        network_id = _parse_network_id(d.pop("networkId", UNSET))


        def _parse_site_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        site_id = _parse_site_id(d.pop("siteId", UNSET))


        def _parse_include_descendants(data: object) -> bool | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | str | Unset, data)

        include_descendants = _parse_include_descendants(d.pop("includeDescendants", UNSET))


        def _parse_online(data: object) -> bool | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | str | Unset, data)

        online = _parse_online(d.pop("online", UNSET))


        def _parse_search(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        search = _parse_search(d.pop("search", UNSET))


        query_telemetry_query_body_device_selection = cls(
            ids=ids,
            sub_account_id=sub_account_id,
            device_profile_id=device_profile_id,
            network_id=network_id,
            site_id=site_id,
            include_descendants=include_descendants,
            online=online,
            search=search,
        )

        return query_telemetry_query_body_device_selection

