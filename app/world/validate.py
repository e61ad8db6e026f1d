"""Checks a parsed world file and turns it into rows, before anything is written.

Every refusal names the offending path in the file, e.g.
`partners[0].subAccounts[1].devices[3].devEui: not 16 hex characters`.
"""

from __future__ import annotations

import ast
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import msgspec

from app.auth.principal import KEY_PATTERN, hash_secret
from app.core.api import normalize_eui
from app.core.enums import ALL_SCOPES, DeviceStatus
from app.members.service import EMAIL
from app.world.errors import fail
from app.world.structs import (
    DeviceSpec,
    GatewaySpec,
    IntegrationSpec,
    PartnerSpec,
    ProfileSpec,
    SubAccountSpec,
    WorldSpec,
)
from app.world.times import resolve_time
from app.world.webhooks import check_webhooks

MAX_SITE_DEPTH = 3
RESERVED_IDENTIFIERS = frozenset({"signal_quality"})
# The measurements each data type may set (analytics.md section 3); unset, the database
# gives the type its default (schema/160-field-measurement.sql).
MEASUREMENTS: dict[str, tuple[str, ...]] = {
    "number": ("gauge", "counter"),
    "string": ("state",),
    "boolean": ("state",),
    "date": (),
    "location": (),
}


@dataclass
class Rows:
    """Everything a world writes, table by table, in insertion order."""

    partners: list[tuple[Any, ...]] = field(default_factory=list)
    sub_accounts: list[tuple[Any, ...]] = field(default_factory=list)
    api_keys: list[tuple[Any, ...]] = field(default_factory=list)
    audit: list[tuple[Any, ...]] = field(default_factory=list)
    integrations: list[tuple[Any, ...]] = field(default_factory=list)
    users: list[tuple[Any, ...]] = field(default_factory=list)
    profiles: list[tuple[Any, ...]] = field(default_factory=list)
    fields: list[tuple[Any, ...]] = field(default_factory=list)
    templates: list[tuple[Any, ...]] = field(default_factory=list)
    alert_rules: list[tuple[Any, ...]] = field(default_factory=list)
    sites: list[tuple[Any, ...]] = field(default_factory=list)
    networks: list[tuple[Any, ...]] = field(default_factory=list)
    memberships: list[tuple[Any, ...]] = field(default_factory=list)
    gateways: list[tuple[Any, ...]] = field(default_factory=list)
    devices: list[tuple[Any, ...]] = field(default_factory=list)
    multicast_groups: list[tuple[Any, ...]] = field(default_factory=list)
    multicast_members: list[tuple[Any, ...]] = field(default_factory=list)
    webhooks: list[tuple[Any, ...]] = field(default_factory=list)
    # Where each id and secret hash came from, to name the path of a clash with the database.
    id_paths: dict[str, dict[uuid.UUID, str]] = field(default_factory=dict)
    key_hash_paths: dict[bytes, str] = field(default_factory=dict)
    token_hash_paths: dict[bytes, str] = field(default_factory=dict)
    # Plain passwords (index into `users`), hashed outside the transaction.
    passwords: dict[int, str] = field(default_factory=dict)

    def claim(self, table: str, entity_id: uuid.UUID, path: str) -> None:
        seen = self.id_paths.setdefault(table, {})
        first = seen.get(entity_id)
        if first is not None:
            raise fail(f"{path}.id", f"duplicate id {entity_id} (also at {first})")
        seen[entity_id] = path


@dataclass
class ProfileInfo:
    kinds: dict[str, str]
    data_types: dict[str, str]


@dataclass
class AccountScope:
    site_ids: set[uuid.UUID]
    network_ids: set[uuid.UUID]
    device_ids: set[uuid.UUID]


def to_time(text: str | None, now: datetime, path: str) -> datetime | None:
    if text is None:
        return None
    try:
        return resolve_time(text, now)
    except ValueError as exc:
        raise fail(path, str(exc)) from None


def eui(text: str, path: str) -> str:
    value = normalize_eui(text)
    if value is None:
        raise fail(path, "not 16 hex characters")
    return value


def builtins(value: Any) -> Any:
    return None if value is None else msgspec.to_builtins(value)


def check_world(world: WorldSpec, now: datetime) -> Rows:
    rows = Rows()
    for p_index, partner in enumerate(world.partners):
        check_partner(rows, partner, f"partners[{p_index}]", now)
    for name, times in (
        ("uplinks", [event.at for event in world.uplinks]),
        ("statusEvents", [event.at for event in world.status_events]),
        ("gatewayStats", [event.at for event in world.gateway_stats]),
    ):
        for index, at in enumerate(times):
            to_time(at, now, f"{name}[{index}].at")
    return rows


