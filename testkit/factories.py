"""Builders of world files (operations.md section 2) for tests and benchmarks.

Every builder returns the dict it adds to the world, so a test can read ids and tweak
values before `load`. Defaults make a valid world: unique names, random EUIs, fresh ids.
Overrides use the world file's own key names (camelCase).

Below the builders: `load`/`loaded` load a world (tests/support/worlds.py makes a fixture
of it), `partner_key` makes and loads the one-partner world most auth tests start from, and
`Writer`, `Switched`, `ReadKeys`/`ReadDevices` are the starts several modules share.
"""

from __future__ import annotations

import itertools
import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, TypeVar

import asyncpg

from app.core.db import init_connection
from app.world.loader import load_world
from app.world.structs import ACTIVE_SCOPES, WorldSummary

Entity = dict[str, Any]


def new_id() -> str:
    return str(uuid.uuid4())


def new_eui() -> str:
    return secrets.token_hex(8)


def new_key_secret() -> str:
    return "svc_live_" + secrets.token_urlsafe(32)


class Secret(str):
    """A key or token as the string a client sends, with the id it was created under."""

    id: str

    def __new__(cls, value: str, entity_id: str) -> Secret:
        instance = super().__new__(cls, value)
        instance.id = entity_id
        return instance


class World:
    def __init__(self) -> None:
        self.partners: list[Entity] = []
        self.uplinks_list: list[Entity] = []
        self.status_events_list: list[Entity] = []
        self.gateway_stats_list: list[Entity] = []
        self._serial = itertools.count(1)
        # Which partner each sub-account belongs to, by id: owners are plain dicts.
        self._partner_of: dict[str, Entity] = {}

    def _n(self) -> int:
        return next(self._serial)

    @staticmethod
    def _add(into: list[Entity], entity: Entity, overrides: dict[str, Any]) -> Entity:
        """`entity` with the caller's `overrides`, added to the list that holds its kind."""
        entity.update(overrides)
        into.append(entity)
        return entity

    def _named(
        self, into: list[Entity], kind: str, overrides: dict[str, Any], **fields: Any
    ) -> Entity:
        """A new `kind` with an id, a numbered name (`Site 3`), `fields` and the caller's
        `overrides`, added to `into`."""
        entity: Entity = {"id": new_id(), "name": f"{kind} {self._n()}", **fields}
        return self._add(into, entity, overrides)

    def _is_partner(self, owner: Entity) -> bool:
        return any(owner is partner for partner in self.partners)

    def partner_of(self, owner: Entity) -> Entity:
        return owner if self._is_partner(owner) else self._partner_of[owner["id"]]

    # Tenancy -----------------------------------------------------------------------------

    def partner(self, **overrides: Any) -> Entity:
        return self._named(
            self.partners,
            "Partner",
            overrides,
            keys=[],
            integrations=[],
            users=[],
            profiles=[],
            inventory={"devices": [], "gateways": []},
            subAccounts=[],
        )

    def sub_account(self, partner: Entity, **overrides: Any) -> Entity:
        lists = ("keys", "sites", "networks", "gateways", "devices", "members", "multicastGroups")
        empty: dict[str, Any] = {name: [] for name in lists}
        sub_account = self._named(partner["subAccounts"], "Customer", overrides, **empty)
        self._partner_of[sub_account["id"]] = partner
        return sub_account

    def tenancy(self, *sub_accounts: dict[str, Any], **overrides: Any) -> tuple[Entity, ...]:
        """A partner (with `overrides`) and one sub-account per dict of overrides given, in
        that order: (partner, *sub_accounts)."""
        partner = self.partner(**overrides)
        return (partner, *(self.sub_account(partner, **sub) for sub in sub_accounts))

    def tenancy_with_device(
        self, fields: list[Entity] | None = None, **overrides: Any
    ) -> tuple[Entity, Entity, Entity]:
        """A partner (with `overrides`) with one sub-account and one device assigned to it,
        of a new profile of the partner's with `fields` (as `profile` takes them):
        (partner, sub_account, device)."""
        partner, sub_account = self.tenancy({}, **overrides)
        device = self.device(sub_account, self.profile(partner, fields=fields))
        return partner, sub_account, device

    def keys(self, *owners: Entity, scopes: list[str]) -> list[Secret]:
        """One key per owner, in that order, all with the same scopes."""
        return [self.key(owner, scopes) for owner in owners]

    def key(self, owner: Entity, scopes: list[str] | None = None, **overrides: Any) -> Secret:
        """A key of a partner or sub-account; returns the secret (its `.id` is the key id)."""
        n = self._n()
        key: Entity = {
            "id": new_id(),
            "name": f"key {n}",
            "secret": new_key_secret(),
            "scopes": list(ACTIVE_SCOPES) if scopes is None else list(scopes),
        }
        key.update(overrides)
        owner["keys"].append(key)
        return Secret(key["secret"], key["id"])

    def integration(self, partner: Entity, **overrides: Any) -> Secret:
        """A ChirpStack integration; returns its token (its `.id` is the integration id)."""
        integration: Entity = {
            "id": new_id(),
            "kind": "chirpstack",
            "token": secrets.token_urlsafe(32),
        }
        integration.update(overrides)
        partner["integrations"].append(integration)
        return Secret(integration["token"], integration["id"])

    def user(self, partner: Entity, **overrides: Any) -> Entity:
        n = self._n()
        user: Entity = {
            "id": new_id(),
            "email": f"user{n}-{secrets.token_hex(3)}@example.com",
            "name": f"User {n}",
            "password": "correct horse battery staple",
        }
        return self._add(partner["users"], user, overrides)

    def member(
        self,
        sub_account: Entity,
        user: Entity,
        role: str = "subaccount_viewer",
        site: Entity | None = None,
        **overrides: Any,
    ) -> Entity:
        member: Entity = {
            "userId": user["id"],
            "role": role,
            "siteId": site["id"] if site else None,
        }
        return self._add(sub_account["members"], member, overrides)

    # Catalog -----------------------------------------------------------------------------

    def field(self, identifier: str, **overrides: Any) -> Entity:
        field: Entity = {
            "id": new_id(),
            "identifier": identifier,
            "label": identifier,
            "unit": "",
            "dataType": "number",
            "kind": "decoded",
        }
        field.update(overrides)
        return field

    def fields(self, **data_types: str) -> list[Entity]:
        """Decoded fields of the given data types by identifier, in the order given."""
        return [self.field(identifier, dataType=t) for identifier, t in data_types.items()]

    def formula(self, identifier: str, formula: str, **overrides: Any) -> Entity:
        """A field computed by `formula` over the profile's other fields."""
        return self.field(identifier, kind="formula", formula=formula, **overrides)

    def mapping(self, identifier: str, source: str, values: dict[str, str], default: str) -> Entity:
        """A string field mapping `source`'s value through `values` (`default` otherwise)."""
        return self.field(
            identifier,
            kind="mapping",
            dataType="string",
            source=source,
            map=values,
            default=default,
        )

    def profile(
        self, partner: Entity, fields: list[Entity] | None = None, **overrides: Any
    ) -> Entity:
        return self._named(
            partner["profiles"],
            "Profile",
            overrides,
            retainLastValue=False,
            fields=[self.field("temperature", unit="°C")] if fields is None else fields,
            downlinkTemplates=[],
            alertRules=[],
        )

    def downlink_template(self, profile: Entity, **overrides: Any) -> Entity:
        n = self._n()
        template: Entity = {
            "id": new_id(),
            "key": f"template_{n}",
            "name": f"Template {n}",
            "fPort": 10,
            "confirmed": False,
            "layout": [{"field": "minutes", "type": "uint16be"}],
            "sampleData": {"minutes": 15},
        }
        return self._add(profile["downlinkTemplates"], template, overrides)

    def alert_rule(
        self, profile: Entity, field: str, op: str, value: Any, level: str = "warning"
    ) -> Entity:
        rule: Entity = {"field": field, "op": op, "value": value, "level": level}
        profile["alertRules"].append(rule)
        return rule

    # Places ------------------------------------------------------------------------------

    def site(self, sub_account: Entity, parent: Entity | None = None, **overrides: Any) -> Entity:
        parent_id = parent["id"] if parent else None
        return self._named(sub_account["sites"], "Site", overrides, parentSiteId=parent_id)

    def network(self, sub_account: Entity, site: Entity | None = None, **overrides: Any) -> Entity:
        site_id = site["id"] if site else None
        return self._named(sub_account["networks"], "Network", overrides, siteId=site_id)

    # Equipment ---------------------------------------------------------------------------

    def device(
        self,
        owner: Entity,
        profile: Entity,
        network: Entity | None = None,
        site: Entity | None = None,
        **overrides: Any,
    ) -> Entity:
        """A device of a sub-account (assigned) or of a partner's inventory."""
        n = self._n()
        device: Entity = {
            "id": new_id(),
            "devEui": new_eui(),
            "name": f"Device {n}",
            "serialNumber": f"SN-{n:06d}",
            "deviceProfileId": profile["id"],
        }
        return self._equipment("devices", owner, device, network, site, overrides)

    def gateway(
        self,
        owner: Entity,
        network: Entity | None = None,
        site: Entity | None = None,
        **overrides: Any,
    ) -> Entity:
        """A gateway of a sub-account (assigned) or of a partner's inventory."""
        n = self._n()
        gateway: Entity = {"id": new_id(), "gatewayEui": new_eui(), "name": f"Gateway {n}"}
        return self._equipment("gateways", owner, gateway, network, site, overrides)

    def _equipment(
        self,
        kind: str,
        owner: Entity,
        item: Entity,
        network: Entity | None,
        site: Entity | None,
        overrides: dict[str, Any],
    ) -> Entity:
        """A device or gateway (`kind`, the world file's list) with its status and place,
        added to the sub-account's list or to the partner's inventory."""
        in_inventory = self._is_partner(owner)
        item["status"] = "inventory" if in_inventory else "assigned"
        if network is not None:
            item["networkId"] = network["id"]
        if site is not None:
            item["siteId"] = site["id"]
        into = owner["inventory"][kind] if in_inventory else owner[kind]
        return self._add(into, item, overrides)

    def multicast_group(
        self, sub_account: Entity, devices: list[Entity] | None = None, **overrides: Any
    ) -> Entity:
        ids = [device["id"] for device in devices or []]
        return self._named(sub_account["multicastGroups"], "Group", overrides, deviceIds=ids)

    # Telemetry ---------------------------------------------------------------------------

    def uplink(
        self,
        device: Entity,
        at: str = "now",
        values: dict[str, Any] | None = None,
        **overrides: Any,
    ) -> Entity:
        """One uplink; other keyword arguments are world-file keys: rssi, snr, gatewayEui, fPort."""
        uplink: Entity = {"device": device["id"], "at": at, "values": dict(values or {})}
        uplink.update(overrides)
        self.uplinks_list.append(uplink)
        return uplink

    def status_event(self, device: Entity, at: str = "now", battery: Any = 100) -> Entity:
        event: Entity = {"device": device["id"], "at": at, "battery": battery}
        self.status_events_list.append(event)
        return event

    def gateway_stats(self, gateway: Entity, at: str = "now") -> Entity:
        stats: Entity = {"gateway": gateway["id"], "at": at}
        self.gateway_stats_list.append(stats)
        return stats

    def to_dict(self) -> dict[str, Any]:
        world: dict[str, Any] = {"partners": self.partners}
        if self.uplinks_list:
            world["uplinks"] = self.uplinks_list
        if self.status_events_list:
            world["statusEvents"] = self.status_events_list
        if self.gateway_stats_list:
            world["gatewayStats"] = self.gateway_stats_list
        return world


