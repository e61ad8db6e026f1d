"""Closed weeks of benchmark readings packed on the client, in PostgreSQL's binary COPY
format: the rows of packed_num / packed_other that the packing job (`pack_range_<kind>` in
schema/definitions/035-packing.sql) would write for the same raw readings, so a bulk load
can skip the raw rows of closed weeks. Their hourly partials and daily rollups are the
database's own (fill_packed_hours_<kind>, called by benchmarks/datasets.py per week).

The encoding is the packing job's, bit for bit: one packed row per (device, field, site,
period), period = packed_period(time) (a week on the Unix epoch); values ordered by
(time, value); times as runs (time_runs: a time starts a new run when its step from the
previous time differs from that time's own step, or is 0; otherwise the second time of a
row never starts one). tests/integration/test_bulk_packing.py checks the packed rows, and
the partials filled in from them, against the database's own packer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec
import numpy as np
import polars as pl

from benchmarks.copy_rows import Columns, new_rows

PERIOD_US = 7 * 86400 * 1_000_000
PG_EPOCH_US = 946_684_800 * 1_000_000  # 2000-01-01 UTC, the origin of binary timestamps
OID_INT4, OID_INT8, OID_FLOAT8, OID_JSONB = 23, 20, 701, 3802

SERIES_COLUMNS = ["device_num", "field_num", "site_num"]
PACKED_COLUMNS = [*SERIES_COLUMNS, "period", "n", "offsets", "steps", "counts", "values"]

# The fixed part of a packed row: five scalar columns (the array columns follow it).
_PREFIX_COLUMNS: Columns = [
    ("device", ">i4"),
    ("field", ">i4"),
    ("site", ">i4"),
    ("period", ">i8"),
    ("n", ">i4"),
]
# A one-dimensional array column: its length word and the array header.
_ARRAY = np.dtype(
    [
        ("len", ">i4"),
        ("ndim", ">i4"),
        ("flags", ">i4"),
        ("oid", ">i4"),
        ("dim", ">i4"),
        ("lbound", ">i4"),
    ]
)
_INT8 = np.dtype([("len", ">i4"), ("v", ">i8")])
_INT4 = np.dtype([("len", ">i4"), ("v", ">i4")])
_FLOAT8 = np.dtype([("len", ">i4"), ("v", ">f8")])


@dataclass
class Runs:
    """The time runs of sorted readings: per run its row, offset, step and count."""

    row: np.ndarray
    offset: np.ndarray
    step: np.ndarray
    count: np.ndarray


@dataclass
class PackedSlice:
    """Binary COPY payloads (without header and trailer) of one kind of readings."""

    packed: bytes
    rows: int  # packed rows
    readings: int


@dataclass
class ArrayColumn:
    """An array column of consecutive rows: every row's elements (each with its length
    word) back to back, where each row's elements end, and how many each row has."""

    oid: int
    data: bytes
    ends: np.ndarray
    lengths: np.ndarray


def fixed_array(
    oid: int, dtype: np.dtype[Any], values: np.ndarray, lengths: np.ndarray
) -> ArrayColumn:
    """The column of fixed-width `values`, `lengths[i]` of them in row i."""
    return ArrayColumn(oid, _elements(dtype, values), np.cumsum(lengths) * dtype.itemsize, lengths)


def jsonb_array(index: np.ndarray, choices: list[Any], lengths: np.ndarray) -> ArrayColumn:
    """The jsonb column of the values `choices[index[j]]`, `lengths[i]` of them in row i."""
    encoded = [b"\x01" + msgspec.json.encode(c) for c in choices]
    elements = [len(e).to_bytes(4, "big") + e for e in encoded]
    index = index.astype(np.int64)
    sizes = np.array([len(e) for e in elements], dtype=np.int64)[index]
    ends = np.cumsum(sizes)[np.cumsum(lengths) - 1] if len(index) else np.zeros(0, np.int64)
    return ArrayColumn(OID_JSONB, b"".join([elements[i] for i in index.tolist()]), ends, lengths)


def array_rows(prefixes: np.ndarray, columns: list[ArrayColumn]) -> bytes:
    """Rows of COPY data: each row's fixed-width prefix, then its array of every column."""
    prefix_view, size = memoryview(prefixes.tobytes()), prefixes.dtype.itemsize
    views: list[tuple[memoryview, memoryview, list[int], list[int]]] = []
    for column in columns:
        headers = np.empty(len(column.lengths), dtype=_ARRAY)
        begins = np.append(0, column.ends[:-1])
        headers["len"] = 20 + column.ends - begins
        headers["ndim"], headers["flags"], headers["oid"] = 1, 0, column.oid
        headers["dim"], headers["lbound"] = column.lengths, 1
        views.append(
            (
                memoryview(headers.tobytes()),
                memoryview(column.data),
                begins.tolist(),
                column.ends.tolist(),
            )
        )
    parts: list[memoryview] = []
    head = _ARRAY.itemsize
    for r in range(len(prefixes)):
        parts.append(prefix_view[r * size : (r + 1) * size])
        for header_view, data, starts, ends in views:
            parts += (header_view[r * head : (r + 1) * head], data[starts[r] : ends[r]])
    return b"".join(parts)


