"""GET /devices and GET /devices/{id} (api-spec 2.2, 3.1, 4.3, decisions D9, D17, D18)."""

from __future__ import annotations

import asyncpg
from litestar import Controller, get

from app.auth.principal import Principal
from app.auth.tenancy import resolve_device
from app.core.api import Listing, Page, Single
from app.core.enums import DeviceStatus
from app.core.reads import empty_page, from_row, list_owned
from app.core.sql import QUERIES
from app.devices.filters import (
    FILTER_FEATURES,
    DescendantsFilter,
    NetworkFilter,
    OnlineFilter,
    ProfileFilter,
    SiteFilter,
    StatusFilter,
    SubAccountFilter,
    check_features,
    parse_filters,
)
from app.devices.structs import Device, DeviceDetail, converted_columns, device_from_row
from app.profiles.service import profile_fields
from app.profiles.structs import DeviceProfileDetail

LIST_DEVICES = QUERIES["devices.list_devices"]
LIST_DEVICES_PRESENT = QUERIES["devices.list_devices_present"]
# A search is read once: its matching devices are a set of their own that the page and the
# total both read (MATERIALIZED), where without a search the page walks the list index in
# order and stops at the page's end. A trigram search scanned its index twice, once per
# reader (issue 27, bench_directory, 100,000 devices, `search=sensor 0123`: 5.4 -> 3.3 ms).
LIST_DEVICES_SEARCH, LIST_DEVICES_PRESENT_SEARCH = (
    query.replace("WITH matching AS NOT MATERIALIZED", "WITH matching AS MATERIALIZED", 1)
    for query in (LIST_DEVICES, LIST_DEVICES_PRESENT)
)
GET_DEVICE = QUERIES["devices.get_device"]


class DeviceController(Controller):
    path = "/devices"
    opt = {"scope": "devices:read"}
    tags = ["Devices"]
    before_request = staticmethod(check_features)

    @get(
        operation_id="listDevices",
        summary="Devices visible to the key, filtered",
        description=(
            "Ordered by name, then id. With no `status`, a partner key lists every status; "
            "a sub-account key only ever lists its assigned devices. An id filter naming "
            "something unknown or outside the key's scope gives an empty list. `search` is "
            "a case-insensitive substring of the name, the serial number or the DevEUI "
            "(`:` and `-` are ignored for DevEUIs). `includeDescendants=true` widens "
            "`siteId` to the site's subtree."
        ),
        opt=FILTER_FEATURES,
    )
    async def list_devices(
        self,
        principal: Principal,
        sub_account_id: SubAccountFilter = None,
        device_profile_id: ProfileFilter = None,
        network_id: NetworkFilter = None,
        status: StatusFilter = None,
        online: OnlineFilter = None,
        search: str | None = None,
        site_id: SiteFilter = None,
        include_descendants: DescendantsFilter = None,
        *,
        page: Page,
    ) -> Listing[Device]:
        filters = parse_filters(
            principal,
            sub_account_id=sub_account_id,
            device_profile_id=device_profile_id,
            network_id=network_id,
            status=status,
            site_id=site_id,
            include_descendants=include_descendants,
            online=online,
            search=search,
        )
        if filters.statuses == []:
            return empty_page(page)
        return await list_owned(
            principal,
            device_from_row,
            list_query(filters.statuses, filters.online, filters.name_pattern),
            filters.sub_account,
            filters.profile,
            filters.network.id,
            filters.network.none,
            filters.statuses,
            filters.online,
            filters.name_pattern,
            filters.eui_pattern,
            filters.site.id,
            filters.site.none,
            filters.descendants,
            page=page,
        )

    @get(
        "/{device_id:str}",
        operation_id="getDevice",
        summary="One device with its profile and field catalog",
        description="`{device_id}` is the service id or the DevEUI (any case, `:`/`-` allowed).",
    )
    async def get_device(
        self, pool: asyncpg.Pool, principal: Principal, device_id: str
    ) -> Single[DeviceDetail]:
        ref = await resolve_device(pool, principal, device_id)
        row = await pool.fetchrow(GET_DEVICE, ref.id)
        fields = await profile_fields(pool, ref.profile_id)
        profile = DeviceProfileDetail(
            id=ref.profile_id,
            name=row["profile_name"],
            retain_last_value=row["profile_retain_last_value"],
            field_count=len(fields),
            fields=fields,
        )
        return Single(from_row(DeviceDetail, row, **converted_columns(row), device_profile=profile))


def list_query(statuses: list[str] | None, online: bool | None, search: str | None) -> str:
    """The device list query for these filters (same answer either way, sql/devices).

    device_presence (schema/034) holds every assigned device with the end of its online
    time, so it alone answers online=true, and online=false when only assigned devices are
    wanted; the other lists walk the devices. `search` is the name pattern ($9), None
    without a search.
    """
    if online is True or (online is False and statuses == [DeviceStatus.ASSIGNED]):
        return LIST_DEVICES_PRESENT if search is None else LIST_DEVICES_PRESENT_SEARCH
    return LIST_DEVICES if search is None else LIST_DEVICES_SEARCH
