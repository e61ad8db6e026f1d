"""The ingest pipeline: the one code path of live ChirpStack events and world-file telemetry.

Per uplink, in Python: decoded values are matched to the profile's catalog by identifier
(unknown ones ignored), coerced to the field's dataType (uncoercible ones skipped and
logged), calibrated (`raw * scale + offset`), then formula and mapping fields are computed
over the calibrated and static values (D10, D17). Signal quality comes from the best
gateway (D15), battery from the `battery_pct` field, alert rules are evaluated. Everything
is then stored by one call of `ingest_uplink` (schema/definitions/030-telemetry.sql),
which also checks the device, de-duplicates, writes readings and rollups, and recomputes
the stored `/latest` body, so one uplink is one database round trip.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import asyncpg
import msgspec

from app.core.sql import QUERIES
from app.telemetry.catalog import Catalog, DeviceContext, Field
from app.telemetry.values import (
    Evaluator,
    battery_percent,
    best_signal,
    breaks_rule,
    coerce,
    finite,
    string_form,
)

log = logging.getLogger("telemetry.ingest")

INGEST_UPLINK = QUERIES["telemetry.ingest_uplink"]
INGEST_EVENT = QUERIES["telemetry.ingest_event"]

_evaluator = Evaluator()


class Outcome:
    STORED = "stored"
    DUPLICATE = "duplicate"
    NOT_FOUND = "not_found"
    UNAUTHORIZED = "unauthorized"


class Uplink(msgspec.Struct, frozen=True):
    """One uplink as both sources describe it."""

    time: datetime
    values: dict[str, Any]
    receptions: Sequence[tuple[float, float]] = ()  # (rssi, snr) per receiving gateway
    gateways: Sequence[str] = ()  # GatewayEUIs, canonical form
    dedup_key: str | None = None
    f_port: int | None = None
    f_cnt: int | None = None


def compute_derived(catalog: Catalog, names: dict[str, Any]) -> dict[str, Any]:
    """Formula and mapping values over `names`; a field that fails is left out.

    Fields are computed in catalog order and may use earlier results; a field that failed
    is retried once the others are known, so the order of the catalog does not matter.
    """
    results: dict[str, Any] = {}
    pending = list(catalog.computed)
    while pending:
        failed = []
        for field in pending:
            value = _compute(field, names)
            if value is None:
                failed.append(field)
            else:
                results[field.identifier] = value
                names[field.identifier] = value
        if len(failed) == len(pending):
            break
        pending = failed
    return results


def _compute(field: Field, names: dict[str, Any]) -> Any:
    if field.kind == "formula":
        if field.parsed is None or field.formula is None:
            return None
        raw = _evaluator.evaluate(field.formula, field.parsed, names)
    else:
        if field.source not in names or field.mapping is None:
            return None
        key = string_form(names[field.source])
        raw = field.mapping.get(key, field.default) if key is not None else field.default
    if raw is None:
        return None
    return coerce(raw, field.data_type)


class PreparedUplink(msgspec.Struct):
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


def uplink_arguments(
    context: DeviceContext, uplink: Uplink, token_hash: bytes | None
) -> tuple[Any, ...]:
    """The arguments of `ingest_uplink` for one uplink."""
    prepared = prepare_uplink(context, uplink.values)
    signal = best_signal(uplink.receptions)
    num_fields = prepared.num_fields
    num_values = prepared.num_values
    if signal is not None:
        # Field num 0 is the signal quality series (D15: one point per uplink).
        num_fields = [0, *num_fields]
        num_values = [float(signal), *num_values]
    return (
        token_hash,
        context.partner_id,
        context.num,
        uplink.dedup_key,
        uplink.time,
        num_fields,
        num_values,
        prepared.other_fields,
        prepared.other_values,
        prepared.values,
        prepared.derived,
        context.static_part,
        context.static_derived,
        context.has_derived,
        context.catalog.retain,
        signal,
        prepared.battery,
        list(uplink.gateways),
        prepared.rule_ids,
        prepared.rule_fields,
        prepared.rule_breaks,
        prepared.rule_levels,
        {"fPort": uplink.f_port, "fCnt": uplink.f_cnt},  # for the device.uplink event
    )


async def store_uplink(
    connection: asyncpg.Connection | asyncpg.Pool,
    context: DeviceContext,
    uplink: Uplink,
    token_hash: bytes | None = None,
) -> str:
    """Stores one uplink; returns an `Outcome` value."""
    outcome: str = await connection.fetchval(
        INGEST_UPLINK, *uplink_arguments(context, uplink, token_hash)
    )
    return outcome


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
) -> str:
    """Stores a status, join or location message; returns an `Outcome` value.

    A battery level that is not a number (NaN, an overflow: status_battery gives a `pct`
    without value) or a location that is not one (NaN, out of range) is left out and
    logged; the message still moves lastSeenAt."""
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
    return outcome


def dedup_key(kind: str, deduplication_id: str) -> str | None:
    """ChirpStack reuses an uplink's deduplicationId for the status and location events
    it carried, so the key includes the event type.

    PostgreSQL text cannot hold U+0000: NULs are dropped (real ids are UUIDs; two ids
    differing only in NULs would count as one, which no network server produces)."""
    if "\x00" in deduplication_id:
        deduplication_id = deduplication_id.replace("\x00", "")
    return f"{kind}:{deduplication_id}" if deduplication_id else None


__all__ = [
    "Outcome",
    "Uplink",
    "compute_derived",
    "dedup_key",
    "prepare_uplink",
    "status_battery",
    "store_event",
    "store_uplink",
]
