"""Deterministic benchmark datasets, loaded at full speed into a scratch database.

A dataset is a tenancy (partners, sub-accounts, sites, networks, gateways, profiles,
devices, keys, ChirpStack integrations) written as a world dict and loaded through the
product's own world loader, plus readings every 15 minutes for every assigned device:
temperature (diurnal and seasonal), humidity, a slowly draining battery (role
`battery_pct`), a string `status` (non-numeric: readings_other) and the signal quality
series (field 0), with outages (gaps) and a few late arrivals.

Readings bypass the ingest pipeline: they are encoded with numpy into PostgreSQL's binary
COPY format and streamed with asyncpg `copy_to_table(format="binary")` (the protocol of
`copy_records_to_table`, without building a Python tuple per reading, which alone would
cap the load far below the target), one time slice (a week, the raw chunk) at a time over
parallel connections. A closed week goes in already packed: benchmarks/packed.py builds
the rows the packing job would write (packed weeks, their hourly partials and daily
rollups) with the week's late arrivals in their places, so the database never holds its
raw rows and writes each row once. The newest week stays raw, as in a live system, and so
do its late arrivals.
Every device's newest uplink is then sent through the real pipeline (a second world with
`uplinks`) so that `/latest` has its stored body, when the pipeline supports it.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import itertools
import sys
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
import numpy as np
import polars as pl

from app.ops.progress import ProgressBar
from benchmarks.common import DeviceRef, FieldRef, Fleet, KeyRef, Manifest, manifest_path
from benchmarks.copy_rows import Columns, new_rows
from benchmarks.packed import PERIOD_US, frame_arrays, pack_sorted
from testkit.databases import connect, scratch_database

INTERVAL_S = 15 * 60
SLICE_DAYS = 7  # one slice, one weekly raw chunk (both epoch-aligned)
PG_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
PG_EPOCH_US = int(PG_EPOCH.timestamp()) * 1_000_000
COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + b"\x00\x00\x00\x00" + b"\x00\x00\x00\x00"
COPY_TRAILER = b"\xff\xff"
BIG_TIER = {"perMinute": 100_000_000, "perDay": 2_000_000_000}
SCOPES = [
    "devices:read",
    "telemetry:read",
    "profiles:read",
    "downlinks:write",
    "members:read",
    "members:manage",
]
FIELDS = [
    FieldRef(identifier="temperature", data_type="number"),
    FieldRef(identifier="humidity", data_type="number"),
    FieldRef(identifier="battery", data_type="number", role="battery_pct"),
    FieldRef(identifier="status", data_type="string"),
]
STATUS_VALUES = ["ok", "low_battery", "alarm", "maintenance"]


@dataclass(frozen=True)
class Scale:
    name: str
    devices: int
    days: int
    partners: int
    sub_accounts_per_partner: int
    fleet_default: int = 0
    copy_connections: int = 2


SCALES = {
    # XS is for the suite's own test: seconds to load.
    "XS": Scale("XS", devices=4, days=3, partners=1, sub_accounts_per_partner=2),
    "S": Scale("S", devices=50, days=30, partners=2, sub_accounts_per_partner=2),
    "M": Scale("M", devices=500, days=365, partners=4, sub_accounts_per_partner=5),
    "L": Scale("L", devices=2000, days=365, partners=8, sub_accounts_per_partner=5),
}


def database_name(scale: str) -> str:
    return f"bench_{scale.lower()}"


def _uuid(scale: str, *parts: object) -> str:
    return str(
        uuid.uuid5(uuid.NAMESPACE_URL, f"telemetry-bench/{scale}/" + "/".join(map(str, parts)))
    )


def _secret(scale: str, *parts: object) -> str:
    digest = hashlib.sha256(f"telemetry-bench/{scale}/{'/'.join(map(str, parts))}".encode())
    return digest.hexdigest()[:40]


def _eui(prefix: int, partner: int, index: int) -> str:
    return f"{prefix:06x}{partner:02x}{index:08x}"


# --------------------------------------------------------------------------- the tenancy


@dataclass
class Plan:
    """The world dict and what the benchmarks need to know about it."""

    world: dict[str, Any]
    devices: list[dict[str, Any]] = field(default_factory=list)  # assigned, reporting
    keys: list[KeyRef] = field(default_factory=list)
    tokens: dict[str, str] = field(default_factory=dict)


def build_world(scale: Scale) -> Plan:
    """Partners, each with sub-accounts, two nested sites, two networks, a gateway per
    network, one profile (the four fields) and a few inventory devices; devices spread
    round-robin over sub-accounts, sites (or none) and networks (or none)."""
    s = scale.name
    partners: list[dict[str, Any]] = []
    plan = Plan(world={"partners": partners})
    slots: list[tuple[int, dict[str, Any], dict[str, Any], dict[str, Any]]] = []
    for p in range(scale.partners):
        partner_id = _uuid(s, "partner", p)
        profile_id = _uuid(s, "profile", p)
        key = "svc_live_" + _secret(s, "partner-key", p)
        token = "tok_" + _secret(s, "token", p)
        plan.keys.append(KeyRef(secret=key, partner_id=partner_id, sub_account_id=None))
        plan.tokens[partner_id] = token
        subs: list[dict[str, Any]] = []
        partner: dict[str, Any] = {
            "id": partner_id,
            "name": f"Bench partner {p + 1}",
            "plan": {"apiWrite": True, "retentionDays": 3650},
            "tier": BIG_TIER,
            "features": {"networks": True, "multiSite": True},
            "keys": [{"id": _uuid(s, "pkey", p), "name": "bench", "secret": key, "scopes": SCOPES}],
            "integrations": [
                {"id": _uuid(s, "integration", p), "kind": "chirpstack", "token": token}
            ],
            "profiles": [
                {
                    "id": profile_id,
                    "name": "ENV-4",
                    "fields": [
                        {
                            "id": _uuid(s, "field", p, 0),
                            "identifier": "temperature",
                            "label": "Temperature",
                            "unit": "°C",
                            "dataType": "number",
                        },
                        {
                            "id": _uuid(s, "field", p, 1),
                            "identifier": "humidity",
                            "label": "Humidity",
                            "unit": "%",
                            "dataType": "number",
                        },
                        {
                            "id": _uuid(s, "field", p, 2),
                            "identifier": "battery",
                            "label": "Battery",
                            "unit": "%",
                            "dataType": "number",
                            "role": "battery_pct",
                        },
                        {
                            "id": _uuid(s, "field", p, 3),
                            "identifier": "status",
                            "label": "Status",
                            "unit": "",
                            "dataType": "string",
                        },
                    ],
                }
            ],
            "inventory": {
                "devices": [
                    {
                        "id": _uuid(s, "inventory", p, i),
                        "devEui": _eui(0xB0B0B1, p, i),
                        "name": f"Spare {i + 1}",
                        "deviceProfileId": profile_id,
                    }
                    for i in range(2)
                ]
            },
            "subAccounts": subs,
        }
        partners.append(partner)
        for a in range(scale.sub_accounts_per_partner):
            sub_id = _uuid(s, "sub", p, a)
            campus, building = _uuid(s, "site", p, a, 0), _uuid(s, "site", p, a, 1)
            north, south = _uuid(s, "net", p, a, 0), _uuid(s, "net", p, a, 1)
            sub_key = "svc_live_" + _secret(s, "sub-key", p, a)
            plan.keys.append(KeyRef(secret=sub_key, partner_id=partner_id, sub_account_id=sub_id))
            sub: dict[str, Any] = {
                "id": sub_id,
                "name": f"Customer {p + 1}.{a + 1}",
                "keys": [
                    {
                        "id": _uuid(s, "skey", p, a),
                        "name": "bench",
                        "secret": sub_key,
                        "scopes": SCOPES,
                    }
                ],
                "sites": [
                    {"id": campus, "name": "Campus", "parentSiteId": None},
                    {"id": building, "name": "Building A", "parentSiteId": campus},
                ],
                "networks": [
                    {"id": north, "name": "North", "siteId": campus},
                    {"id": south, "name": "South", "siteId": None},
                ],
                "gateways": [
                    {
                        "id": _uuid(s, "gw", p, a, g),
                        "gatewayEui": _eui(0x0016C0, p, a * 16 + g),
                        "name": f"GW-{g + 1}",
                        "networkId": net,
                    }
                    for g, net in enumerate((north, south))
                ],
                "devices": [],
            }
            subs.append(sub)
            slots.append(
                (
                    p,
                    partner,
                    sub,
                    {"sites": [campus, building, None], "networks": [north, south, None]},
                )
            )
    for i in range(scale.devices):
        p, partner, sub, where = slots[i % len(slots)]
        site = where["sites"][i % 3]
        network = where["networks"][(i // 3) % 3]
        device = {
            "id": _uuid(s, "device", i),
            "devEui": _eui(0x70B3D5, p, i),
            "name": f"Sensor {i + 1:05d}",
            "serialNumber": f"SN-{i + 1:06d}",
            "deviceProfileId": partner["profiles"][0]["id"],
            "networkId": network,
            "siteId": site,
        }
        sub["devices"].append(device)
        plan.devices.append(
            {**device, "partnerId": partner["id"], "subAccountId": sub["id"], "index": i}
        )
    return plan


def build_fleet(scale: str, count: int, sub_accounts: int = 10) -> tuple[dict[str, Any], Fleet]:
    """One partner with `count` devices over `sub_accounts` sub-accounts (directory only)."""
    s = f"{scale}-fleet"
    partner_id = _uuid(s, "partner")
    profile_id = _uuid(s, "profile")
    partner_key = "svc_live_" + _secret(s, "partner-key")
    sub_keys: dict[str, str] = {}
    subs: list[dict[str, Any]] = []
    for a in range(sub_accounts):
        sub_id = _uuid(s, "sub", a)
        sub_keys[sub_id] = "svc_live_" + _secret(s, "sub-key", a)
        site = _uuid(s, "site", a)
        net = _uuid(s, "net", a)
        subs.append(
            {
                "id": sub_id,
                "name": f"Fleet customer {a + 1:02d}",
                "keys": [
                    {
                        "id": _uuid(s, "skey", a),
                        "name": "bench",
                        "secret": sub_keys[sub_id],
                        "scopes": SCOPES,
                    }
                ],
                "sites": [{"id": site, "name": "Depot", "parentSiteId": None}],
                "networks": [{"id": net, "name": "Fleet net", "siteId": None}],
                "devices": [],
            }
        )
    sample: list[str] = []
    for i in range(count):
        sub = subs[i % sub_accounts]
        device_id = _uuid(s, "device", i)
        sub["devices"].append(
            {
                "id": device_id,
                "devEui": _eui(0xF1EE70, 0, i),
                "name": f"Fleet unit {i:06d}",
                "deviceProfileId": profile_id,
                "networkId": sub["networks"][0]["id"] if i % 2 else None,
                "siteId": sub["sites"][0]["id"] if i % 3 else None,
            }
        )
        if i % max(1, count // 100) == 0:
            sample.append(device_id)
    world = {
        "partners": [
            {
                "id": partner_id,
                "name": "Bench fleet",
                "plan": {"apiWrite": True, "retentionDays": 3650},
                "tier": BIG_TIER,
                "features": {"networks": True, "multiSite": True},
                "keys": [
                    {
                        "id": _uuid(s, "pkey"),
                        "name": "bench",
                        "secret": partner_key,
                        "scopes": SCOPES,
                    }
                ],
                "profiles": [
                    {
                        "id": profile_id,
                        "name": "Tracker",
                        "fields": [
                            {
                                "id": _uuid(s, "field", 0),
                                "identifier": "temperature",
                                "label": "Temperature",
                                "unit": "°C",
                                "dataType": "number",
                            }
                        ],
                    }
                ],
                "subAccounts": subs,
            }
        ]
    }
    fleet = Fleet(
        partner_id=partner_id,
        sub_account_ids=[sub["id"] for sub in subs],
        device_count=count,
        partner_key=partner_key,
        sub_account_keys=sub_keys,
        sample_device_ids=sample,
    )
    return world, fleet


# --------------------------------------------------------------------------- readings


@dataclass
class Series:
    """Per-device constants of the signals and the outage mask over the whole range."""

    start: datetime
    steps: int
    base_temp: np.ndarray
    drain_per_day: np.ndarray
    battery_start: np.ndarray
    present: np.ndarray  # bool [devices, steps]
    late: list[tuple[int, int, int]]  # (device index, step, offset seconds)


def plan_series(n_devices: int, start: datetime, steps: int, seed: int = 7) -> Series:
    """Deterministic device constants, outages (gaps) and late arrivals.

    Each device has about one outage a month, 2 to 36 hours long; a handful of readings
    inside outages arrive late (after everything else), a few minutes off the 15-minute grid.
    """
    rng = np.random.default_rng(seed)
    present = np.ones((n_devices, steps), dtype=bool)
    late: list[tuple[int, int, int]] = []
    days = steps * INTERVAL_S / 86400
    for d in range(n_devices):
        for _ in range(rng.poisson(max(days / 30, 0.5))):
            length = int(rng.integers(8, 144))
            begin = int(rng.integers(0, max(1, steps - length)))
            present[d, begin : begin + length] = False
            if rng.random() < 0.3:
                late.append((d, begin + length // 2, int(rng.integers(30, 600))))
    # The newest step stays present for every device: it is replayed through the pipeline.
    present[:, -1] = True
    return Series(
        start=start,
        steps=steps,
        base_temp=rng.normal(20.0, 3.0, n_devices),
        drain_per_day=rng.uniform(0.03, 0.12, n_devices),
        battery_start=rng.uniform(85.0, 100.0, n_devices),
        present=present,
        late=late,
    )


def signals(series: Series, steps: np.ndarray, seed: int) -> dict[str, np.ndarray]:
    """The four fields and signal quality at the given steps for every device: arrays
    shaped [devices, len(steps)]; `status` holds indexes into STATUS_VALUES."""
    rng = np.random.default_rng([seed, int(steps[0]) if len(steps) else 0])
    n = len(series.base_temp)
    seconds = (series.start.timestamp() + steps * INTERVAL_S).astype(np.float64)
    day_fraction = (seconds % 86400) / 86400
    year_fraction = (seconds / 86400 - 110) / 365.25
    diurnal = np.sin(2 * np.pi * (day_fraction - 0.375))
    seasonal = np.sin(2 * np.pi * year_fraction)
    shape = (n, len(steps))
    temperature = (
        series.base_temp[:, None]
        + 4.0 * diurnal[None, :]
        + 7.0 * seasonal[None, :]
        + rng.normal(0, 0.3, shape)
    )
    humidity = np.clip(
        55 - 12 * diurnal[None, :] + 8 * seasonal[None, :] + rng.normal(0, 2, shape), 5, 100
    )
    elapsed_days = (steps * INTERVAL_S / 86400)[None, :]
    battery = np.clip(
        series.battery_start[:, None] - series.drain_per_day[:, None] * elapsed_days, 0, 100
    )
    battery = np.round(battery * 2) / 2
    status = np.zeros(shape, dtype=np.int8)
    status[battery < 20] = 1
    status[rng.random(shape) < 0.002] = 2
    status[rng.random(shape) < 0.001] = 3
    quality = np.clip(np.round(72 + 12 * rng.standard_normal(shape)), 0, 100)
    return {
        "temperature": np.round(temperature, 2),
        "humidity": np.round(humidity, 1),
        "battery": battery,
        "status": status,
        "signal_quality": quality,
    }


def _reading_columns(value_format: str) -> Columns:
    """The columns of readings_num / readings_other in COPY order."""
    return [
        ("device", ">i4"),
        ("field", ">i4"),
        ("time", ">i8"),
        ("value", value_format),
        ("site", ">i4"),
    ]


def pack_num(
    device: np.ndarray,
    field_num: np.ndarray,
    time_us: np.ndarray,
    value: np.ndarray,
    site: np.ndarray,
) -> bytes:
    """Rows of readings_num in PostgreSQL's binary COPY format (without header)."""
    rows = new_rows(_reading_columns(">f8"), len(device))
    rows["device"], rows["field"], rows["site"] = device, field_num, site
    rows["time"] = time_us - PG_EPOCH_US
    rows["value"] = value
    return rows.tobytes()


