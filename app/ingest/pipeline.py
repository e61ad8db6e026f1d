"""The ingest pipeline: the one code path of every stored uplink and device event.

`store_uplink` and `store_event` are the entry points: the receive flow of every network
server (app/ingest/receive.py, uplinks through the group commit of
app/ingest/batch.py) and the world file (app/world/telemetry.py) hand them a
source-neutral `Uplink` or `DeviceEvent` and get an `Outcome`.

Per uplink, in Python (`uplink_record`): decoded values are matched to the profile's
catalog by identifier (unknown ones ignored), coerced to the field's dataType
(uncoercible ones skipped and logged), calibrated (`raw * scale + offset`), then formula
and mapping fields are computed over the calibrated and static values (D10, D17). Signal
quality comes from the best gateway (D15), battery from the `battery_pct` field, alert
rules are evaluated. The result is one `UplinkRecord`; a batch of records is stored by one
call of `ingest_uplinks` (schema/definitions/030-ingest.sql, whose body lists the steps
of an uplink: admit, state, events, readings, gateways), in one transaction and one round
trip.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any, NamedTuple

import asyncpg
import msgspec

from app.core.sql import QUERIES
from app.profiles.contexts import DeviceContext, compute_derived
from app.profiles.values import battery_percent, best_signal, breaks_rule, coerce, finite

log = logging.getLogger("telemetry.ingest")

INGEST_UPLINKS = QUERIES["ingest.ingest_uplinks"]
INGEST_EVENT = QUERIES["ingest.ingest_event"]


# The window of event times taken as given (README, "Ingest"). A device or gateway with a
# wrong clock must not store a time that later reads break on (year 9999 kept the device
# online for ever, year 1 failed), so outside it the event is stored at its receive time.
EARLIEST_EVENT_TIME = datetime(2000, 1, 1, tzinfo=UTC)
MAX_EVENT_TIME_AHEAD = timedelta(minutes=5)


def event_time(value: datetime | None) -> datetime:
    """The event's time when inside the window, else the receive time (now)."""
    received = datetime.now(UTC)
    if value is None:
        return received
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    try:
        value = value.astimezone(UTC)
    except OverflowError:  # 0001-01-01T00:00:00+01:00 is before year 1 in UTC
        value = EARLIEST_EVENT_TIME - timedelta(days=1)
    if EARLIEST_EVENT_TIME <= value <= received + MAX_EVENT_TIME_AHEAD:
        return value
    log.info("ingest: event time %s outside the window; stored at %s", value, received)
    return received


class Outcome(StrEnum):
    """What became of an uplink or event (the text `ingest_admit_batch` answers)."""

    STORED = "stored"
    DUPLICATE = "duplicate"
    NOT_FOUND = "not_found"
    UNAUTHORIZED = "unauthorized"


class Uplink(msgspec.Struct, frozen=True):
    """One uplink as every source describes it."""

    time: datetime
    values: dict[str, Any]
    receptions: Sequence[tuple[float, float]] = ()  # (rssi, snr) per receiving gateway
    gateways: Sequence[str] = ()  # GatewayEUIs, canonical form
    dedup_key: str | None = None
    f_port: int | None = None
    f_cnt: int | None = None


class DeviceEvent(msgspec.Struct, frozen=True):
    """A status, join or location message (`kind`) as every source describes it: the
    arguments of `store_event`."""

    kind: str
    time: datetime
    dedup_key: str | None = None
    battery: dict[str, Any] | None = None
    location: dict[str, Any] | None = None


class PreparedUplink(msgspec.Struct):
    """An uplink's decoded values after matching, coercion, calibration and computation."""

    values: dict[str, Any]
    derived: list[str]
    num_fields: list[int]
    num_values: list[float]
    other_fields: list[int]
    other_values: list[Any]
    battery: int | None
    rule_ids: list[int]
    rule_fields: list[str]
    rule_breaks: list[bool]
    rule_levels: list[str]


