"""The world file (operations.md section 2) as msgspec structs.

Unknown keys are ignored so that authors may annotate their files; every key the
contract names is typed here, with the contract's defaults.
"""

from __future__ import annotations

import uuid
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from app.core.enums import RESERVED_SCOPES, DeviceStatus, Scope

ACTIVE_SCOPES: tuple[str, ...] = tuple(s.value for s in Scope if s not in RESERVED_SCOPES)

PositiveInt = Annotated[int, Meta(gt=0)]
NonNegativeInt = Annotated[int, Meta(ge=0)]
Name = Annotated[str, Meta(min_length=1)]
DataType = Literal["number", "string", "boolean", "date", "location"]
FieldKind = Literal["decoded", "static", "formula", "mapping"]
Measurement = Literal["gauge", "counter", "state"]
LayoutType = Literal[
    "uint8",
    "int8",
    "uint16be",
    "uint16le",
    "int16be",
    "int16le",
    "uint32be",
    "uint32le",
    "int32be",
    "int32le",
    "float32be",
    "bool8",
]


class Spec(msgspec.Struct, rename="camel", kw_only=True):
    pass


class Plan(Spec, kw_only=True):
    api_write: bool = False
    retention_days: PositiveInt = 30


class Tier(Spec, kw_only=True):
    per_minute: PositiveInt = 600
    per_day: PositiveInt = 100000


class TierOverride(Spec, kw_only=True):
    per_minute: PositiveInt | None = None
    per_day: PositiveInt | None = None


class Features(Spec, kw_only=True):
    networks: bool = False
    multi_site: bool = False


class FeaturesOverride(Spec, kw_only=True):
    networks: bool | None = None
    multi_site: bool | None = None


class Location(Spec, kw_only=True):
    latitude: Annotated[float, Meta(ge=-90, le=90)]
    longitude: Annotated[float, Meta(ge=-180, le=180)]
    altitude: float | None = None


class KeySpec(Spec, kw_only=True):
    id: uuid.UUID
    name: Name
    secret: str
    scopes: list[str]
    expires_at: str | None = None
    revoked: bool = False


class MqttSpec(Spec, kw_only=True):
    """A ChirpStack MQTT integration to consume (integrations.md 2.1)."""

    url: Annotated[str, Meta(pattern=r"^mqtts?://[^/\s]+$")]
    topic: Name = "application/+/device/+/event/+"
    client_id: Annotated[str, Meta(min_length=1, max_length=128)]


class GrpcSpec(Spec, kw_only=True):
    """ChirpStack's gRPC API, where downlinks are enqueued (integrations.md 3)."""

    url: Annotated[str, Meta(pattern=r"^[^/\s]+:[0-9]+$")]
    api_token: Name
    tls: bool = False


class IntegrationSpec(Spec, kw_only=True):
    id: uuid.UUID
    kind: Literal["chirpstack", "tts"] = "chirpstack"
    token: Annotated[str, Meta(min_length=1)]
    mqtt: MqttSpec | None = None
    grpc: GrpcSpec | None = None


class WebhookSpec(Spec, kw_only=True):
    id: uuid.UUID
    url: Name
    secret: Name
    events: list[str] | None = None
    device_ids: list[uuid.UUID] | None = None
    enabled: bool = True


class UserSpec(Spec, kw_only=True):
    id: uuid.UUID
    email: Annotated[str, Meta(min_length=3)]
    name: Name
    password: str | None = None
    status: Literal["active", "pending_invite", "suspended"] = "active"
    mfa_enabled: bool = False
    locked_until: str | None = None
    last_login_at: str | None = None


