"""The raw wide export without a time zone, read as stored and written here.

PostgreSQL gave these rows itself (sql/export/export.sql wide_rows): it unpacked every
packed week, sorted and grouped a device's readings by time and wrote each cell, ~5 us a
row of four fields (bench S, backend CPU time), most of the export. Here the packed weeks
are read as they are stored (wide_parts), their runs of times expanded with numpy
(app/history/packed.py, as maxPoints reads them), and numpy and polars gather the
readings into rows and write them (app/export/cells.py). The bytes are those PostgreSQL
wrote, cell for cell:

- `time`: the ISO text of the UTC timestamp with a T and a Z, fractional seconds only when
  there are some, without trailing zeros;
- numbers as float8out writes them (the shortest exact digits, fixed-point for decimal
  exponents -4 to 14, else `1.5e+20`), and in NDJSON as `to_jsonb` writes them (that text
  read as a numeric: no exponent, `-0` as `0`);
- other values as their JSON text, a string without its quotes in CSV and Parquet (CSV:
  with a leading ' when it begins with = + - @ or a tab);
- CSV cells quoted as `COPY ... CSV` quotes them (empty, or holding a comma, a quote or a
  line break), lines ended by CRLF;
- a time with two readings of a field gives as many rows as that field has readings, the
  k-th reading of each field in the k-th row (which reading comes first is not defined).

The devices are read in units of about `UNIT_READINGS` readings (several devices, or one
device a few weeks at a time, by the counts taken before the first byte), the next unit
read while one is written, so memory holds two units whatever the export's size. All
reads share one snapshot (a repeatable-read transaction), so a week packed meanwhile is
read once, as the single statement read it. Each statement has the export's statement
timeout; the stream as a whole is bounded by the client's pace (`export_stall_s`).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import pairwise
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl
import pyarrow as pa

from app.core.sql import QUERIES
from app.export.cells import (
    csv_quoted,
    float_texts,
    json_numbers,
    neutralised,
    strings_of,
    time_texts,
)
from app.export.structs import ExportPlan
from app.history.packed import packed_count, packed_times
from app.history.planner import EPOCH, to_micros

# Readings per unit (about: a device's week is never split); two units are held at once.
UNIT_READINGS = 50_000
WEEK = timedelta(days=7)  # the packed period (schema/definitions/035-packing.sql)

Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]


def applies(plan: ExportPlan) -> bool:
    """Whether the export is read here: every reading (no buckets, no maxPoints), wide,
    without a time zone (localTime is PostgreSQL's to_char)."""
    return (
        plan.layout == "wide"
        and plan.tz is None
        and plan.resolution is None
        and plan.chart.max_points is None
    )


def args(plan: ExportPlan, devices: Sequence[int], start: datetime, end: datetime) -> list[Any]:
    """$1..$7 of wide_counts and wide_parts for these devices (plan indices)."""
    return [
        [plan.device_nums[i] for i in devices],
        plan.map_fields,
        plan.map_profiles,
        plan.map_positions,
        plan.map_numeric,
        start,
        end,
    ]


async def device_counts(connection: Any, plan: ExportPlan, bound_s: float) -> list[int]:
    """The readings of each device of the plan, exactly (readings_<kind>_count's
    number): raw rows counted, packed weeks inside the range by their counts, the weeks
    at its edges by their runs."""
    everyone = range(len(plan.device_nums))
    rows = await connection.fetch(
        QUERIES["export.wide_counts"], *args(plan, everyone, plan.start, plan.end), timeout=bound_s
    )
    totals = np.zeros(len(plan.device_nums) + 1, dtype=np.int64)
    whole = [row for row in rows if row["period"] is None]
    edges = [row for row in rows if row["period"] is not None]
    np.add.at(totals, [row["ord"] for row in whole], [row["n"] for row in whole])
    if edges:
        inside = packed_count(edges, to_micros(plan.start), to_micros(plan.end))
        np.add.at(totals, [row["ord"] for row in edges], inside)
    return [int(n) for n in totals[1:]]


@dataclass(frozen=True)
class Unit:
    devices: list[int]  # plan indices, in export order
    start: datetime
    end: datetime


def units(plan: ExportPlan, counts: Sequence[int]) -> list[Unit]:
    """The export's reads in file order: consecutive devices together up to about
    `UNIT_READINGS` readings; a device holding more alone, its range cut at week
    boundaries into as many windows as it holds units (about, as its readings spread)."""
    out: list[Unit] = []
    group: list[int] = []
    size = 0
    for index, count in enumerate(counts):
        if count > UNIT_READINGS:
            if group:
                out.append(Unit(group, plan.start, plan.end))
                group, size = [], 0
            out += [Unit([index], a, b) for a, b in windows(plan, count)]
            continue
        if group and size + count > UNIT_READINGS:
            out.append(Unit(group, plan.start, plan.end))
            group, size = [], 0
        group.append(index)
        size += count
    if group:
        out.append(Unit(group, plan.start, plan.end))
    return out


def windows(plan: ExportPlan, count: int) -> list[tuple[datetime, datetime]]:
    """[start, end) cut at week boundaries (weeks as the packed periods, on the Unix epoch)
    into about count / UNIT_READINGS windows."""
    first = EPOCH + (plan.start - EPOCH) // WEEK * WEEK
    weeks = math.ceil((plan.end - first) / WEEK)
    each = max(1, math.floor(weeks / math.ceil(count / UNIT_READINGS)))
    bounds = [plan.start, *(first + WEEK * w for w in range(each, weeks, each)), plan.end]
    return [(a, b) for a, b in pairwise(bounds) if a < b]


@dataclass(frozen=True)
class Readings:
    """A unit's readings, ordered by device, time, column (ties in the order read)."""

    device: Ints  # plan index
    time: Ints  # epoch microseconds
    pos: Ints  # column position, 1-based
    numeric: npt.NDArray[np.bool_]  # a number (`nums`) or another value (`texts`)
    nums: Floats  # the numbers, in reading order
    texts: pl.Series  # the other values' JSON text, in reading order


# PostgreSQL's binary form of a one-dimensional array without NULLs (array_send): a header
# of 20 bytes (dimensions, a NULL flag, the element type, the length and lower bound), then
# each element as its length and its bytes, big-endian.
ARRAY_HEADER = 20
FLOAT8_ELEMENT = np.dtype([("size", ">i4"), ("value", ">f8")])
TIMESTAMP_ELEMENT = np.dtype([("size", ">i4"), ("value", ">i8")])  # microseconds from 2000
TIMESTAMP_EPOCH_US = 946_684_800_000_000  # 2000-01-01 in Unix epoch microseconds
SEPARATOR = "\x1f"


def binary_arrays(payloads: Sequence[bytes], element: np.dtype[Any]) -> npt.NDArray[Any]:
    """The elements of arrays in binary form, one after another."""
    body = b"".join(payload[ARRAY_HEADER:] for payload in payloads)
    return np.frombuffer(body, dtype=element)["value"]


async def read_unit(connection: Any, plan: ExportPlan, unit: Unit, bound_s: float) -> Readings:
    rows = await connection.fetch(
        QUERIES["export.wide_parts"],
        *args(plan, unit.devices, unit.start, unit.end),
        timeout=bound_s,
    )
    raw = [row for row in rows if row["period"] is None]
    packed = [row for row in rows if row["period"] is not None]
    parts = [*raw, *packed]
    sizes = np.array([row["n"] for row in parts], dtype=np.int64)
    devices = np.array(unit.devices, dtype=np.int64)
    local = np.repeat(np.array([row["ord"] - 1 for row in parts], dtype=np.int64), sizes)
    pos = np.repeat(np.array([row["pos"] for row in parts], dtype=np.int64), sizes)
    raw_times = binary_arrays([row["times"] for row in raw], TIMESTAMP_ELEMENT)
    time = np.concatenate([raw_times + TIMESTAMP_EPOCH_US, packed_times(packed)])
    numeric = np.repeat(np.array([row["nums"] is not None for row in parts], dtype=bool), sizes)
    nums = binary_arrays([row["nums"] for row in parts if row["nums"] is not None], FLOAT8_ELEMENT)
    # The other values' JSON texts, joined by U+001F per part (JSON text escapes it).
    texts = (
        pl.Series([row["texts"] for row in parts if row["texts"] is not None], dtype=pl.String)
        .str.split(SEPARATOR)
        .explode()
    )
    # Where each reading's value is among the numbers or the texts, to follow the order.
    slot = np.empty(len(time), dtype=np.int64)
    slot[numeric] = np.arange(len(nums))
    slot[~numeric] = np.arange(len(texts))
    keep = (time >= to_micros(unit.start)) & (time < to_micros(unit.end))
    order = file_order(local, time, pos)
    order = order[keep[order]]
    numeric = numeric[order]
    slot = slot[order]
    return Readings(
        devices[local[order]],
        time[order],
        pos[order],
        numeric,
        nums[slot[numeric]].astype(np.float64),
        texts.gather(slot[~numeric]),
    )


def file_order(device: Ints, time: Ints, pos: Ints) -> Ints:
    """The order of readings by device, time and column. One key of 63 bits when the
    three fit (a unit's devices, its span of times, the columns), sorted by timsort, which
    merges the parts' runs of ascending times in a pass or two; else three sorts."""
    if not len(time):
        return np.empty(0, dtype=np.int64)
    first = int(time.min())
    time_bits = (int(time.max()) - first).bit_length()
    device_bits = int(device.max()).bit_length()
    pos_bits = int(pos.max()).bit_length()
    if time_bits + device_bits + pos_bits > 63:
        order: Ints = np.lexsort((pos, time, device))
        return order
    key = (((device << time_bits) | (time - first)) << pos_bits) | pos
    order = np.argsort(key, kind="stable")
    return order


def rows_of(readings: Readings) -> tuple[Ints, Ints]:
    """Each reading's row (0-based, in file order) and each row's first reading: a row per
    device and time, and one more for each further reading of a field at that time."""
    n = len(readings.time)
    new_key = np.ones(n, dtype=bool)
    new_key[1:] = (readings.device[1:] != readings.device[:-1]) | (
        readings.time[1:] != readings.time[:-1]
    )
    same_cell = np.zeros(n, dtype=bool)
    same_cell[1:] = ~new_key[1:] & (readings.pos[1:] == readings.pos[:-1])
    if not same_cell.any():
        row = np.cumsum(new_key) - 1
        return row, np.flatnonzero(new_key)
    # The k-th reading of a field at a time goes to the time's k-th row.
    index = np.arange(n)
    cell_start = np.maximum.accumulate(np.where(~same_cell, index, 0))
    rank = index - cell_start
    key_start = np.maximum.accumulate(np.where(new_key, index, 0))
    order = np.lexsort((readings.pos, rank, key_start))
    starts = np.ones(n, dtype=bool)
    starts[1:] = (key_start[order][1:] != key_start[order][:-1]) | (
        rank[order][1:] != rank[order][:-1]
    )
    row = np.empty(n, dtype=np.int64)
    row[order] = np.cumsum(starts) - 1
    return row, order[starts]


def number_cells(plan: ExportPlan, readings: Readings) -> pl.Series:
    """The numbers' cells, in reading order: as to_jsonb writes them in NDJSON, else as
    float8out."""
    return json_numbers(readings.nums) if plan.format == "ndjson" else float_texts(readings.nums)


def text_cells(plan: ExportPlan, readings: Readings) -> pl.Series:
    """The other values' cells, in reading order: their JSON text in NDJSON; a string
    without its quotes in CSV (neutralised) and Parquet, other values as JSON text."""
    texts = readings.texts
    if plan.format == "ndjson" or not len(texts):
        return texts
    # A JSON string is its text between the quotes, unless it holds an escape (rare).
    quoted = texts.str.starts_with('"')
    strings = texts.str.strip_prefix('"').str.strip_suffix('"')
    escaped = np.flatnonzero((quoted & texts.str.contains("\\", literal=True)).to_numpy())
    if len(escaped):
        decoded = strings_of(texts.gather(escaped).to_list())
        strings = strings.scatter(escaped, pl.Series(decoded, dtype=pl.String))
    if plan.format == "csv":
        strings = neutralised(strings)
    if quoted.all():  # strings only, the usual case
        return strings
    return pl.select(pl.when(quoted).then(strings).otherwise(texts)).to_series()


@dataclass(frozen=True)
class Table:
    """A unit's rows: the first reading of each (for its device and time) and a column of
    cells per field, null where the row has no reading of it."""

    firsts: Ints
    columns: list[pl.Series]
    texts: list[bool]  # per column: whether a value that is not a number is in it


def table(
    plan: ExportPlan, readings: Readings, cells: pl.Series, wanted: Sequence[bool] | None = None
) -> Table:
    """The unit's rows from `cells` (the numbers' cells, then the other values'): each
    column gathers its cells by row, no pivot; the columns not `wanted` are left empty."""
    row, firsts = rows_of(readings)
    numeric = readings.numeric
    # Where each reading's cell is in `cells`.
    where = np.empty(len(numeric), dtype=np.int64)
    where[numeric] = np.arange(len(readings.nums))
    where[~numeric] = len(readings.nums) + np.arange(len(readings.texts))
    columns: list[pl.Series] = []
    texts: list[bool] = []
    for position in range(1, len(plan.columns) + 1):
        if wanted is not None and not wanted[position - 1]:
            columns.append(pl.Series(dtype=cells.dtype))
            texts.append(False)
            continue
        mine = readings.pos == position
        at = np.full(len(firsts), -1, dtype=np.int64)
        at[row[mine]] = where[mine]
        index = pl.Series(at, dtype=pl.Int64)
        columns.append(cells.gather(pl.select(pl.when(index >= 0).then(index)).to_series()))
        texts.append(not bool(numeric[mine].all()))
    return Table(firsts, columns, texts)


def lead_columns(plan: ExportPlan, readings: Readings, firsts: Ints) -> list[pl.Series]:
    """time, then deviceId and devEui in the fleet route, as text."""
    lead = [time_texts(readings.time[firsts])]
    if plan.fleet:
        devices = readings.device[firsts]
        ids = pl.Series([str(i) for i in plan.device_ids], dtype=pl.String)
        euis = pl.Series(plan.device_euis, dtype=pl.String)
        lead += [ids.gather(devices), euis.gather(devices)]
    return lead


def text_of(lines: pl.Expr, end: str) -> bytes:
    """The lines, each ended by `end`, as one UTF-8 text (joined by polars: no Python
    string per line)."""
    text: str = pl.select((lines + end).str.join("")).item()
    return text.encode()


def cells_of(plan: ExportPlan, readings: Readings) -> pl.Series:
    return pl.concat([number_cells(plan, readings), text_cells(plan, readings)])


def csv_chunk(plan: ExportPlan, readings: Readings, keys: Sequence[str]) -> bytes:
    """The unit's CSV lines (`keys`, NDJSON's, unused: both take the same arguments)."""
    if not len(readings.time):
        return b""
    rows = table(plan, readings, cells_of(plan, readings))
    parts = [pl.lit(s) for s in lead_columns(plan, readings, rows.firsts)]
    # Numbers never need quotes.
    parts += [
        (csv_quoted(pl.lit(c)) if text else pl.lit(c)).fill_null("")
        for c, text in zip(rows.columns, rows.texts, strict=True)
    ]
    return text_of(pl.concat_str(parts, separator=","), "\r\n")


def ndjson_chunk(plan: ExportPlan, readings: Readings, keys: Sequence[str]) -> bytes:
    """The unit's NDJSON lines, `keys` the fields' names as JSON strings."""
    if not len(readings.time):
        return b""
    rows = table(plan, readings, cells_of(plan, readings))
    lead = lead_columns(plan, readings, rows.firsts)
    names = ["time", *(["deviceId", "devEui"] if plan.fleet else [])]
    parts: list[pl.Expr] = []
    for index, (name, series) in enumerate(zip(names, lead, strict=True)):
        opening = ("{" if index == 0 else ",") + f'"{name}":"'
        parts += [pl.lit(opening), pl.lit(series), pl.lit('"')]
    for key, column in zip(keys, rows.columns, strict=True):
        parts += [pl.lit(f",{key}:"), pl.lit(column).fill_null("null")]
    parts.append(pl.lit("}"))
    return text_of(pl.concat_str(parts), "\n")


def parquet_table(plan: ExportPlan, readings: Readings, schema: pa.Schema) -> pa.Table | None:
    """The unit's rows typed as the Parquet schema: numbers as float64 (their cells are
    the numbers themselves), booleans, text."""
    if not len(readings.time):
        return None
    numbers = pl.Series(readings.nums, dtype=pl.Float64)
    texts = text_cells(plan, readings)
    kinds = [column.kind for column in plan.columns]
    rows = table(
        plan,
        readings,
        pl.concat([numbers, pl.Series([None] * len(texts), dtype=pl.Float64)]),
        [kind == "number" for kind in kinds],
    )
    text_rows = table(
        plan,
        readings,
        pl.concat([float_texts(readings.nums), texts]),
        [kind != "number" for kind in kinds],
    )
    arrays: list[pa.Array] = [
        pa.array(readings.time[rows.firsts], type=pa.timestamp("us", tz="UTC"))
    ]
    if plan.fleet:
        lead = lead_columns(plan, readings, rows.firsts)[1:]
        arrays += [s.to_arrow().cast(pa.string()) for s in lead]
    for column, number, text in zip(plan.columns, rows.columns, text_rows.columns, strict=True):
        if column.kind == "number":
            arrays.append(number.to_arrow().cast(pa.float64()))
        elif column.kind == "boolean":
            arrays.append(booleans(text))
        else:
            arrays.append(text.to_arrow().cast(pa.string()))
    return pa.Table.from_arrays(arrays, schema=schema)


def booleans(cells: pl.Series) -> pa.Array:
    """(jsonb)::boolean of each cell: a JSON boolean, else the error PostgreSQL raised."""
    wrong = cells.is_not_null() & ~cells.is_in(["true", "false"])
    if wrong.any():
        raise ValueError(f"cannot cast the JSON value {cells.filter(wrong)[0]} to a boolean")
    return (cells == "true").to_arrow().cast(pa.bool_())


async def unit_readings(
    connection: Any, plan: ExportPlan, bound_s: float
) -> AsyncIterator[Readings]:
    """Every unit's readings in file order. The next unit is read while the one yielded
    is written (in a thread, by the caller), so the database and the service work at once;
    memory holds two units at most."""
    todo = units(plan, plan.device_readings)
    if not todo:
        return
    reading = asyncio.ensure_future(read_unit(connection, plan, todo[0], bound_s))
    try:
        for following in [*todo[1:], None]:
            readings = await reading
            if following is not None:
                reading = asyncio.ensure_future(read_unit(connection, plan, following, bound_s))
            yield readings
    finally:
        if not reading.done():
            reading.cancel()
            await asyncio.gather(reading, return_exceptions=True)