def check_partner(rows: Rows, partner: PartnerSpec, path: str, now: datetime) -> None:
    rows.claim("partners", partner.id, path)
    rows.partners.append(
        (
            partner.id,
            partner.name,
            partner.plan.api_write,
            partner.plan.retention_days,
            partner.tier.per_minute,
            partner.tier.per_day,
            partner.features.networks,
            partner.features.multi_site,
        )
    )
    for index, key in enumerate(partner.keys):
        check_key(rows, key, partner.id, None, f"{path}.keys[{index}]", now)
    rows.webhooks += check_webhooks(partner.webhooks, partner.id, None, path, rows.claim)

    for index, integration in enumerate(partner.integrations):
        item = f"{path}.integrations[{index}]"
        rows.claim("integrations", integration.id, item)
        token_hash = hash_secret(integration.token)
        if token_hash in rows.token_hash_paths:
            raise fail(f"{item}.token", f"same token as {rows.token_hash_paths[token_hash]}")
        rows.token_hash_paths[token_hash] = f"{item}.token"
        rows.integrations.append(integration_row(integration, partner.id, token_hash, item))

    user_ids: set[uuid.UUID] = set()
    email_keys: dict[str, str] = {}
    for index, user in enumerate(partner.users):
        item = f"{path}.users[{index}]"
        rows.claim("users", user.id, item)
        email_key = user.email.strip().lower()
        if not EMAIL.match(email_key):
            raise fail(f"{item}.email", "not an email address")
        if email_key in email_keys:
            raise fail(f"{item}.email", f"same email as {email_keys[email_key]}")
        email_keys[email_key] = f"{item}.email"
        user_ids.add(user.id)
        if user.password is not None:
            rows.passwords[len(rows.users)] = user.password
        rows.users.append(
            (
                user.id,
                partner.id,
                user.email,
                email_key,
                user.name,
                None,
                user.status,
                user.mfa_enabled,
                to_time(user.locked_until, now, f"{item}.lockedUntil"),
                to_time(user.last_login_at, now, f"{item}.lastLoginAt"),
            )
        )

    profiles: dict[uuid.UUID, ProfileInfo] = {}
    for index, profile in enumerate(partner.profiles):
        profiles[profile.id] = check_profile(rows, profile, partner.id, f"{path}.profiles[{index}]")

    dev_euis: dict[str, str] = {}
    gateway_euis: dict[str, str] = {}
    for index, device in enumerate(partner.inventory.devices):
        check_device(
            rows, device, partner.id, None, None, profiles, dev_euis,
            f"{path}.inventory.devices[{index}]", now,
        )  # fmt: skip
    for index, gateway in enumerate(partner.inventory.gateways):
        check_gateway(
            rows, gateway, partner.id, None, None, gateway_euis,
            f"{path}.inventory.gateways[{index}]",
        )  # fmt: skip

    pool_device_ids = {device.id for device in partner.inventory.devices}
    for index, sub_account in enumerate(partner.sub_accounts):
        check_sub_account(
            rows, sub_account, partner.id, profiles, user_ids, dev_euis, gateway_euis,
            pool_device_ids, f"{path}.subAccounts[{index}]", now,
        )  # fmt: skip


def integration_row(
    integration: IntegrationSpec, partner_id: uuid.UUID, token_hash: bytes, path: str
) -> tuple[Any, ...]:
    """The row of an integration; MQTT and gRPC belong to ChirpStack only."""
    mqtt, grpc = integration.mqtt, integration.grpc
    if integration.kind != "chirpstack" and mqtt is not None:
        raise fail(f"{path}.mqtt", "only a chirpstack integration has an MQTT broker")
    if integration.kind != "chirpstack" and grpc is not None:
        raise fail(f"{path}.grpc", "only a chirpstack integration has a gRPC API")
    return (
        integration.id,
        partner_id,
        integration.kind,
        token_hash,
        mqtt.url if mqtt else None,
        mqtt.topic if mqtt else None,
        mqtt.client_id if mqtt else None,
        grpc.url if grpc else None,
        grpc.api_token if grpc else None,
        grpc.tls if grpc else False,
    )


