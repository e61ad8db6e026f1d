"""A deterministic demo world (operations.md section 2): `python -m demo.world > world.json`.

One partner ("Northwind IoT", API write on, 90 days retention) with three sub-accounts:
Harbour Offices (sites three levels deep, networks, door and climate sensors, a multicast
group), Green Farms (energy and water meters and climate sensors, own tier) and City
Logistics (GPS trackers; networks and multi-site switched off for it). About 200 devices
over five profiles that use every field kind (decoded, static, formula, mapping) and every dataType
(number, string, boolean, date, location), a battery role, calibration, retained values,
alert rules and downlink templates; gateways, users and members (admins, a site-restricted
operator, an invited user without a password, a locked user), keys of every flavour with
fixed secrets (below), a ChirpStack integration token, a webhook endpoint (every event
to `telemetry webhooks listen` on 127.0.0.1:8001, scripts/demo.sh), and two days of
uplinks with status events and gateway stats, all at times relative to the load
(`now-PT...`).

Ids are UUIDv5 of fixed names and values come from a seeded generator, so every run
prints the same file.
"""

from __future__ import annotations

import json
import os
import random
import sys
import uuid
from typing import Any

from app.core.enums import RESERVED_SCOPES, Scope

NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://demo.telemetry.invalid/world")
SEED = 20260301

PARTNER_KEY = "svc_live_demo_partner_all_scopes_0000000000000000"
PARTNER_READ_KEY = "svc_live_demo_partner_read_only_0000000000000000"
HARBOUR_KEY = "svc_live_demo_harbour_offices_000000000000000000"
FARMS_KEY = "svc_live_demo_green_farms_000000000000000000000000"
LOGISTICS_KEY = "svc_live_demo_city_logistics_0000000000000000000"
EXPIRED_KEY = "svc_live_demo_expired_key_000000000000000000000000"
REVOKED_KEY = "svc_live_demo_revoked_key_000000000000000000000000"
INTEGRATION_TOKEN = "demo-chirpstack-token-0000000000000000"  # noqa: S105 (a published demo token)
# The demo's webhook endpoint: `telemetry webhooks listen` on this port (scripts/demo.sh,
# which passes its WEBHOOK_PORT on; a world already loaded keeps the port it was loaded with).
WEBHOOK_PORT = int(os.environ.get("WEBHOOK_PORT") or 8001)
WEBHOOK_SECRET = "whsec_ZGVtby13ZWJob29rLXNlY3JldC0wMDAwMDAwMDAwMDAw"  # noqa: S105 (published)
DEMO_PASSWORD = "demo password 2026"  # noqa: S105 (a published demo password)

# Every scope a route checks (the reserved ones give nothing yet), and the read-only ones.
ALL_SCOPES = [str(scope) for scope in Scope if scope not in RESERVED_SCOPES]
READ_SCOPES = [str(Scope.DEVICES_READ), str(Scope.TELEMETRY_READ), str(Scope.PROFILES_READ)]

HOURS = 48
UPLINK_EVERY_MINUTES = 240
# Water meters report hourly, so that a day's consumption (agg=increase) has readings to
# add up; about one uplink in 40 follows a reset (a battery change starts the count anew).
WATER_EVERY_MINUTES = 60
WATER_RESET_CHANCE = 1 / 40


def ident(kind: str, name: str | int) -> str:
    return str(uuid.uuid5(NAMESPACE, f"{kind}:{name}"))


def field(
    identifier: str, label: str, unit: str, data_type: str, kind: str, **more: Any
) -> dict[str, Any]:
    return {
        "identifier": identifier,
        "label": label,
        "unit": unit,
        "dataType": data_type,
        "kind": kind,
        **more,
    }


def formula(identifier: str, label: str, unit: str, expression: str) -> dict[str, Any]:
    """A number field computed from the others of its profile."""
    return field(identifier, label, unit, "number", "formula", formula=expression)


def profile(
    code: str, name: str, retain: bool, fields: list[dict[str, Any]], **more: Any
) -> dict[str, Any]:
    """A device profile named once by its model code, which makes its and its fields' ids."""
    return {
        "id": ident("profile", code),
        "name": name,
        "retainLastValue": retain,
        "fields": [{"id": ident("field", f"{code}.{f['identifier']}"), **f} for f in fields],
        **more,
    }


