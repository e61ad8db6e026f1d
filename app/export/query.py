"""The SQL of one export: the row template of its layout with the column list of its format.

PostgreSQL formats every CSV and NDJSON cell itself (the rows leave by `COPY ... TO
STDOUT`, so Python never touches a reading); Parquet reads typed values through a cursor.
The raw wide layout without `tz` is read as stored instead (app/export/wide.py), which
writes the same bytes (app/export/cells.py).
Only fixed snippets and column positions are spliced into the templates of
sql/export/export.sql; identifiers, devices and times stay bind parameters. `$8` holds the
field names as the format writes them (`names`): CSV cells, JSON strings, plain text.
"""

from __future__ import annotations

from app.core.sql import QUERIES
from app.export.structs import Column, ExportPlan

# RFC 3339 in UTC with `Z`: the ISO text of the UTC timestamp (DateStyle ISO, set by the
# export transaction) with a T; fractional seconds only when there are some. About 1.1 us
# per row against 1.8 us for to_char (measured on bench S).
_UTC = "replace(({t} AT TIME ZONE 'UTC')::text, ' ', 'T') || 'Z'"
# The session's TimeZone is the export's `tz` (set_config in the export transaction).
_LOCAL = "replace(to_char({t}, 'YYYY-MM-DD\"T\"HH24:MI:SS.USTZH:TZM'), '.000000', '')"
# A JSON value as text: a string without its quotes; booleans, dates and locations as JSON.
_TEXT = "CASE jsonb_typeof(x.other) WHEN 'string' THEN x.other #>> '{}' ELSE x.other::text END"
# CSV: numbers as PostgreSQL writes float8 (shortest exact form); a string beginning with
# = + - @ or a tab gets a leading ' so that spreadsheets do not read it as a formula.
_CSV_CELL = (
    "COALESCE(x.num::text, CASE jsonb_typeof(x.other) WHEN 'string'"
    " THEN regexp_replace(x.other #>> '{}', '^([=+@\\t-])', '''\\1') ELSE x.other::text END)"
)
_JSON_CELL = "COALESCE(to_jsonb(x.num), x.other)"
_PARQUET_CELL = {
    "number": "x.num",
    "boolean": "(x.other)::boolean",
    "text": f"COALESCE(x.num::text, {_TEXT})",
}


def uses_names(plan: ExportPlan) -> bool:
    """Whether the query reads $8: the long layout, and NDJSON keys of the wide one."""
    return plan.layout == "long" or plan.format == "ndjson"


def build_sql(plan: ExportPlan) -> str:
    if plan.layout == "long":
        return QUERIES["export.long_rows"].replace("{columns}", _long_columns(plan))
    count = range(1, len(plan.columns) + 1)
    cells = [_cell(plan, column) for column in plan.columns]
    fills = {
        "{firsts}": ", ".join(
            f"{_one(plan, column)}({cell}) FILTER (WHERE x.pos = {i}) AS c{i}"
            for i, (column, cell) in enumerate(zip(plan.columns, cells, strict=True), start=1)
        ),
        # How many cells the time has: as many as its readings unless a field has two.
        "{present}": "(" + " + ".join(f"(g.c{i} IS NOT NULL)::integer" for i in count) + ")",
        "{arrays}": ", ".join(
            f"array_agg({cell}) FILTER (WHERE x.pos = {i}) AS a{i}"
            for i, cell in zip(count, cells, strict=True)
        ),
        "{unnest}": ", ".join(f"unnest(t.a{i})" for i in count),
        "{columns}": _wide_columns(plan),
    }
    sql = QUERIES["export.wide_rows"]
    for slot, text in fills.items():
        sql = sql.replace(slot, text)
    return sql


def _one(plan: ExportPlan, column: Column) -> str:
    """The aggregate that gives a time's one cell of a column: min, which has no boolean
    form (bool_and, a Parquet boolean column)."""
    return "bool_and" if plan.format == "parquet" and column.kind == "boolean" else "min"


def _cell(plan: ExportPlan, column: Column) -> str:
    """A wide column's cell of the reading x."""
    if plan.format == "csv":
        return _CSV_CELL
    if plan.format == "ndjson":
        # As text, which min takes (jsonb has no min); the line writes their text anyway.
        return f"({_JSON_CELL})::text"
    return _PARQUET_CELL[column.kind]


def _lead(plan: ExportPlan, time: str) -> list[str]:
    """time, deviceId and devEui (fleet), localTime (with tz): text for CSV and NDJSON."""
    if plan.format == "parquet":
        lead = [time]
        if plan.fleet:
            lead += ["d.id::text", "d.dev_eui"]
    else:
        lead = [_UTC.format(t=time)]
        if plan.fleet:
            lead += ["d.id::text", "d.dev_eui"]
    if plan.tz is not None:
        lead.append(_LOCAL.format(t=time))
    return lead


def _json_object(plan: ExportPlan, lead: list[str], values: list[tuple[str, str]]) -> str:
    """One NDJSON line built by concatenation: compact, in column order, any width."""
    names = ["time", *(["deviceId", "devEui"] if plan.fleet else [])]
    names += ["localTime"] if plan.tz is not None else []
    parts = [
        f"'\"{name}\":\"' || {expression} || '\"'"
        for name, expression in zip(names, lead, strict=True)
    ]
    parts += [f"{key} || ':' || COALESCE({value}::text, 'null')" for key, value in values]
    return "'{' || " + " || ',' || ".join(parts) + " || '}'"


def _long_columns(plan: ExportPlan) -> str:
    lead = _lead(plan, "x.time")
    identifier = "($8::text[])[x.pos]"
    if plan.format == "csv":
        return ", ".join([*lead, identifier, _CSV_CELL])
    if plan.format == "ndjson":
        return _json_object(plan, lead, [("'\"field\"'", identifier), ("'\"value\"'", _JSON_CELL)])
    return ", ".join([*lead, identifier, "x.num", f"CASE WHEN x.num IS NULL THEN {_TEXT} END"])


def _wide_columns(plan: ExportPlan) -> str:
    lead = _lead(plan, "u.time")
    cells = [f"u.c{i}" for i in range(1, len(plan.columns) + 1)]
    if plan.format == "ndjson":
        keys = [f"($8::text[])[{i}]" for i in range(1, len(plan.columns) + 1)]
        return _json_object(plan, lead, list(zip(keys, cells, strict=True)))
    return ", ".join([*lead, *cells])
