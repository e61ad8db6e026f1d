"""GET /device-profiles and GET /device-profiles/{profile_id} (api-spec 4.5, D10)."""

from __future__ import annotations

from functools import partial

import asyncpg
from litestar import Controller, get

from app.auth.principal import Principal
from app.core.api import Listing, Page, Single
from app.core.reads import fetch_owned_by_id, from_row, list_owned
from app.core.sql import QUERIES
from app.profiles.service import profile_fields
from app.profiles.structs import DeviceProfile, DeviceProfileDetail

LIST_PROFILES = QUERIES["profiles.list_profiles"]
GET_PROFILE = QUERIES["profiles.get_profile"]


class ProfileController(Controller):
    path = "/device-profiles"
    opt = {"scope": "profiles:read"}
    tags = ["Device profiles"]

    @get(
        operation_id="listDeviceProfiles",
        summary="Device profiles visible to the key",
        description="A sub-account key sees the profiles used by its assigned devices.",
    )
    async def list_profiles(self, principal: Principal, page: Page) -> Listing[DeviceProfile]:
        return await list_owned(
            principal, partial(from_row, DeviceProfile), LIST_PROFILES, page=page
        )

    @get(
        "/{profile_id:str}",
        operation_id="getDeviceProfile",
        summary="One device profile with its field catalog",
    )
    async def get_profile(
        self, pool: asyncpg.Pool, principal: Principal, profile_id: str
    ) -> Single[DeviceProfileDetail]:
        row = await fetch_owned_by_id(pool, principal, "device profile", GET_PROFILE, profile_id)
        fields = await profile_fields(pool, row["id"])
        return Single(from_row(DeviceProfileDetail, row, fields=fields))