def profiles() -> list[dict[str, Any]]:
    # Every battery-powered model reports its charge the same way.
    battery = field("battery", "Battery", "%", "number", "decoded", role="battery_pct")
    interval = {
        "id": "",
        "key": "set_interval",
        "name": "Set reporting interval",
        "fPort": 10,
        "confirmed": False,
        "layout": [{"field": "minutes", "type": "uint16be"}],
        "sampleData": {"minutes": 15},
    }
    return [
        profile(
            "TH-100",
            "TH-100 climate",
            False,
            [
                field("temperature", "Temperature", "°C", "number", "decoded"),
                field("humidity", "Humidity", "%", "number", "decoded"),
                battery,
                formula("temp_f", "Temperature (°F)", "°F", "temperature * 9 / 5 + 32"),
                field("installed", "Installed", "", "date", "static", default="2026-01-01"),
            ],
            downlinkTemplates=[{**interval, "id": ident("template", "TH-100.interval")}],
            alertRules=[
                {"field": "temperature", "op": ">", "value": 28, "level": "warning"},
                {"field": "temperature", "op": "<", "value": 5, "level": "alert"},
                {"field": "battery", "op": "<", "value": 20, "level": "info"},
            ],
        ),
        profile(
            "DOOR-20",
            "DOOR-20 door sensor",
            True,
            [
                field("door_raw", "Door contact", "", "number", "decoded"),
                field(
                    "door",
                    "Door",
                    "",
                    "string",
                    "mapping",
                    # A state: agg=duration&state=open gives the seconds a door stood open.
                    measurement="state",
                    source="door_raw",
                    map={"0": "closed", "1": "open"},
                    default="unknown",
                ),
                field("tamper", "Tamper", "", "boolean", "decoded"),
                battery,
                field("room", "Room", "", "string", "static", default="unassigned"),
            ],
            downlinkTemplates=[
                {**interval, "id": ident("template", "DOOR-20.interval")},
                {
                    "id": ident("template", "DOOR-20.buzzer"),
                    "key": "buzzer",
                    "name": "Sound the buzzer",
                    "fPort": 12,
                    "confirmed": True,
                    "layout": [
                        {"field": "on", "type": "bool8"},
                        {"field": "seconds", "type": "uint8"},
                    ],
                    "sampleData": {"on": True, "seconds": 5},
                },
            ],
            alertRules=[
                {"field": "door", "op": "==", "value": "open", "level": "warning"},
                {"field": "tamper", "op": "==", "value": True, "level": "alert"},
            ],
        ),
        profile(
            "EM-3",
            "EM-3 energy meter",
            True,
            [
                field("energy_kwh", "Energy", "kWh", "number", "decoded", measurement="counter"),
                field("power_w", "Power", "W", "number", "decoded"),
                formula("power_kw", "Power (kW)", "kW", "power_w / 1000"),
                field("state", "State", "", "string", "decoded"),
                field("phase_count", "Phases", "", "number", "static", default=3),
            ],
            downlinkTemplates=[
                {
                    "id": ident("template", "EM-3.limit"),
                    "key": "set_limit",
                    "name": "Set power limit",
                    "fPort": 20,
                    "confirmed": False,
                    "layout": [{"field": "watts", "type": "uint32be"}],
                    "sampleData": {"watts": 11000},
                }
            ],
            alertRules=[{"field": "power_w", "op": ">=", "value": 9000, "level": "warning"}],
        ),
        profile(
            "GT-5",
            "GT-5 GPS tracker",
            True,
            [
                field("position", "Position", "", "location", "decoded"),
                field("speed", "Speed", "km/h", "number", "decoded"),
                field("moving", "Moving", "", "boolean", "decoded"),
                battery,
                formula("speed_ms", "Speed (m/s)", "m/s", "speed / 3.6"),
                field("firmware", "Firmware", "", "string", "static", default="1.4.2"),
            ],
            downlinkTemplates=[{**interval, "id": ident("template", "GT-5.interval")}],
            alertRules=[{"field": "speed", "op": ">", "value": 90, "level": "alert"}],
        ),
        profile(
            "WM-2",
            "WM-2 water meter",
            True,
            [
                # A running total that the meter starts anew after a reset: agg=increase
                # gives the consumption per bucket, the resets counted.
                field("volume_m3", "Volume", "m³", "number", "decoded", measurement="counter"),
                field("flow_lph", "Flow", "l/h", "number", "decoded"),
                field("leak", "Leak", "", "boolean", "decoded"),
                battery,
            ],
            alertRules=[{"field": "leak", "op": "==", "value": True, "level": "alert"}],
        ),
    ]