def pack_other(
    device: np.ndarray,
    field_num: np.ndarray,
    time_us: np.ndarray,
    value: np.ndarray,
    site: np.ndarray,
    choices: list[Any],
) -> bytes:
    """Rows of readings_other (value jsonb: version byte 1 + JSON text), grouped by value so
    that each group is a fixed-width numpy record array."""
    chunks: list[bytes] = []
    for index, choice in enumerate(choices):
        mask = value == index
        if not mask.any():
            continue
        payload = b"\x01" + msgspec.json.encode(choice)
        rows = new_rows(_reading_columns(f"S{len(payload)}"), int(mask.sum()))
        rows["device"], rows["field"], rows["site"] = device[mask], field_num[mask], site[mask]
        rows["time"] = time_us[mask] - PG_EPOCH_US
        rows["value"] = payload
        chunks.append(rows.tobytes())
    return b"".join(chunks)


@dataclass
class Layout:
    """Database numbers of the dataset's devices: device num, site num, field nums."""

    device_num: np.ndarray
    site_num: np.ndarray
    field_nums: dict[str, np.ndarray]  # identifier -> per-device field num
    time_desc: bool = False  # the series index of readings_num is (device, field, time DESC)
    counters: frozenset[int] = frozenset()  # field nums whose measurement is `counter`