def check_key(
    rows: Rows,
    key: Any,
    partner_id: uuid.UUID,
    sub_account_id: uuid.UUID | None,
    path: str,
    now: datetime,
) -> None:
    rows.claim("api_keys", key.id, path)
    if not KEY_PATTERN.match(key.secret):
        raise fail(
            f"{path}.secret", "must be svc_live_ followed by at least 32 URL-safe characters"
        )
    key_hash = hash_secret(key.secret)
    if key_hash in rows.key_hash_paths:
        raise fail(f"{path}.secret", f"same secret as {rows.key_hash_paths[key_hash]}")
    rows.key_hash_paths[key_hash] = f"{path}.secret"
    scopes: list[str] = []
    for index, scope in enumerate(key.scopes):
        if scope not in ALL_SCOPES:
            raise fail(f"{path}.scopes[{index}]", f"unknown scope {scope!r}")
        if scope not in scopes:
            scopes.append(scope)
    expires_at = to_time(key.expires_at, now, f"{path}.expiresAt")
    rows.api_keys.append(
        (
            key.id,
            partner_id,
            sub_account_id,
            key.name,
            key_hash,
            scopes,
            expires_at,
            now if key.revoked else None,
        )
    )
    detail = {
        "keyId": str(key.id),
        "name": key.name,
        "subAccountId": None if sub_account_id is None else str(sub_account_id),
        "scopes": scopes,
        "source": "world",
    }
    rows.audit.append((partner_id, "key.created", detail))
    if key.revoked:
        rows.audit.append((partner_id, "key.revoked", {"keyId": str(key.id), "source": "world"}))


def check_profile(
    rows: Rows, profile: ProfileSpec, partner_id: uuid.UUID, path: str
) -> ProfileInfo:
    rows.claim("device_profiles", profile.id, path)
    rows.profiles.append((profile.id, partner_id, profile.name, profile.retain_last_value))
    info = ProfileInfo(kinds={}, data_types={})
    for index, spec in enumerate(profile.fields):
        item = f"{path}.fields[{index}]"
        if spec.identifier in RESERVED_IDENTIFIERS:
            raise fail(f"{item}.identifier", f"{spec.identifier!r} is reserved")
        if spec.identifier in info.kinds:
            raise fail(f"{item}.identifier", f"duplicate identifier {spec.identifier!r}")
        info.kinds[spec.identifier] = spec.kind
        info.data_types[spec.identifier] = spec.data_type
    for index, spec in enumerate(profile.fields):
        item = f"{path}.fields[{index}]"
        rows.claim("profile_fields", spec.id, item)
        if spec.role == "battery_pct" and spec.data_type != "number":
            raise fail(f"{item}.role", "battery_pct needs dataType number")
        allowed = MEASUREMENTS[spec.data_type]
        if spec.measurement is not None and spec.measurement not in allowed:
            raise fail(
                f"{item}.measurement",
                f"a {spec.data_type} field takes "
                + (" or ".join(allowed) if allowed else "no measurement"),
            )
        if spec.kind == "formula":
            if not spec.formula or not spec.formula.strip():
                raise fail(f"{item}.formula", "required for a formula field")
            try:
                ast.parse(spec.formula.strip(), mode="eval")
            except SyntaxError:
                raise fail(f"{item}.formula", "not a valid expression") from None
        if spec.kind == "mapping":
            if not spec.source:
                raise fail(f"{item}.source", "required for a mapping field")
            if spec.map is None:
                raise fail(f"{item}.map", "required for a mapping field")
        if spec.source is not None and spec.source not in info.kinds:
            raise fail(f"{item}.source", f"no field {spec.source!r} in this profile")
        if spec.source == spec.identifier:
            raise fail(f"{item}.source", "a field cannot map itself")
        rows.fields.append(
            (
                spec.id,
                profile.id,
                index,
                spec.identifier,
                spec.label if spec.label is not None else spec.identifier,
                spec.unit or "",
                spec.data_type,
                spec.kind,
                spec.role,
                spec.formula.strip() if spec.formula else None,
                spec.source,
                spec.map,
                spec.default,
                spec.measurement,
            )
        )
    template_keys: set[str] = set()
    for index, template in enumerate(profile.downlink_templates):
        item = f"{path}.downlinkTemplates[{index}]"
        rows.claim("downlink_templates", template.id, item)
        if template.key in template_keys:
            raise fail(f"{item}.key", f"duplicate template key {template.key!r}")
        template_keys.add(template.key)
        layout_fields: list[str] = []
        for l_index, part in enumerate(template.layout):
            if part.field in layout_fields:
                raise fail(f"{item}.layout[{l_index}].field", f"duplicate field {part.field!r}")
            layout_fields.append(part.field)
        for name in template.sample_data:
            if name not in layout_fields:
                raise fail(f"{item}.sampleData.{name}", "not a field of the layout")
        rows.templates.append(
            (
                template.id,
                profile.id,
                template.key,
                template.name,
                template.f_port,
                template.confirmed,
                builtins(template.layout),
                template.sample_data,
            )
        )
    for index, rule in enumerate(profile.alert_rules):
        item = f"{path}.alertRules[{index}]"
        if rule.field not in info.kinds:
            raise fail(f"{item}.field", f"no field {rule.field!r} in this profile")
        if rule.value is None:
            raise fail(f"{item}.value", "required")
        rows.alert_rules.append((profile.id, rule.field, rule.op, rule.value, rule.level))
    return info