def starts_of(*keys: np.ndarray) -> np.ndarray:
    """True where any key differs from the element before it (and at the first)."""
    size = len(keys[0])
    starts = np.zeros(size, dtype=bool)
    if size:
        starts[0] = True
    for key in keys:
        starts[1:] |= key[1:] != key[:-1]
    return starts


def time_runs(row_starts: np.ndarray, offset_us: np.ndarray) -> Runs:
    """time_runs of every packed row at once: `offset_us` holds the readings' microseconds
    after their period's start, ascending within each row; `row_starts` marks each row's
    first reading. Runs come out in row order, each row's in time order."""
    size = len(offset_us)
    step = np.zeros(size, dtype=np.int64)
    step[1:] = offset_us[1:] - offset_us[:-1]
    previous = np.zeros(size, dtype=np.int64)
    previous[1:] = step[:-1]
    second = np.zeros(size, dtype=bool)
    second[1:] = row_starts[:-1] & ~row_starts[1:]
    starts = row_starts | (step == 0) | (~second & (step != previous))
    first = np.flatnonzero(starts)
    count = np.diff(np.append(first, size))
    last = first + count - 1
    spread = offset_us[last] - offset_us[first]
    run_step = np.where(count > 1, spread // np.maximum(count - 1, 1), 0)
    return Runs(
        row=np.cumsum(row_starts)[first] - 1,
        offset=offset_us[first],
        step=run_step,
        count=count.astype(np.int64),
    )


def _elements(dtype: np.dtype[Any], values: np.ndarray) -> bytes:
    elements = np.empty(len(values), dtype=dtype)
    elements["len"] = dtype["v"].itemsize
    elements["v"] = values
    return elements.tobytes()


def sort_for_packing(frame: pl.DataFrame) -> pl.DataFrame:
    """Readings (device_num, field_num, site_num, time_us, value) in packed order: by
    series, site and period, then by (time, value) as the values array is."""
    return frame.sort("device_num", "field_num", "site_num", "time_us", "value")


def pack_slice(frame: pl.DataFrame, choices: list[Any] | None = None) -> PackedSlice:
    """The packed rows and daily partials of `frame`'s readings, in any order."""
    frame = sort_for_packing(frame)
    return pack_sorted(
        frame["device_num"].to_numpy(),
        frame["field_num"].to_numpy(),
        frame["site_num"].to_numpy(),
        frame["time_us"].to_numpy(),
        frame["value"].to_numpy(),
        choices,
    )


def pack_sorted(
    device: np.ndarray,
    field: np.ndarray,
    site: np.ndarray,
    time_us: np.ndarray,
    value: np.ndarray,
    choices: list[Any] | None = None,
) -> PackedSlice:
    """The packed rows and daily partials of readings whose series (device, field, site)
    are contiguous, each in (time, value) order (as sort_for_packing leaves them).

    Numeric readings hold float values; with `choices`, values are indexes into it and
    stored as jsonb. Numbers order equal times by value as PostgreSQL does (NaN aside);
    jsonb values at one time of one series would need jsonb's own order, so they are
    refused: the benchmark's series have one reading per time.
    """
    device, field, site = (a.astype(np.int32, copy=False) for a in (device, field, site))
    time_us = time_us.astype(np.int64, copy=False)
    period = time_us // PERIOD_US * PERIOD_US
    row_starts = starts_of(device, field, site, period)
    if choices is not None and len(time_us) > 1:
        repeated = ~row_starts[1:] & (time_us[1:] == time_us[:-1])
        if repeated.any():
            raise ValueError("two jsonb readings of one series at one time")
    runs = time_runs(row_starts, time_us - period)
    first = np.flatnonzero(row_starts)
    n = np.diff(np.append(first, len(time_us)))
    runs_per_row = np.bincount(runs.row, minlength=len(first))

    prefixes = new_rows(_PREFIX_COLUMNS, len(first), fields=len(PACKED_COLUMNS))
    _key(prefixes, device, field, site, period, first)
    prefixes["n"] = n
    if choices is None:
        values = fixed_array(OID_FLOAT8, _FLOAT8, value.astype(np.float64), n)
    else:
        values = jsonb_array(value, choices, n)
    packed = array_rows(
        prefixes,
        [
            fixed_array(OID_INT8, _INT8, runs.offset, runs_per_row),
            fixed_array(OID_INT8, _INT8, runs.step, runs_per_row),
            fixed_array(OID_INT4, _INT4, runs.count, runs_per_row),
            values,
        ],
    )
    return PackedSlice(
        packed=packed,
        rows=len(first),
        readings=len(time_us),
    )


def _key(
    rows: np.ndarray,
    device: np.ndarray,
    field: np.ndarray,
    site: np.ndarray,
    start: np.ndarray,
    first: np.ndarray,
) -> None:
    """The series, site and period of each group starting at `first`."""
    rows["device"], rows["field"], rows["site"] = device[first], field[first], site[first]
    rows["period"] = start[first] - PG_EPOCH_US