class Builder:
    def __init__(self) -> None:
        self.rng = random.Random(SEED)
        self.device_n = 0
        self.gateway_n = 0
        self.uplinks: list[dict[str, Any]] = []
        self.status_events: list[dict[str, Any]] = []
        self.gateway_stats: list[dict[str, Any]] = []

    def gateway(
        self, name: str, network: str | None, site: str | None, lat: float, lon: float
    ) -> dict[str, Any]:
        self.gateway_n += 1
        gateway: dict[str, Any] = {
            "id": ident("gateway", self.gateway_n),
            "gatewayEui": f"0016c001ff{self.gateway_n:06x}",
            "name": name,
            "location": {"latitude": lat, "longitude": lon, "altitude": 12.0},
        }
        if network:
            gateway["networkId"] = network
        if site:
            gateway["siteId"] = site
        return gateway

    def device(self, name: str, profile: str, **more: Any) -> dict[str, Any]:
        self.device_n += 1
        return {
            "id": ident("device", self.device_n),
            "devEui": f"70b3d57ed0{self.device_n:06x}",
            "name": name,
            "serialNumber": f"NW-{self.device_n:05d}",
            "deviceProfileId": ident("profile", profile),
            **more,
        }

    def report(
        self, device: dict[str, Any], kind: str, gateway: dict[str, Any], silent_minutes: int
    ) -> None:
        """Uplinks every few hours over two days, the newest `silent_minutes` ago."""
        rng = self.rng
        base_temp = rng.uniform(18, 24)
        battery = rng.uniform(40, 100)
        energy = rng.uniform(1000, 50000)
        lat, lon = 51.9 + rng.uniform(0, 0.2), 4.4 + rng.uniform(0, 0.2)
        every = WATER_EVERY_MINUTES if kind == "water" else UPLINK_EVERY_MINUTES
        minutes_ago = HOURS * 60 - rng.randrange(every)
        moments: list[int] = []
        while minutes_ago > silent_minutes:
            moments.append(minutes_ago)
            minutes_ago -= every
        moments.append(silent_minutes)
        for ago in moments:
            battery = max(1.0, battery - rng.uniform(0, 0.3))
            values: dict[str, Any]
            if kind == "climate":
                values = {
                    "temperature": round(base_temp + rng.uniform(-3, 3), 2),
                    "humidity": round(rng.uniform(35, 65), 1),
                    "battery": round(battery),
                }
            elif kind == "door":
                values = {
                    "door_raw": rng.choice([0, 0, 0, 1]),
                    "tamper": rng.random() < 0.02,
                    "battery": round(battery),
                }
            elif kind == "water":
                if rng.random() < WATER_RESET_CHANCE:
                    energy = 0.0  # a reset: the count starts anew
                flow = rng.choice([0.0, 0.0, rng.uniform(20, 900)])
                energy += flow / 1000
                values = {
                    "volume_m3": round(energy, 3),
                    "flow_lph": round(flow, 1),
                    "leak": rng.random() < 0.01,
                    "battery": round(battery),
                }
            elif kind == "meter":
                energy += rng.uniform(0.5, 4)
                values = {
                    "energy_kwh": round(energy, 3),
                    "power_w": round(rng.uniform(200, 9500), 1),
                    "state": rng.choice(["normal", "normal", "normal", "peak"]),
                }
            else:
                lat += rng.uniform(-0.01, 0.01)
                lon += rng.uniform(-0.01, 0.01)
                speed = round(rng.choice([0, 0, rng.uniform(5, 100)]), 1)
                values = {
                    "position": {
                        "latitude": round(lat, 6),
                        "longitude": round(lon, 6),
                        "altitude": None,
                    },
                    "speed": speed,
                    "moving": speed > 0,
                    "battery": round(battery),
                }
            self.uplinks.append(
                {
                    "device": device["id"],
                    "at": f"now-PT{ago}M",
                    "values": values,
                    "rssi": round(rng.uniform(-118, -60)),
                    "snr": round(rng.uniform(-12, 10), 1),
                    "gatewayEui": gateway["gatewayEui"],
                    "fPort": 1,
                }
            )