def prepare_uplink(context: DeviceContext, decoded: dict[str, Any]) -> PreparedUplink:
    catalog = context.catalog
    values: dict[str, Any] = {}
    derived: list[str] = []
    for identifier, raw in decoded.items():
        field = catalog.decoded.get(identifier)
        if field is None:
            continue
        value = coerce(raw, field.data_type)
        if value is None:
            log.warning(
                "device %s: %s=%r is not a %s; skipped",
                context.id,
                identifier,
                raw,
                field.data_type,
            )
            continue
        calibration = context.calibration.get(identifier)
        if calibration is not None:
            value = value * calibration[0] + calibration[1]
            if not finite(value):  # overflowed to inf or above MAX_MAGNITUDE
                log.warning(
                    "device %s: %s=%r calibrated is %r, not storable; left out",
                    context.id,
                    identifier,
                    raw,
                    value,
                )
                continue
            derived.append(identifier)
        values[identifier] = value
    if catalog.computed:
        names = {**context.statics, **values}
        computed = compute_derived(catalog, names)
        values.update(computed)
        derived.extend(computed)

    num_fields: list[int] = []
    num_values: list[float] = []
    other_fields: list[int] = []
    other_values: list[Any] = []
    for identifier, value in values.items():
        field = catalog.by_identifier[identifier]
        if field.data_type == "number":
            num_fields.append(field.num)
            num_values.append(float(value))
        else:
            other_fields.append(field.num)
            other_values.append(value)

    battery = None
    if catalog.battery_field is not None and catalog.battery_field in values:
        battery = battery_percent(values[catalog.battery_field])

    rule_ids: list[int] = []
    rule_fields: list[str] = []
    rule_breaks: list[bool] = []
    rule_levels: list[str] = []
    for rule in catalog.rules:
        if rule.field in values:
            rule_ids.append(rule.id)
            rule_fields.append(rule.field)
            rule_breaks.append(breaks_rule(values[rule.field], rule.op, rule.value))
            rule_levels.append(rule.level)
    return PreparedUplink(
        values=values,
        derived=derived,
        num_fields=num_fields,
        num_values=num_values,
        other_fields=other_fields,
        other_values=other_values,
        battery=battery,
        rule_ids=rule_ids,
        rule_fields=rule_fields,
        rule_breaks=rule_breaks,
        rule_levels=rule_levels,
    )


class UplinkRecord(msgspec.Struct, frozen=True):
    """One uplink as `ingest_uplinks` stores it: the SQL type `uplink_record`
    (schema/190-uplink-record.sql), filled by name (`record_rows`), so a field the type
    lacks is refused and no two fields can swap places."""

    token_hash: bytes | None  # the integration token to re-check at commit; None: trusted
    partner_id: uuid.UUID
    device_num: int
    dedup_key: str | None
    time: datetime
    shown_values: dict[str, Any]  # identifier -> stored value (what /latest shows)
    derived: list[str]  # the identifiers of calibrated, formula and mapping values
    static_values: dict[str, Any]  # static values and formulas over them
    static_derived: list[str]
    has_derived: bool  # whether /latest carries `derived` (D10)
    retain: bool  # the profile's retain last value
    signal: int | None  # D15 signal quality, None without receptions
    battery: int | None  # the battery_pct field, rounded and clamped
    gateways: list[str]
    f_port: int | None
    f_cnt: int | None
    rule_ids: list[int]  # the alert rules whose field is in this uplink
    rule_fields: list[str]
    rule_breaks: list[bool]
    rule_levels: list[str]
    num_fields: list[int]  # numeric readings; field num 0 is the signal quality
    num_values: list[float]
    other_fields: list[int]
    other_values: list[Any]


def uplink_record(
    context: DeviceContext, uplink: Uplink, token_hash: bytes | None = None
) -> UplinkRecord:
    """Everything Python computes of one uplink (see the module docstring)."""
    prepared = prepare_uplink(context, uplink.values)
    signal = best_signal(uplink.receptions)
    num_fields = prepared.num_fields
    num_values = prepared.num_values
    if signal is not None:
        # Field num 0 is the signal quality series (D15: one point per uplink).
        num_fields = [0, *num_fields]
        num_values = [float(signal), *num_values]
    return UplinkRecord(
        token_hash=token_hash,
        partner_id=context.partner_id,
        device_num=context.num,
        dedup_key=uplink.dedup_key,
        time=uplink.time,
        shown_values=prepared.values,
        derived=prepared.derived,
        static_values=context.static_part,
        static_derived=context.static_derived,
        has_derived=context.has_derived,
        retain=context.catalog.retain,
        signal=signal,
        battery=prepared.battery,
        gateways=list(uplink.gateways),
        f_port=uplink.f_port,
        f_cnt=uplink.f_cnt,
        num_fields=num_fields,
        num_values=num_values,
        other_fields=prepared.other_fields,
        other_values=prepared.other_values,
        rule_ids=prepared.rule_ids,
        rule_fields=prepared.rule_fields,
        rule_breaks=prepared.rule_breaks,
        rule_levels=prepared.rule_levels,
    )