async def load(pool_or_connection: Any, world: World, now: datetime | None = None) -> WorldSummary:
    """Loads the world through the real loader (one transaction)."""
    return await load_world(pool_or_connection, world.to_dict(), now)


async def load_into(database_url: str, world: World) -> WorldSummary:
    """Loads the world into another database than the test's pool (a second cluster, a
    placed shard), over a connection of its own with the app's codecs."""
    connection = await asyncpg.connect(database_url)
    await init_connection(connection)
    try:
        return await load(connection, world)
    finally:
        await connection.close()


async def partner_key(
    pool: asyncpg.Pool,
    scopes: list[str] | None = None,
    key: dict[str, Any] | None = None,
    **partner: Any,
) -> tuple[Entity, Secret]:
    """A world of one partner (`partner`: its overrides) with one key (`scopes`, and the
    key's other overrides in `key`), loaded: (partner, key)."""
    w = World()
    made = w.partner(**partner)
    secret = w.key(made, scopes, **(key or {}))
    await load(pool, w)
    return made, secret


@dataclass
class ReadKeys:
    """The keys a read route's tests ask with: the partner's, its sub-account's and
    another sub-account's, one without the route's scope, and another partner's."""

    partner_key: str
    sub_key: str
    other_sub_key: str
    no_scope_key: str
    foreign_key: str