def build() -> dict[str, Any]:
    b = Builder()
    rng = b.rng

    # Harbour Offices: a campus three levels deep, climate and door sensors.
    campus = ident("site", "harbour.campus")
    buildings = [ident("site", f"harbour.building.{n}") for n in "AB"]
    floors = [ident("site", f"harbour.floor.{b_n}.{f}") for b_n in "AB" for f in (1, 2, 3)]
    harbour_sites = [{"id": campus, "name": "Harbour Campus", "parentSiteId": None}]
    harbour_sites += [
        {"id": site, "name": f"Building {n}", "parentSiteId": campus}
        for site, n in zip(buildings, "AB", strict=True)
    ]
    harbour_sites += [
        {
            "id": floors[i],
            "name": f"Building {'AB'[i // 3]} floor {i % 3 + 1}",
            "parentSiteId": buildings[i // 3],
        }
        for i in range(6)
    ]
    harbour_nets = [
        {"id": ident("network", "harbour.a"), "name": "Harbour A", "siteId": buildings[0]},
        {"id": ident("network", "harbour.b"), "name": "Harbour B", "siteId": buildings[1]},
    ]
    harbour_gws = [
        b.gateway("Harbour GW A", harbour_nets[0]["id"], buildings[0], 51.905, 4.46),
        b.gateway("Harbour GW B", harbour_nets[1]["id"], buildings[1], 51.906, 4.47),
    ]
    harbour_devices: list[dict[str, Any]] = []
    door_ids: list[str] = []
    for i in range(90):
        floor = i % 6
        is_door = i % 3 == 2
        device = b.device(
            f"{'Door' if is_door else 'Climate'} {'AB'[floor // 3]}{floor % 3 + 1}-{i:02d}",
            "DOOR-20" if is_door else "TH-100",
            networkId=harbour_nets[floor // 3]["id"],
            siteId=floors[floor],
            offlineThresholdMinutes=60 if is_door else 30,
        )
        if is_door:
            device["static"] = {"room": f"Room {floor % 3 + 1}{i:02d}"}
            door_ids.append(device["id"])
        else:
            device["static"] = {"installed": f"2026-0{1 + i % 3}-1{i % 9}"}
            if i % 10 == 0:
                device["calibration"] = {"temperature": {"scale": 1.0, "offset": -0.4}}
        if i == 0:
            device["location"] = {"latitude": 51.9051, "longitude": 4.4612, "altitude": 3.5}
        if i >= 86:
            device["status"] = "archived"
        harbour_devices.append(device)

    # Green Farms: meters and climate sensors, two sites, one network.
    farm = ident("site", "farms.main")
    farm_sites: list[dict[str, Any]] = [
        {"id": farm, "name": "Main farm", "parentSiteId": None},
        {"id": ident("site", "farms.barn"), "name": "Barn", "parentSiteId": farm},
        {"id": ident("site", "farms.greenhouse"), "name": "Greenhouse", "parentSiteId": farm},
    ]
    farm_net = {"id": ident("network", "farms"), "name": "Farm LoRa", "siteId": farm}
    farm_gws = [b.gateway("Farm GW", farm_net["id"], farm, 52.01, 4.7)]
    farm_devices = []
    for i in range(60):
        is_meter = i % 2 == 0
        # Every third meter measures water, the others energy.
        model = ("WM-2" if i % 6 == 4 else "EM-3") if is_meter else "TH-100"
        name = {"WM-2": "Water meter", "EM-3": "Meter", "TH-100": "Greenhouse climate"}[model]
        farm_devices.append(
            b.device(
                f"{name} {i:02d}",
                model,
                networkId=farm_net["id"],
                siteId=farm_sites[1 + i % 2]["id"],
                downlinkRatePerHour=10 if is_meter else 30,
                downlinkExpirySeconds=3600 if is_meter else None,
                **(
                    {"calibration": {"power_w": {"scale": 1.02}}}
                    if i % 8 == 0 and model == "EM-3"
                    else {}
                ),
            )
        )
    farm_devices[-1]["status"] = "archived"

    # City Logistics: trackers, no networks or sites (both features off for it).
    logistics_gws = [b.gateway("Depot GW", None, None, 52.37, 4.89)]
    logistics_devices = [b.device(f"Van {i:02d}", "GT-5") for i in range(30)]

    # The partner's pool.
    inventory_devices = [
        b.device(f"Spare {i:02d}", ["TH-100", "DOOR-20", "EM-3", "GT-5"][i % 4]) for i in range(20)
    ]
    inventory_devices[-1]["status"] = "archived"
    inventory_gws = [b.gateway("Spare GW", None, None, 52.0, 4.5)]

    # Telemetry: most devices report recently; a few went quiet hours ago.
    accounts = (
        (harbour_devices, harbour_gws),
        (farm_devices, farm_gws),
        (logistics_devices, logistics_gws),
    )
    kinds = {
        ident("profile", "TH-100"): "climate",
        ident("profile", "DOOR-20"): "door",
        ident("profile", "EM-3"): "meter",
        ident("profile", "GT-5"): "tracker",
        ident("profile", "WM-2"): "water",
    }
    for devices, gateways in accounts:
        for index, device in enumerate(devices):
            if device.get("status") == "archived" or index % 29 == 28:
                continue  # archived, or never reported
            silent = rng.randrange(1, 15) if index % 11 else rng.randrange(120, 600)
            b.report(
                device, kinds[device["deviceProfileId"]], gateways[index % len(gateways)], silent
            )
    for index, device in enumerate(farm_devices):
        if (
            kinds[device["deviceProfileId"]] in ("meter", "water")
            and device.get("status") != "archived"
        ):
            b.status_events.append(
                {"device": device["id"], "at": "now-PT30M", "battery": "external"}
            )
        elif index % 7 == 1:
            b.status_events.append(
                {"device": device["id"], "at": "now-PT2H", "battery": rng.randrange(20, 100)}
            )
    b.status_events.append(
        {"device": logistics_devices[0]["id"], "at": "now-PT1H", "battery": "unavailable"}
    )
    for gateway in harbour_gws + farm_gws:
        b.gateway_stats.append({"gateway": gateway["id"], "at": "now-PT5M"})
    b.gateway_stats.append({"gateway": logistics_gws[0]["id"], "at": "now-PT3H"})
    b.uplinks.sort(key=lambda u: -int(u["at"][6:-1]))

    users = [
        user("ana", "Ana Admin", "ana@harbour.example"),
        user("olaf", "Olaf Operator", "olaf@harbour.example"),
        user("vera", "Vera Viewer", "vera@harbour.example", mfaEnabled=True),
        user("finn", "Finn Farmer", "finn@farms.example", lastLoginAt="now-P1D"),
        user("lea", "Lea Logistics", "lea@logistics.example"),
        user(
            "ivan", "Ivan Invited", "ivan@harbour.example", password=None, status="pending_invite"
        ),
        user("lars", "Lars Locked", "lars@farms.example", lockedUntil="now+PT1H"),
        user("sam", "Sam Suspended", "sam@logistics.example", status="suspended"),
    ]
    uid = {u["email"].split("@")[0]: u["id"] for u in users}

    partner = {
        "id": ident("partner", "northwind"),
        "name": "Northwind IoT",
        "plan": {"apiWrite": True, "retentionDays": 90},
        "tier": {"perMinute": 600, "perDay": 100000},
        "features": {"networks": True, "multiSite": True},
        "keys": [
            key("partner.all", "Partner: everything", PARTNER_KEY, ALL_SCOPES),
            key("partner.read", "Partner: read only", PARTNER_READ_KEY, READ_SCOPES),
            key(
                "partner.expired", "Partner: expired", EXPIRED_KEY, READ_SCOPES, expiresAt="now-P1D"
            ),
            key("partner.revoked", "Partner: revoked", REVOKED_KEY, READ_SCOPES, revoked=True),
        ],
        "integrations": [
            {
                "id": ident("integration", "chirpstack"),
                "kind": "chirpstack",
                "token": INTEGRATION_TOKEN,
            }
        ],
        # Every event of the partner, to the demo's local receiver (plain http on loopback:
        # delivering to it needs TELEMETRY_WEBHOOKS_ALLOW_PRIVATE=1, which demo.sh sets).
        "webhooks": [
            {
                "id": ident("webhook", "listen"),
                "url": f"http://127.0.0.1:{WEBHOOK_PORT}/events",
                "secret": WEBHOOK_SECRET,
                "events": None,
                "deviceIds": None,
                "enabled": True,
            }
        ],
        "users": users,
        "profiles": profiles(),
        "inventory": {"devices": inventory_devices, "gateways": inventory_gws},
        "subAccounts": [
            {
                "id": ident("sub-account", "harbour"),
                "name": "Harbour Offices",
                "memberLimit": 10,
                "keys": [key("harbour", "Harbour app", HARBOUR_KEY, ALL_SCOPES)],
                "sites": harbour_sites,
                "networks": harbour_nets,
                "gateways": harbour_gws,
                "devices": harbour_devices,
                "members": [
                    {"userId": uid["ana"], "role": "subaccount_admin"},
                    {"userId": uid["olaf"], "role": "subaccount_operator", "siteId": buildings[0]},
                    {"userId": uid["vera"], "role": "subaccount_viewer"},
                    {"userId": uid["ivan"], "role": "subaccount_viewer"},
                ],
                "multicastGroups": [
                    {
                        "id": ident("multicast", "harbour.doors"),
                        "name": "All doors",
                        "deviceIds": door_ids,
                    },
                    {
                        "id": ident("multicast", "harbour.first-floor"),
                        "name": "Floor A1",
                        "deviceIds": [d["id"] for d in harbour_devices[:12:6]],
                    },
                ],
            },
            {
                "id": ident("sub-account", "farms"),
                "name": "Green Farms",
                "tier": {"perMinute": 120, "perDay": 20000},
                "memberLimit": 5,
                "keys": [key("farms", "Farm dashboard", FARMS_KEY, [*READ_SCOPES, "members:read"])],
                "sites": farm_sites,
                "networks": [farm_net],
                "gateways": farm_gws,
                "devices": farm_devices,
                "members": [
                    {"userId": uid["finn"], "role": "subaccount_admin"},
                    {"userId": uid["lars"], "role": "subaccount_viewer"},
                    {"userId": uid["ana"], "role": "subaccount_viewer"},
                ],
                "multicastGroups": [],
            },
            {
                "id": ident("sub-account", "logistics"),
                "name": "City Logistics",
                "status": "active",
                "features": {"networks": False, "multiSite": False},
                "keys": [key("logistics", "Fleet app", LOGISTICS_KEY, ALL_SCOPES)],
                "gateways": logistics_gws,
                "devices": logistics_devices,
                "members": [
                    {"userId": uid["lea"], "role": "subaccount_admin"},
                    {"userId": uid["sam"], "role": "subaccount_operator"},
                ],
                "multicastGroups": [
                    {
                        "id": ident("multicast", "logistics.vans"),
                        "name": "All vans",
                        "deviceIds": [d["id"] for d in logistics_devices],
                    },
                ],
            },
        ],
    }
    return {
        "partners": [partner],
        "uplinks": b.uplinks,
        "statusEvents": b.status_events,
        "gatewayStats": b.gateway_stats,
    }


def user(name: str, full_name: str, email: str, **more: Any) -> dict[str, Any]:
    return {
        "id": ident("user", name),
        "email": email,
        "name": full_name,
        "password": DEMO_PASSWORD,
        **more,
    }


def key(name: str, label: str, secret: str, scopes: list[str], **more: Any) -> dict[str, Any]:
    return {"id": ident("key", name), "name": label, "secret": secret, "scopes": scopes, **more}


def main() -> None:
    json.dump(build(), sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