@dataclass(frozen=True)
class SliceSteps:
    """Steps [first, last) of a dataset's series, generated from `seed`."""

    series: Series
    layout: Layout
    first: int
    last: int
    seed: int

    def generated(self) -> tuple[np.ndarray, dict[str, np.ndarray], np.ndarray, np.ndarray]:
        """The steps, the signals at them ([device, step] arrays), which readings of those
        arrays flattened are present, and each step's time in epoch microseconds."""
        steps = np.arange(self.first, self.last)
        present = self.series.present[:, self.first : self.last].ravel()
        time_us = (int(self.series.start.timestamp()) + steps * INTERVAL_S) * 1_000_000
        return steps, signals(self.series, steps, self.seed), present, time_us


def slice_frames(span: SliceSteps) -> tuple[pl.DataFrame, pl.DataFrame]:
    """readings_num and readings_other rows of the slice's steps for every device, as
    polars frames (device_num, field_num, time_us, value, site_num), gaps removed."""
    layout = span.layout
    steps, values, present, time_us = span.generated()
    n = len(layout.device_num)
    base = pl.DataFrame(
        {
            "device_num": np.repeat(layout.device_num, len(steps)),
            "site_num": np.repeat(layout.site_num, len(steps)),
            "time_us": np.tile(time_us, n),
            "row": np.arange(n * len(steps)),
        }
    ).filter(pl.Series(present))
    rows = base["row"].to_numpy()
    numeric = []
    for identifier in ("signal_quality", "temperature", "humidity", "battery"):
        nums = (
            np.zeros(n, dtype=np.int32)
            if identifier == "signal_quality"
            else layout.field_nums[identifier]
        )
        numeric.append(
            base.select(
                "device_num",
                pl.Series("field_num", np.repeat(nums, len(steps))[rows]),
                "time_us",
                pl.Series("value", values[identifier].ravel()[rows]),
                "site_num",
            )
        )
    other = base.select(
        "device_num",
        pl.Series("field_num", np.repeat(layout.field_nums["status"], len(steps))[rows]),
        "time_us",
        pl.Series("value", values["status"].ravel()[rows]),
        "site_num",
    )
    # In the order of the series index (device, field, time ASC or DESC, read from the
    # database): each insert lands just after the previous one, which PostgreSQL splits
    # leaving pages full (measured: 37 instead of 54 bytes per index entry).
    return pl.concat(numeric).sort(
        "device_num", "field_num", "time_us", descending=[False, False, layout.time_desc]
    ), other