def telemetry_keys(
    w: World,
    partner: Entity,
    sub: Entity,
    other_sub: Entity,
    foreign: Entity,
    partner_scopes: tuple[str, ...] = ("telemetry:read",),
) -> dict[str, Secret]:
    """The five ReadKeys of a telemetry read route's world, made in that order: with
    telemetry:read (the partner's with `partner_scopes`), the scope-less one with
    devices:read only."""
    return {
        "partner_key": w.key(partner, scopes=list(partner_scopes)),
        "sub_key": w.key(sub, scopes=["telemetry:read"]),
        "other_sub_key": w.key(other_sub, scopes=["telemetry:read"]),
        "no_scope_key": w.key(partner, scopes=["devices:read"]),
        "foreign_key": w.key(foreign, scopes=["telemetry:read"]),
    }


@dataclass
class ReadDevices(ReadKeys):
    """ReadKeys, and the devices a read route's tests ask about: one of the sub-account,
    one of the other sub-account, one in the inventory, one archived, another partner's."""

    device: dict[str, Any]
    other_device: dict[str, Any]
    inventory: dict[str, Any]
    archived: dict[str, Any]
    foreign: dict[str, Any]


class Writer:
    """A partner whose plan writes or not (30 days kept), with sub-accounts `sub` and
    `other_sub` and a `profile`: where the downlink tests' worlds start."""

    def __init__(self, api_write: bool = True) -> None:
        self.world = World()
        self.partner, self.sub, self.other_sub = self.world.tenancy(
            {}, {}, plan={"apiWrite": api_write, "retentionDays": 30}
        )
        self.profile = self.world.profile(self.partner)


class Switched:
    """Partner `p` with networks and multi-site on, and its sub-accounts `a` (as the
    partner) and `b` (both off): where the device and gateway listings' worlds start."""

    def __init__(self) -> None:
        self.world = World()
        on, off = {"networks": True, "multiSite": True}, {"networks": False, "multiSite": False}
        self.p, self.a, self.b = self.world.tenancy({}, {"features": off}, features=on)


class Built(Protocol):
    world: World


B = TypeVar("B", bound=Built)


async def loaded(pool: asyncpg.Pool, built: B) -> B:
    """Loads what `built` holds (its `.world`) and gives it back, for fixtures that go on
    to write state after the load."""
    await load(pool, built.world)
    return built