def check_sub_account(
    rows: Rows,
    sub_account: SubAccountSpec,
    partner_id: uuid.UUID,
    profiles: dict[uuid.UUID, ProfileInfo],
    user_ids: set[uuid.UUID],
    dev_euis: dict[str, str],
    gateway_euis: dict[str, str],
    pool_device_ids: set[uuid.UUID],
    path: str,
    now: datetime,
) -> None:
    rows.claim("sub_accounts", sub_account.id, path)
    tier = sub_account.tier
    features = sub_account.features
    rows.sub_accounts.append(
        (
            sub_account.id,
            partner_id,
            sub_account.name,
            sub_account.status,
            tier.per_minute if tier else None,
            tier.per_day if tier else None,
            features.networks if features else None,
            features.multi_site if features else None,
            sub_account.member_limit,
        )
    )
    for index, key in enumerate(sub_account.keys):
        check_key(rows, key, partner_id, sub_account.id, f"{path}.keys[{index}]", now)
    rows.webhooks += check_webhooks(
        sub_account.webhooks, partner_id, sub_account.id, path, rows.claim
    )

    scope = AccountScope(site_ids=set(), network_ids=set(), device_ids=set())
    check_sites(rows, sub_account, scope, path)

    for index, network in enumerate(sub_account.networks):
        item = f"{path}.networks[{index}]"
        rows.claim("networks", network.id, item)
        if network.site_id is not None and network.site_id not in scope.site_ids:
            raise fail(f"{item}.siteId", "not a site of this sub-account")
        scope.network_ids.add(network.id)
        rows.networks.append((network.id, sub_account.id, network.site_id, network.name))

    for index, gateway in enumerate(sub_account.gateways):
        check_gateway(
            rows, gateway, partner_id, sub_account.id, scope, gateway_euis,
            f"{path}.gateways[{index}]",
        )  # fmt: skip
    for index, device in enumerate(sub_account.devices):
        check_device(
            rows, device, partner_id, sub_account.id, scope, profiles, dev_euis,
            f"{path}.devices[{index}]", now,
        )  # fmt: skip

    members: set[uuid.UUID] = set()
    for index, member in enumerate(sub_account.members):
        item = f"{path}.members[{index}]"
        if member.user_id not in user_ids:
            raise fail(f"{item}.userId", "not a user of this partner")
        if member.user_id in members:
            raise fail(f"{item}.userId", "already a member of this sub-account")
        members.add(member.user_id)
        if member.site_id is not None and member.site_id not in scope.site_ids:
            raise fail(f"{item}.siteId", "not a site of this sub-account")
        rows.memberships.append((sub_account.id, member.user_id, member.role, member.site_id))

    for index, group in enumerate(sub_account.multicast_groups):
        item = f"{path}.multicastGroups[{index}]"
        rows.claim("multicast_groups", group.id, item)
        rows.multicast_groups.append((group.id, sub_account.id, group.name))
        seen: set[uuid.UUID] = set()
        for d_index, device_id in enumerate(group.device_ids):
            # A member in the partner's inventory stays listed (api-spec 2.9) and is skipped
            # when the group is executed, so a group may name one.
            if device_id not in scope.device_ids and device_id not in pool_device_ids:
                raise fail(
                    f"{item}.deviceIds[{d_index}]",
                    "not a device of this sub-account or of the partner's inventory",
                )
            if device_id in seen:
                raise fail(f"{item}.deviceIds[{d_index}]", "listed twice")
            seen.add(device_id)
            rows.multicast_members.append((group.id, device_id))


