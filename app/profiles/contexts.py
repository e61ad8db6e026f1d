"""Profile catalogs and per-device ingest contexts (`DeviceContexts`, cached per
database), and the formula and mapping fields computed over them (`compute_derived`, used
for static values here and for each uplink by app/ingest/pipeline.py).

Profiles, their fields and rules, and a device's static values and calibration are written
once (world file) and never edited afterwards, so they can be cached; the short TTL only
bounds memory and staleness should that ever change. What does change (a device's status
and site) is never cached: the ingest functions read it in their own transaction.
"""

from __future__ import annotations

import ast
import uuid
from typing import Any

import asyncpg
import msgspec
from cachetools import TTLCache

from app.core.sql import QUERIES
from app.profiles.values import Evaluator, coerce, string_form

# The ingest caches (these and app/ingest/receive.py's): entries expire after
# TTL_SECONDS, and past MAX_ENTRIES the least recently used one goes (cachetools.TTLCache),
# so a fleet larger than the bound keeps its busiest devices cached.
TTL_SECONDS = 30.0
MAX_ENTRIES = 50_000


class Field(msgspec.Struct, frozen=True):
    num: int
    identifier: str
    data_type: str
    kind: str
    role: str | None
    formula: str | None
    source: str | None
    mapping: dict[str, Any] | None
    default: Any
    parsed: ast.Expression | None = None


class Rule(msgspec.Struct, frozen=True):
    id: int
    field: str
    op: str
    value: Any
    level: str


class Catalog(msgspec.Struct, frozen=True):
    retain: bool
    decoded: dict[str, Field]
    computed: list[Field]  # formula and mapping fields, in catalog order
    static: list[Field]
    by_identifier: dict[str, Field]
    battery_field: str | None
    rules: list[Rule]

    @property
    def has_formula_or_mapping(self) -> bool:
        return bool(self.computed)


class DeviceContext(msgspec.Struct, frozen=True):
    """What the pipeline needs of one device besides its status and site."""

    num: int
    id: uuid.UUID
    partner_id: uuid.UUID
    catalog: Catalog
    statics: dict[str, Any]  # static fields' values (device value, else profile default)
    calibration: dict[str, tuple[float, float]]  # decoded number field -> (scale, offset)
    static_part: dict[str, Any]  # statics plus formulas and mappings over them
    static_derived: list[str]
    has_derived: bool


def build_catalog(field_rows: list[Any], rule_rows: list[Any]) -> Catalog:
    retain = bool(field_rows[0]["retain_last_value"]) if field_rows else False
    decoded: dict[str, Field] = {}
    computed: list[Field] = []
    static: list[Field] = []
    by_identifier: dict[str, Field] = {}
    battery: str | None = None
    for row in field_rows:
        if row["num"] is None:
            continue
        parsed = None
        if row["kind"] == "formula" and row["formula"]:
            try:
                parsed = Evaluator.parse(row["formula"])
            except Exception:  # a broken formula yields no value, never a failure
                parsed = None
        field = Field(
            num=row["num"],
            identifier=row["identifier"],
            data_type=row["data_type"],
            kind=row["kind"],
            role=row["role"],
            formula=row["formula"],
            source=row["source"],
            mapping=row["mapping"] if isinstance(row["mapping"], dict) else None,
            default=row["default_value"],
            parsed=parsed,
        )
        by_identifier[field.identifier] = field
        if field.kind == "decoded":
            decoded[field.identifier] = field
            if field.role == "battery_pct":
                battery = field.identifier
        elif field.kind == "static":
            static.append(field)
        else:
            computed.append(field)
    rules = [
        Rule(id=r["id"], field=r["field"], op=r["op"], value=r["value"], level=r["level"])
        for r in rule_rows
    ]
    return Catalog(
        retain=retain,
        decoded=decoded,
        computed=computed,
        static=static,
        by_identifier=by_identifier,
        battery_field=battery,
        rules=rules,
    )