# A frame of readings' columns in the order pack_num and pack_other take them.
RAW_ORDER = ("device_num", "field_num", "time_us", "value", "site_num")


def encode_num(frame: pl.DataFrame) -> bytes:
    device, field, time_us, value, site = frame_arrays(frame, RAW_ORDER)
    return pack_num(device, field, time_us, value.astype(np.float64), site)


def encode_other(frame: pl.DataFrame) -> bytes:
    device, field, time_us, value, site = frame_arrays(frame, RAW_ORDER)
    return pack_other(device, field, time_us, value, site, STATUS_VALUES)


async def copy_binary(
    connection: Any, table: str, payload: bytes, columns: list[str] | None = None
) -> None:
    if not payload:
        return
    await connection.copy_to_table(
        table,
        source=io.BytesIO(COPY_HEADER + payload + COPY_TRAILER),
        columns=columns or ["device_num", "field_num", "time", "value", "site_num"],
        format="binary",
    )


@dataclass
class Copy:
    """One binary COPY of a slice: its table, columns and payload (rows only)."""

    table: str
    payload: bytes
    columns: list[str] | None = None


@dataclass
class SliceLoad:
    """A slice's COPYs, one list per connection, and the readings they hold."""

    copies: list[list[Copy]]
    readings_num: int
    readings_other: int


