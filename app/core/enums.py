"""The closed vocabularies of the API as StrEnums: scopes, device and equipment statuses,
member roles. Being `str`, a member compares equal to its text (`Scope.DEVICES_READ ==
"devices:read"`) and msgspec reads and writes it as that text, so structs, SQL rows and
JSON keep using the strings of the contract (api-spec 1.2, 2.6, 4.8).
"""

from __future__ import annotations

from enum import StrEnum


class Scope(StrEnum):
    DEVICES_READ = "devices:read"
    TELEMETRY_READ = "telemetry:read"
    PROFILES_READ = "profiles:read"
    DOWNLINKS_WRITE = "downlinks:write"
    MEMBERS_READ = "members:read"
    MEMBERS_MANAGE = "members:manage"
    # Reserved: keys may carry them, no route checks them yet.
    TELEMETRY_WRITE = "telemetry:write"
    WEBHOOKS_MANAGE = "webhooks:manage"


RESERVED_SCOPES = frozenset({Scope.TELEMETRY_WRITE, Scope.WEBHOOKS_MANAGE})
ALL_SCOPES: frozenset[str] = frozenset(s.value for s in Scope)


class DeviceStatus(StrEnum):
    """Where a device or gateway is (D16): only `assigned` ones report and are listed to
    sub-account keys."""

    INVENTORY = "inventory"
    ASSIGNED = "assigned"
    ARCHIVED = "archived"


class Role(StrEnum):
    SUBACCOUNT_ADMIN = "subaccount_admin"
    SUBACCOUNT_OPERATOR = "subaccount_operator"
    SUBACCOUNT_VIEWER = "subaccount_viewer"