_evaluator = Evaluator()


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


def build_context(
    catalog: Catalog,
    num: int,
    device_id: uuid.UUID,
    partner_id: uuid.UUID,
    static_values: dict[str, Any] | None,
    calibration: dict[str, Any] | None,
) -> DeviceContext:
    static_values = static_values or {}
    statics: dict[str, Any] = {}
    for field in catalog.static:
        value = static_values.get(field.identifier, field.default)
        if value is None:
            continue
        coerced = coerce(value, field.data_type)
        # A static value of another type than its field is still shown as given.
        statics[field.identifier] = value if coerced is None else coerced
    scales: dict[str, tuple[float, float]] = {}
    for name, spec in (calibration or {}).items():
        decoded = catalog.decoded.get(name)
        if decoded is None or decoded.data_type != "number" or not isinstance(spec, dict):
            continue
        scale, offset = spec.get("scale", 1.0), spec.get("offset", 0.0)
        scales[name] = (
            1.0 if scale is None else float(scale),
            0.0 if offset is None else float(offset),
        )
    static_part = dict(statics)
    derived_values = compute_derived(catalog, static_part)
    static_part.update(derived_values)
    return DeviceContext(
        num=num,
        id=device_id,
        partner_id=partner_id,
        catalog=catalog,
        statics=statics,
        calibration=scales,
        static_part=static_part,
        static_derived=list(derived_values),
        has_derived=catalog.has_formula_or_mapping or bool(scales),
    )


class DeviceContexts:
    """The profile catalogs and device contexts of ONE database, cached.

    A device's num and a profile's id are identities of one database, so these caches
    belong to whatever serves one database, never to the process: an app
    (`app.state.device_contexts`, made by its lifespan in app/main.py), an MQTT consumer,
    a world load. In placement mode (app/ops/placement.py) the apps of several clusters
    share a worker process, and num 5 of cluster b is another device than num 5 of
    cluster a: a shared cache stored b's uplinks with a's context (refused, and lost) and
    built b's /latest from a's static values. A hit is also checked against the device id
    of the row it is for, so that a context can never stand for another device.
    """

    def __init__(self) -> None:
        self.catalogs: TTLCache[uuid.UUID, Catalog] = TTLCache(MAX_ENTRIES, TTL_SECONDS)
        self.contexts: TTLCache[int, DeviceContext] = TTLCache(MAX_ENTRIES, TTL_SECONDS)

    async def catalog(
        self, connection: asyncpg.Connection | asyncpg.Pool, profile_id: uuid.UUID
    ) -> Catalog:
        catalog = self.catalogs.get(profile_id)
        if catalog is None:
            fields = await connection.fetch(QUERIES["profiles.context_fields"], profile_id)
            rules = await connection.fetch(QUERIES["profiles.context_rules"], profile_id)
            catalog = self.catalogs[profile_id] = build_catalog(fields, rules)
        return catalog

    async def of_row(
        self, connection: asyncpg.Connection | asyncpg.Pool, row: Any
    ) -> DeviceContext:
        """The context of a device row (partner_id, num, id, profile_id, static_values,
        calibration)."""
        cached = self.contexts.get(row["num"])
        if cached is not None and cached.id == row["id"]:
            return cached
        catalog = await self.catalog(connection, row["profile_id"])
        context = build_context(
            catalog,
            row["num"],
            row["id"],
            row["partner_id"],
            row["static_values"],
            row["calibration"],
        )
        self.contexts[row["num"]] = context
        return context

    def cached(self, num: int) -> DeviceContext | None:
        """The cached context of device `num`, for a caller that knows no more of the
        device: it must check that the context is the device's (as /latest does in the
        statement that uses it, app/latest/controller.py)."""
        return self.contexts.get(num)

    def forget(self, num: int) -> None:
        self.contexts.pop(num, None)

    def clear(self) -> None:
        self.catalogs.clear()
        self.contexts.clear()