def encode_slice(
    span: SliceSteps, connections: int, pack: bool, late: pl.DataFrame | None = None
) -> SliceLoad:
    """The slice's steps as raw rows or, with `pack`, as packed rows, their hourly
    partials and daily rollups (benchmarks/packed.py) with the `late` readings of the
    week among them, spread over `connections`."""
    if pack:
        return _packed_slice(span, connections, late)
    num_frame, other_frame = slice_frames(span)
    parts = num_frame.partition_by("device_num", maintain_order=True, as_dict=False)
    groups: list[list[pl.DataFrame]] = [[] for _ in range(connections)]
    for i, part in enumerate(parts):
        groups[i % connections].append(part)
    copies: list[list[Copy]] = [[] for _ in range(connections)]
    for c, group in zip(copies, groups, strict=True):
        if group:
            c.append(Copy("readings_num", encode_num(pl.concat(group))))
    copies[-1].append(Copy("readings_other", encode_other(other_frame)))
    return SliceLoad(copies, num_frame.height, other_frame.height)


def _packed_slice(span: SliceSteps, connections: int, late: pl.DataFrame | None) -> SliceLoad:
    """The packed rows of the slice's steps, straight from the generated arrays: each
    field's [device, step] array, flattened, already holds every series contiguous and
    in time order (one reading per step), so nothing needs sorting; the week's `late`
    readings are inserted in their places."""
    layout = span.layout
    steps, values, present, step_us = span.generated()
    n = len(layout.device_num)
    time_us = np.tile(step_us, n)[present]
    device = np.repeat(layout.device_num, len(steps))[present]
    site = np.repeat(layout.site_num, len(steps))[present]
    # Where each reading lies in the arrays' order (device by device, then by time), to
    # place the late readings: as microseconds after the week's start, below 2**40.
    week_us = time_us[0] // PERIOD_US * PERIOD_US if len(time_us) else 0
    order = (np.repeat(np.arange(n, dtype=np.int64), len(steps))[present] << 40) + (
        time_us - week_us
    )
    index_of = {num: i for i, num in enumerate(layout.device_num.tolist())}
    copies: list[list[Copy]] = [[] for _ in range(connections)]
    readings_num = 0
    for i, identifier in enumerate(("signal_quality", "temperature", "humidity", "battery")):
        nums = np.zeros(n, np.int32) if i == 0 else layout.field_nums[identifier]
        columns: tuple[np.ndarray, ...] = (
            device,
            np.repeat(nums, len(steps))[present],
            site,
            time_us,
            values[identifier].ravel()[present].astype(np.float64),
        )
        if i and late is not None:
            columns = _with_late(columns, order, late, nums, index_of, week_us)
        readings_num += len(columns[3])
        field_device, field_num, field_site, field_time, field_value = columns
        packed = pack_sorted(
            field_device, field_num, field_site, field_time, field_value, None, layout.counters
        )
        copies[i % connections] += [Copy(*copy) for copy in packed.tables("num")]
    other = pack_sorted(
        device,
        np.repeat(layout.field_nums["status"], len(steps))[present],
        site,
        time_us,
        values["status"].ravel()[present],
        STATUS_VALUES,
    )
    copies[-1] += [Copy(*copy) for copy in other.tables("other")]
    return SliceLoad(copies, readings_num, len(time_us))


def _with_late(
    columns: tuple[np.ndarray, ...],
    order: np.ndarray,
    late: pl.DataFrame,
    nums: np.ndarray,
    index_of: dict[int, int],
    week_us: int,
) -> tuple[np.ndarray, ...]:
    """A field's readings (device, field, site, time, value) with its late readings of
    the week inserted in packed order (series, then time, then value)."""
    mine = late.filter(pl.col("field_num").is_in(nums.tolist()))
    if not mine.height:
        return columns
    late_time = mine["time_us"].to_numpy()
    late_value = mine["value"].to_numpy()
    devices = np.array([index_of[d] for d in mine["device_num"].to_list()], dtype=np.int64)
    keys = (devices << 40) + (late_time - week_us)
    sequence = np.lexsort((late_value, keys))
    keys, late_value = keys[sequence], late_value[sequence]
    # Before the readings at the same time with greater values, after those with lesser.
    places = np.searchsorted(order, keys, side="left")
    value = columns[4]
    tied = (places < len(order)) & (order[np.minimum(places, len(order) - 1)] == keys)
    places[tied] += value[places[tied]] < late_value[tied]
    inserted = (
        mine["device_num"].to_numpy()[sequence],
        mine["field_num"].to_numpy()[sequence],
        mine["site_num"].to_numpy()[sequence],
        late_time[sequence],
        late_value,
    )
    return tuple(
        np.insert(column, places, extra.astype(column.dtype))
        for column, extra in zip(columns, inserted, strict=True)
    )