def check_sites(rows: Rows, sub_account: SubAccountSpec, scope: AccountScope, path: str) -> None:
    parents: dict[uuid.UUID, uuid.UUID | None] = {}
    paths: dict[uuid.UUID, str] = {}
    for index, site in enumerate(sub_account.sites):
        item = f"{path}.sites[{index}]"
        rows.claim("sites", site.id, item)
        parents[site.id] = site.parent_site_id
        paths[site.id] = item
    scope.site_ids.update(parents)
    depths: dict[uuid.UUID, int] = {}
    for site in sub_account.sites:
        chain: list[uuid.UUID] = []
        current: uuid.UUID | None = site.id
        while current is not None and current not in depths:
            if current in chain:
                raise fail(f"{paths[current]}.parentSiteId", "sites form a cycle")
            chain.append(current)
            parent = parents[current]
            if parent is not None and parent not in parents:
                raise fail(f"{paths[current]}.parentSiteId", "not a site of this sub-account")
            current = parent
        depth = 0 if current is None else depths[current]
        for site_id in reversed(chain):
            depth += 1
            if depth > MAX_SITE_DEPTH:
                raise fail(
                    f"{paths[site_id]}.parentSiteId",
                    f"sites nest at most {MAX_SITE_DEPTH} levels deep",
                )
            depths[site_id] = depth
    # Parents first, so the foreign key holds row by row.
    for site in sorted(sub_account.sites, key=lambda s: depths[s.id]):
        rows.sites.append(
            (site.id, sub_account.id, site.parent_site_id, site.name, depths[site.id])
        )


def check_placement(spec: DeviceSpec | GatewaySpec, scope: AccountScope | None, path: str) -> str:
    """The status, network and site of a device or gateway where it is listed."""
    if scope is None:
        if spec.network_id is not None:
            raise fail(f"{path}.networkId", "an inventory item has no network")
        if spec.site_id is not None:
            raise fail(f"{path}.siteId", "an inventory item has no site")
        status = spec.status or "inventory"
        if status == DeviceStatus.ASSIGNED:
            raise fail(f"{path}.status", "an assigned item belongs under a sub-account")
        return status
    if spec.network_id is not None and spec.network_id not in scope.network_ids:
        raise fail(f"{path}.networkId", "not a network of this sub-account")
    if spec.site_id is not None and spec.site_id not in scope.site_ids:
        raise fail(f"{path}.siteId", "not a site of this sub-account")
    status = spec.status or DeviceStatus.ASSIGNED.value
    if status == "inventory":
        raise fail(f"{path}.status", "an inventory item belongs under the partner's inventory")
    return status


def unique_eui(text: str, field: str, name: str, seen: dict[str, str], path: str) -> str:
    """The item's EUI in canonical form, refused when another item of the world has it
    (`seen` maps each EUI to the path of the item that has it)."""
    value = eui(text, f"{path}.{field}")
    if value in seen:
        raise fail(f"{path}.{field}", f"same {name} as {seen[value]}")
    seen[value] = path
    return value


def check_gateway(
    rows: Rows,
    gateway: GatewaySpec,
    partner_id: uuid.UUID,
    sub_account_id: uuid.UUID | None,
    scope: AccountScope | None,
    gateway_euis: dict[str, str],
    path: str,
) -> None:
    rows.claim("gateways", gateway.id, path)
    gateway_eui = unique_eui(gateway.gateway_eui, "gatewayEui", "GatewayEUI", gateway_euis, path)
    status = check_placement(gateway, scope, path)
    rows.gateways.append(
        (
            gateway.id,
            partner_id,
            sub_account_id,
            gateway_eui,
            gateway.name,
            status,
            gateway.network_id,
            gateway.site_id,
            builtins(gateway.location),
        )
    )


def check_device(
    rows: Rows,
    device: DeviceSpec,
    partner_id: uuid.UUID,
    sub_account_id: uuid.UUID | None,
    scope: AccountScope | None,
    profiles: dict[uuid.UUID, ProfileInfo],
    dev_euis: dict[str, str],
    path: str,
    now: datetime,
) -> None:
    rows.claim("devices", device.id, path)
    dev_eui = unique_eui(device.dev_eui, "devEui", "DevEUI", dev_euis, path)
    profile = profiles.get(device.device_profile_id)
    if profile is None:
        raise fail(f"{path}.deviceProfileId", "not a device profile of this partner")
    status = check_placement(device, scope, path)
    if scope is not None:
        scope.device_ids.add(device.id)
    for name in device.static:
        if profile.kinds.get(name) != "static":
            raise fail(f"{path}.static.{name}", "not a static field of the device's profile")
    for name in device.calibration:
        if profile.data_types.get(name) != "number" or profile.kinds.get(name) != "decoded":
            raise fail(
                f"{path}.calibration.{name}", "not a decoded number field of the device's profile"
            )
    rows.devices.append(
        (
            device.id,
            partner_id,
            sub_account_id,
            dev_eui,
            device.name,
            device.serial_number,
            status,
            device.device_profile_id,
            device.network_id,
            device.site_id,
            device.offline_threshold_minutes,
            device.downlink_rate_per_hour,
            device.downlink_expiry_seconds,
            builtins(device.location),
            now if device.location is not None else None,
            device.static,
            builtins(device.calibration),
        )
    )