class FieldSpec(Spec, kw_only=True):
    id: uuid.UUID
    identifier: Annotated[str, Meta(min_length=1, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]
    label: str | None = None
    unit: str | None = None
    data_type: DataType
    kind: FieldKind = "decoded"
    role: Literal["battery_pct"] | None = None
    # Unset: the default of the data type (gauge for numbers, state for strings and
    # booleans, none for dates and locations), filled in by the database.
    measurement: Measurement | None = None
    formula: str | None = None
    source: str | None = None
    map: dict[str, Any] | None = None
    default: Any = None


class LayoutItem(Spec, kw_only=True):
    field: Name
    type: LayoutType


class DownlinkTemplateSpec(Spec, kw_only=True):
    id: uuid.UUID
    key: Name
    name: Name
    f_port: Annotated[int, Meta(ge=1, le=223)]
    confirmed: bool = False
    layout: list[LayoutItem] = msgspec.field(default_factory=list)
    sample_data: dict[str, Any] = msgspec.field(default_factory=dict)


class AlertRuleSpec(Spec, kw_only=True):
    field: Name
    op: Literal[">", ">=", "<", "<=", "==", "!="]
    value: Any
    level: Literal["info", "warning", "alert"]


class ProfileSpec(Spec, kw_only=True):
    id: uuid.UUID
    name: Name
    retain_last_value: bool = False
    fields: list[FieldSpec] = msgspec.field(default_factory=list)
    downlink_templates: list[DownlinkTemplateSpec] = msgspec.field(default_factory=list)
    alert_rules: list[AlertRuleSpec] = msgspec.field(default_factory=list)


class Calibration(Spec, kw_only=True):
    scale: float = 1.0
    offset: float = 0.0


class DeviceSpec(Spec, kw_only=True):
    id: uuid.UUID
    dev_eui: str
    name: Name
    serial_number: str | None = None
    # None means the default of where the device is listed: assigned in a sub-account,
    # inventory in the partner's inventory.
    status: DeviceStatus | None = None
    device_profile_id: uuid.UUID
    network_id: uuid.UUID | None = None
    site_id: uuid.UUID | None = None
    offline_threshold_minutes: PositiveInt = 30
    downlink_rate_per_hour: NonNegativeInt = 30
    downlink_expiry_seconds: PositiveInt | None = None
    location: Location | None = None
    static: dict[str, Any] = msgspec.field(default_factory=dict)
    calibration: dict[str, Calibration] = msgspec.field(default_factory=dict)


class GatewaySpec(Spec, kw_only=True):
    id: uuid.UUID
    gateway_eui: str
    name: Name
    status: DeviceStatus | None = None
    network_id: uuid.UUID | None = None
    site_id: uuid.UUID | None = None
    location: Location | None = None


class SiteSpec(Spec, kw_only=True):
    id: uuid.UUID
    name: Name
    parent_site_id: uuid.UUID | None = None


class NetworkSpec(Spec, kw_only=True):
    id: uuid.UUID
    name: Name
    site_id: uuid.UUID | None = None


class MemberSpec(Spec, kw_only=True):
    user_id: uuid.UUID
    role: Literal["subaccount_admin", "subaccount_operator", "subaccount_viewer"] = (
        "subaccount_viewer"
    )
    site_id: uuid.UUID | None = None


class MulticastGroupSpec(Spec, kw_only=True):
    id: uuid.UUID
    name: Name
    device_ids: list[uuid.UUID] = msgspec.field(default_factory=list)


class SubAccountSpec(Spec, kw_only=True):
    id: uuid.UUID
    name: Name
    status: Literal["active", "suspended"] = "active"
    tier: TierOverride | None = None
    features: FeaturesOverride | None = None
    member_limit: NonNegativeInt = 10
    keys: list[KeySpec] = msgspec.field(default_factory=list)
    sites: list[SiteSpec] = msgspec.field(default_factory=list)
    networks: list[NetworkSpec] = msgspec.field(default_factory=list)
    gateways: list[GatewaySpec] = msgspec.field(default_factory=list)
    devices: list[DeviceSpec] = msgspec.field(default_factory=list)
    members: list[MemberSpec] = msgspec.field(default_factory=list)
    multicast_groups: list[MulticastGroupSpec] = msgspec.field(default_factory=list)
    webhooks: list[WebhookSpec] = msgspec.field(default_factory=list)


class InventorySpec(Spec, kw_only=True):
    devices: list[DeviceSpec] = msgspec.field(default_factory=list)
    gateways: list[GatewaySpec] = msgspec.field(default_factory=list)


class PartnerSpec(Spec, kw_only=True):
    id: uuid.UUID
    name: Name
    plan: Plan = msgspec.field(default_factory=Plan)
    tier: Tier = msgspec.field(default_factory=Tier)
    features: Features = msgspec.field(default_factory=Features)
    keys: list[KeySpec] = msgspec.field(default_factory=list)
    integrations: list[IntegrationSpec] = msgspec.field(default_factory=list)
    users: list[UserSpec] = msgspec.field(default_factory=list)
    profiles: list[ProfileSpec] = msgspec.field(default_factory=list)
    inventory: InventorySpec = msgspec.field(default_factory=InventorySpec)
    sub_accounts: list[SubAccountSpec] = msgspec.field(default_factory=list)
    webhooks: list[WebhookSpec] = msgspec.field(default_factory=list)


class UplinkSpec(Spec, kw_only=True):
    device: Name
    at: str
    values: dict[str, Any] = msgspec.field(default_factory=dict)
    rssi: float | None = None
    snr: float | None = None
    gateway_eui: str | None = None
    f_port: Annotated[int, Meta(ge=0, le=255)] | None = None


class StatusEventSpec(Spec, kw_only=True):
    device: Name
    at: str
    battery: int | float | Literal["external", "unavailable"]


class GatewayStatsSpec(Spec, kw_only=True):
    gateway: Name
    at: str


class WorldSpec(Spec, kw_only=True):
    partners: list[PartnerSpec] = msgspec.field(default_factory=list)
    uplinks: list[UplinkSpec] = msgspec.field(default_factory=list)
    status_events: list[StatusEventSpec] = msgspec.field(default_factory=list)
    gateway_stats: list[GatewayStatsSpec] = msgspec.field(default_factory=list)


class WorldSummary(msgspec.Struct, kw_only=True):
    partners: int = 0
    sub_accounts: int = 0
    profiles: int = 0
    devices: int = 0
    gateways: int = 0
    users: int = 0
    keys: int = 0
    uplinks: int = 0
    status_events: int = 0
    gateway_stats: int = 0

    def __str__(self) -> str:
        parts = [
            _count(self.partners, "partner"),
            _count(self.sub_accounts, "sub-account"),
            _count(self.profiles, "profile"),
            _count(self.devices, "device"),
            _count(self.gateways, "gateway"),
            _count(self.users, "user"),
            _count(self.keys, "key"),
            _count(self.uplinks, "uplink"),
            _count(self.status_events, "status event"),
            _count(self.gateway_stats, "gateway stats message"),
        ]
        return "loaded " + ", ".join(parts)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")