async def _copy_all(connection: Any, copies: list[Copy]) -> None:
    for c in copies:
        await copy_binary(connection, c.table, c.payload, c.columns)


# --------------------------------------------------------------------------- loading


@dataclass
class LoadReport:
    readings_num: int = 0
    readings_other: int = 0
    copy_seconds: float = 0.0
    total_seconds: float = 0.0
    pack_wait_seconds: float = 0.0  # COPY idle, waiting for the packing job (a merge)
    primed: int = 0

    @property
    def readings(self) -> int:
        return self.readings_num + self.readings_other

    @property
    def rate(self) -> float:
        return self.readings / self.total_seconds if self.total_seconds else 0.0


async def _layout(connection: Any, devices: list[dict[str, Any]]) -> Layout:
    rows = await connection.fetch(
        """SELECT d.id::text AS id, d.num, COALESCE(s.num, 0) AS site_num,
                  jsonb_object_agg(f.identifier, f.num) AS fields
             FROM devices d
             LEFT JOIN sites s ON s.id = d.site_id
             JOIN profile_fields f ON f.profile_id = d.profile_id
            WHERE d.id = ANY($1::uuid[])
            GROUP BY d.id, d.num, s.num""",
        [d["id"] for d in devices],
    )
    counters = await connection.fetch(
        "SELECT num FROM profile_fields WHERE measurement = 'counter' AND profile_id IN "
        "(SELECT profile_id FROM devices WHERE id = ANY($1::uuid[]))",
        [d["id"] for d in devices],
    )
    time_desc = await connection.fetchval(
        "SELECT COALESCE(bool_or(indexdef LIKE '%time DESC%'), false) FROM pg_indexes "
        "WHERE tablename = 'readings_num' AND indexname = 'readings_num_series'"
    )
    by_id = {r["id"]: r for r in rows}
    ordered = [by_id[d["id"]] for d in devices]
    return Layout(
        device_num=np.array([r["num"] for r in ordered], dtype=np.int32),
        site_num=np.array([r["site_num"] for r in ordered], dtype=np.int32),
        field_nums={
            f.identifier: np.array([r["fields"][f.identifier] for r in ordered], dtype=np.int32)
            for f in FIELDS
        },
        time_desc=bool(time_desc),
        counters=frozenset(r["num"] for r in counters),
    )