def record_rows(records: Sequence[UplinkRecord]) -> list[dict[str, Any]]:
    """The argument of `ingest_uplinks`: each record as a mapping, which asyncpg binds to
    the type `uplink_record` by attribute name."""
    return [msgspec.structs.asdict(record) for record in records]


class Stored(NamedTuple):
    """What `ingest_uplinks` answers: the outcome of each record, in order, and whether a
    partner of the batch takes webhook events (then their events are in the outbox)."""

    outcomes: list[Outcome]
    webhooks: bool


async def store_uplinks(
    connection: asyncpg.Connection | asyncpg.Pool, records: Sequence[UplinkRecord]
) -> Stored:
    """Stores records sorted by device and time in one transaction (the caller's, or its
    own on a pool). Their webhook events are in the outbox at commit, but `ingest_uplinks`
    defers the dispatcher's wake-up: live ingest sends it after the commit
    (app/ingest/batch.py), other callers leave the events to the dispatcher's next tick
    (within a second)."""
    row = await connection.fetchrow(INGEST_UPLINKS, record_rows(records))
    return Stored([Outcome(o) for o in row["outcomes"]], row["webhooks"])


async def store_uplink(
    connection: asyncpg.Connection | asyncpg.Pool,
    context: DeviceContext,
    uplink: Uplink,
    token_hash: bytes | None = None,
) -> Outcome:
    """Stores one uplink of the device `context` through the whole pipeline.

    The entry point for any source of uplinks: `token_hash` is the hash of the
    integration token the uplink came with (re-checked in the storing transaction; None for
    trusted sources such as a world file). Returns STORED, DUPLICATE (its dedup key was
    seen before), NOT_FOUND (the device is gone or not assigned) or UNAUTHORIZED (the token
    was revoked). On a connection inside a transaction the uplink commits with it;
    on a pool it is durable when this returns. Live HTTP ingest goes through
    app/ingest/batch.py instead, which groups concurrent uplinks into one call.
    """
    stored = await store_uplinks(connection, [uplink_record(context, uplink, token_hash)])
    return stored.outcomes[0]


def status_battery(
    level: float | None, external: bool = False, unavailable: bool = False
) -> dict[str, Any]:
    """The battery object of a status message (api-spec 2.3, D17)."""
    if external:
        return {"state": "external", "value": None}
    if unavailable:
        return {"state": "unavailable", "value": None}
    return {"state": "pct", "value": battery_percent(level or 0)}


async def store_event(
    connection: asyncpg.Connection | asyncpg.Pool,
    context: DeviceContext,
    kind: str,
    time: datetime,
    *,
    dedup_key: str | None = None,
    battery: dict[str, Any] | None = None,
    location: dict[str, Any] | None = None,
    token_hash: bytes | None = None,
) -> Outcome:
    """Stores a status, join or location message (`kind`) of the device `context`.

    The entry point for device events of any source, with the outcomes and transaction
    behaviour of `store_uplink`. A battery level that is not a number (NaN, an overflow:
    status_battery gives a `pct` without value) or a location that is not one (NaN, out
    of range) is left out and logged; the message still moves lastSeenAt."""
    if battery is not None and battery.get("state") == "pct" and battery.get("value") is None:
        log.warning("device %s: status battery level is not a number; left out", context.id)
        battery = None
    if location is not None:
        checked = coerce(location, "location")
        if checked is None:
            log.warning("device %s: %r is not a location; left out", context.id, location)
        location = checked
    outcome: str = await connection.fetchval(
        INGEST_EVENT,
        token_hash,
        context.partner_id,
        context.num,
        dedup_key,
        time,
        kind,
        battery,
        location,
    )
    return Outcome(outcome)


def dedup_key(kind: str, deduplication_id: str) -> str | None:
    """ChirpStack reuses an uplink's deduplicationId for the status and location events
    it carried, so the key includes the event type.

    PostgreSQL text cannot hold U+0000: NULs are dropped (real ids are UUIDs; two ids
    differing only in NULs would count as one, which no network server produces)."""
    if "\x00" in deduplication_id:
        deduplication_id = deduplication_id.replace("\x00", "")
    return f"{kind}:{deduplication_id}" if deduplication_id else None


__all__ = [
    "DeviceEvent",
    "Outcome",
    "Stored",
    "Uplink",
    "UplinkRecord",
    "compute_derived",
    "dedup_key",
    "prepare_uplink",
    "status_battery",
    "store_event",
    "store_uplink",
    "store_uplinks",
    "uplink_record",
]