async def load_readings(
    database_url: str,
    series: Series,
    layout: Layout,
    seed: int,
    connections: int = 2,
    label: str = "readings",
    client_packing: bool = True,
) -> LoadReport:
    """COPYs every step but the newest, slice by slice, then the late arrivals.

    With `client_packing`, each closed week is packed here (benchmarks/packed.py), its
    late readings among the others (what the packing job's merge of them leaves), and
    COPYed as packed rows, hourly partials and daily rollups, the next slice encoded in a
    thread while the previous one is COPYed; the open week and its late readings are
    COPYed raw. Without `client_packing` every slice is COPYed raw, the packing job packs
    each closed one while the next loads, and the late readings come last, merged by the
    job into their packed weeks (the reference: what tests/integration/test_bulk_packing.py
    compares against)."""
    report = LoadReport()
    conns = [await connect(database_url) for _ in range(connections + 1)]
    for conn in conns:
        # A bulk load can be redone from its seed: no need to wait for each WAL flush.
        await conn.execute("SET synchronous_commit = off")
    copy_conns, pack_conn = conns[:-1], conns[-1]
    started = time.perf_counter()
    start_s = int(series.start.timestamp())
    slice_steps = SLICE_DAYS * 86400 // INTERVAL_S
    # The first slice ends on an epoch-aligned boundary so later ones stay aligned.
    first_end = ((start_s // (SLICE_DAYS * 86400)) + 1) * SLICE_DAYS * 86400
    bounds = [0]
    edge = (first_end - start_s) // INTERVAL_S
    while edge < series.steps - 1:
        bounds.append(edge)
        edge += slice_steps
    bounds.append(series.steps - 1)
    total = int(series.present[:, :-1].sum()) * 5
    now_us = int(time.time() * 1_000_000)
    late = late_frame(series, layout, seed).with_columns(
        period=pl.col("time_us") // PERIOD_US * PERIOD_US
    )
    # Packed on the client, a closed week holds its late readings already (what the
    # packing job's merge of them would leave, each row written once); the rest go raw.
    packed_late = (pl.col("period") + PERIOD_US <= now_us) & pl.lit(client_packing)
    late_packed, late = late.filter(packed_late), late.filter(~packed_late)

    def period_of(step: int) -> int:
        return (start_s + step * INTERVAL_S) * 1_000_000 // PERIOD_US * PERIOD_US

    def encode(first: int, last: int) -> SliceLoad:
        closed = client_packing and period_of(first) + PERIOD_US <= now_us
        week = late_packed.filter(pl.col("period") == period_of(first)).drop("period")
        span = SliceSteps(series, layout, first, last, seed)
        return encode_slice(span, len(copy_conns), closed, week)

    pack_task: asyncio.Task[Any] | None = None

    async def merge(frame: pl.DataFrame) -> None:
        """COPYs late readings raw once the previous merge is done; merges them."""
        nonlocal pack_task
        if pack_task is not None:
            waited = time.perf_counter()
            await pack_task
            report.pack_wait_seconds += time.perf_counter() - waited
        if frame.height:
            await copy_binary(copy_conns[0], "readings_num", encode_num(frame.drop("period")))
            report.readings_num += frame.height
        pack_task = asyncio.create_task(pack_closed(pack_conn))

    slices = list(itertools.pairwise(bounds))
    bar = ProgressBar(label, total)
    try:
        upcoming = asyncio.create_task(asyncio.to_thread(encode, *slices[0]))
        for index in range(len(slices)):
            load = await upcoming
            if index + 1 < len(slices):
                upcoming = asyncio.create_task(asyncio.to_thread(encode, *slices[index + 1]))
            copy_started = time.perf_counter()
            await asyncio.gather(
                *(_copy_all(c, copies) for c, copies in zip(copy_conns, load.copies, strict=True))
            )
            report.copy_seconds += time.perf_counter() - copy_started
            report.readings_num += load.readings_num
            report.readings_other += load.readings_other
            if not client_packing:
                await merge(late.clear())
            bar.update(report.readings)
        bar.finish()
        await merge(late)  # the rest: all of it for the reference, the open week's here
        if pack_task is not None:
            await pack_task
        report.total_seconds = time.perf_counter() - started
    finally:
        for conn in conns:
            await conn.close()
    return report


async def pack_closed(connection: Any) -> None:
    """Packs every raw chunk already closed (the week the load just finished, or the weeks
    late readings fell into), in one transaction without the API's statement timeout."""
    async with connection.transaction():
        await connection.execute("SET LOCAL statement_timeout = 0")
        await connection.execute("SELECT pack_closed_chunks(interval '0')")


def late_frame(series: Series, layout: Layout, seed: int) -> pl.DataFrame:
    """Readings that arrive after the bulk, a few minutes off the grid, inside outages;
    merged into their packed weeks by the packing job, as late uplinks are."""
    rows = []
    for d, step, offset in series.late:
        values = signals(series, np.array([step]), seed + 1)
        time_us = (int(series.start.timestamp()) + step * INTERVAL_S + offset) * 1_000_000
        for identifier in ("temperature", "humidity", "battery"):
            rows.append(
                (
                    int(layout.device_num[d]),
                    int(layout.field_nums[identifier][d]),
                    time_us,
                    float(values[identifier][d, 0]),
                    int(layout.site_num[d]),
                )
            )
    return pl.DataFrame(
        rows,
        schema={
            "device_num": pl.Int32,
            "field_num": pl.Int32,
            "time_us": pl.Int64,
            "value": pl.Float64,
            "site_num": pl.Int32,
        },
        orient="row",
    )


def newest_uplinks(
    device_ids: list[str], series: Series, seed: int, step: int
) -> list[dict[str, Any]]:
    """One step of every device as world-file uplinks, for the real pipeline."""
    values = signals(series, np.array([step]), seed)
    at = (series.start + timedelta(seconds=step * INTERVAL_S)).isoformat().replace("+00:00", "Z")
    uplinks = []
    for d, device_id in enumerate(device_ids):
        quality = float(values["signal_quality"][d, 0])
        uplinks.append(
            {
                "device": device_id,
                "at": at,
                "values": {
                    "temperature": float(values["temperature"][d, 0]),
                    "humidity": float(values["humidity"][d, 0]),
                    "battery": float(values["battery"][d, 0]),
                    "status": STATUS_VALUES[int(values["status"][d, 0])],
                },
                "rssi": -120 + quality * 0.8,
                "snr": -10 + quality * 0.2,
                "fPort": 1,
            }
        )
    return uplinks


async def _load_world(database_url: str, world: dict[str, Any]) -> None:
    from app.world.loader import load_world

    connection = await connect(database_url)
    try:
        await load_world(connection, world)
    finally:
        await connection.close()


async def _prime_latest(database_url: str, plan: Plan, series: Series, seed: int) -> int:
    """Sends each device's newest uplink through the pipeline (world `uplinks`); returns
    how many, or 0 when the pipeline refuses them (then the newest step is COPYed)."""
    from app.world.errors import WorldError

    try:
        uplinks = newest_uplinks([d["id"] for d in plan.devices], series, seed, series.steps - 1)
        await _load_world(database_url, {"uplinks": uplinks})
    except WorldError as exc:
        print(
            f"note: newest uplinks not replayed ({exc}); /latest has no stored body",
            file=sys.stderr,
        )
        return 0
    return len(plan.devices)


async def _copy_newest_step(database_url: str, series: Series, layout: Layout, seed: int) -> int:
    last = series.steps - 1
    num_frame, other_frame = slice_frames(SliceSteps(series, layout, last, last + 1, seed))
    connection = await connect(database_url)
    try:
        await copy_binary(connection, "readings_num", encode_num(num_frame))
        await copy_binary(connection, "readings_other", encode_other(other_frame))
    finally:
        await connection.close()
    return num_frame.height + other_frame.height


def dataset_window(scale: Scale, now: datetime | None = None) -> tuple[datetime, int]:
    """Start and number of 15-minute steps: `days` days ending at the last whole hour."""
    now = now or datetime.now(UTC)
    end = now.replace(minute=0, second=0, microsecond=0)
    start = end - timedelta(days=scale.days)
    return start, scale.days * 86400 // INTERVAL_S


async def generate_async(
    scale_name: str,
    fleet: int = 0,
    seed: int = 7,
    fleet_only: bool = False,
    database: str | None = None,
    write_manifest: bool = True,
) -> Manifest:
    """Generates and loads a dataset into a fresh scratch database (`bench_<scale>` unless
    `database` names another) and writes its manifest."""
    scale = SCALES[scale_name.upper()]
    name = database or database_name(scale.name)
    if fleet_only:
        manifest = msgspec.json.decode(manifest_path(scale.name).read_bytes(), type=Manifest)
        manifest.fleet = await _load_fleet(manifest.database_url, scale.name, fleet)
        _write_manifest(manifest)
        return manifest
    url = await asyncio.to_thread(scratch_database, name, fresh=True)
    plan = build_world(scale)
    started = time.perf_counter()
    await _load_world(url, plan.world)
    print(
        f"tenancy: {len(plan.devices)} devices loaded through the world loader in "
        f"{time.perf_counter() - started:.1f} s",
        file=sys.stderr,
    )
    start, steps = dataset_window(scale)
    series = plan_series(len(plan.devices), start, steps, seed)
    connection = await connect(url)
    try:
        layout = await _layout(connection, plan.devices)
    finally:
        await connection.close()
    report = await load_readings(url, series, layout, seed, scale.copy_connections)
    primed = await _prime_latest(url, plan, series, seed)
    if primed:
        report.readings_num += primed * 4  # signal quality + three numeric fields
        report.readings_other += primed
    else:
        extra = await _copy_newest_step(url, series, layout, seed)
        report.readings_num += extra - len(plan.devices)
        report.readings_other += len(plan.devices)
    print(
        f"loaded {report.readings:,} readings in {report.total_seconds:.1f} s: "
        f"{report.rate:,.0f} readings/s packed (COPY {report.copy_seconds:.1f} s, "
        f"waiting for packing {report.pack_wait_seconds:.1f} s)",
        file=sys.stderr,
    )
    manifest = Manifest(
        scale=scale.name,
        database=name,
        database_url=url,
        start=start.isoformat().replace("+00:00", "Z"),
        end=(start + timedelta(seconds=steps * INTERVAL_S)).isoformat().replace("+00:00", "Z"),
        interval_s=INTERVAL_S,
        fields=FIELDS,
        devices=[
            DeviceRef(
                id=d["id"],
                dev_eui=d["devEui"],
                num=int(layout.device_num[i]),
                partner_id=d["partnerId"],
                sub_account_id=d["subAccountId"],
                site_id=d["siteId"],
                network_id=d["networkId"],
                profile_id=d["deviceProfileId"],
            )
            for i, d in enumerate(plan.devices)
        ],
        keys=plan.keys,
        tokens=plan.tokens,
        readings_num=report.readings_num,
        readings_other=report.readings_other,
        load_seconds=report.total_seconds,
        load_rate=report.rate,
        latest_primed=primed > 0,
    )
    if fleet:
        manifest.fleet = await _load_fleet(url, scale.name, fleet)
    if write_manifest:
        _write_manifest(manifest)
    return manifest


async def prime_latest(manifest: Manifest, seed: int = 7) -> Manifest:
    """For a dataset loaded before the ingest pipeline existed (or replayed nothing):
    sends one more uplink per device, at `end`, through the pipeline, so that /latest has
    its stored body; updates and rewrites the manifest."""
    start = datetime.fromisoformat(manifest.start)
    end = datetime.fromisoformat(manifest.end)
    steps = int((end - start).total_seconds()) // manifest.interval_s
    series = plan_series(len(manifest.devices), start, steps, seed)
    await _load_world(
        manifest.database_url,
        {"uplinks": newest_uplinks([d.id for d in manifest.devices], series, seed, steps)},
    )
    manifest.end = (end + timedelta(seconds=manifest.interval_s)).isoformat()
    manifest.end = manifest.end.replace("+00:00", "Z")
    manifest.readings_num += len(manifest.devices) * 4
    manifest.readings_other += len(manifest.devices)
    manifest.latest_primed = True
    _write_manifest(manifest)
    return manifest


async def _load_fleet(database_url: str, scale: str, count: int) -> Fleet:
    world, fleet = build_fleet(scale, count)
    started = time.perf_counter()
    await _load_world(database_url, world)
    connection = await connect(database_url)
    try:
        await connection.execute("ANALYZE devices")
    finally:
        await connection.close()
    print(
        f"fleet: {count:,} devices loaded through the world loader in "
        f"{time.perf_counter() - started:.1f} s",
        file=sys.stderr,
    )
    return fleet


def _write_manifest(manifest: Manifest) -> None:
    path = manifest_path(manifest.scale)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(msgspec.json.format(msgspec.json.encode(manifest)))


def generate(scale: str, fleet: int = 0, seed: int = 7, fleet_only: bool = False) -> Manifest:
    import uvloop

    return uvloop.run(generate_async(scale, fleet, seed, fleet_only))
