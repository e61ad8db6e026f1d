"""Closed weeks of benchmark readings packed on the client, in PostgreSQL's binary COPY
format: the rows of packed_num / packed_other, packed_hours_num / packed_hours_other and
rollup_day_num / rollup_day_other that the packing job (`pack_range_<kind>` in
schema/definitions/035-packing.sql) would write for the same raw readings, so a bulk load
writes each row once and never holds the raw rows of closed weeks.

The encoding is the packing job's, bit for bit: one packed row per (device, field, site,
period), period = packed_period(time) (a week on the Unix epoch); values ordered by
(time, value); times as runs (time_runs: a time starts a new run when its step from the
previous time differs from that time's own step, or is 0; otherwise the second time of a
row never starts one). The hourly partials (one row per packed row: per hour of its week
with readings) and the daily rollups (one row per UTC day) hold what `hours_of_merged`
computes: count, sum, min, max, first and last reading, and the composable partials of
schema/180-composable-partials.sql and 181-state-partials.sql (integral where an hour's
times are uneven, increase of counters where an hour holds a reset, the durations of
state values). Sums are taken as PostgreSQL takes them, in numeric
(benchmarks/numeric_sums.py). tests/integration/test_bulk_packing.py checks every column
against the database's own packer.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec
import numpy as np
import polars as pl

from benchmarks.copy_rows import Columns, new_rows
from benchmarks.numeric_sums import digits15, numeric_sums

PERIOD_US = 7 * 86400 * 1_000_000
DAY_US = 86400 * 1_000_000
HOUR_US = 3600 * 1_000_000
PG_EPOCH_US = 946_684_800 * 1_000_000  # 2000-01-01 UTC, the origin of binary timestamps
OID_INT2, OID_INT4, OID_INT8, OID_FLOAT8, OID_JSONB = 21, 23, 20, 701, 3802

SERIES_COLUMNS = ["device_num", "field_num", "site_num"]
PACKED_COLUMNS = [*SERIES_COLUMNS, "period", "n", "offsets", "steps", "counts", "values"]
# The partials of both kinds: those of every value, the number-only ones in their place.
_NUMBER_ONLY = ["sum", "min", "max"]
HOURS_NUM_COLUMNS = [
    *SERIES_COLUMNS, "period", "hours", "n", *_NUMBER_ONLY, "last_time", "last_value",
    "first_time", "first_value", "increase", "integral",
]  # fmt: skip
HOURS_OTHER_COLUMNS = [
    *SERIES_COLUMNS, "period", "hours", "n", "last_time", "last_value", "first_time",
    "durations",
]  # fmt: skip
ROLLUP_NUM_COLUMNS = [
    *SERIES_COLUMNS, "bucket", "n", *_NUMBER_ONLY, "last_time", "last_value", "first_time",
    "first_value", "increase", "integral",
]  # fmt: skip
ROLLUP_OTHER_COLUMNS = [
    *SERIES_COLUMNS, "bucket", "n", "last_time", "last_value", "first_time", "durations",
]  # fmt: skip
# The tables of each kind of readings that PackedSlice's payloads go to, in its order.
PACKED_TABLES = {
    "num": [
        ("packed_num", PACKED_COLUMNS),
        ("packed_hours_num", HOURS_NUM_COLUMNS),
        ("rollup_day_num", ROLLUP_NUM_COLUMNS),
    ],
    "other": [
        ("packed_other", PACKED_COLUMNS),
        ("packed_hours_other", HOURS_OTHER_COLUMNS),
        ("rollup_day_other", ROLLUP_OTHER_COLUMNS),
    ],
}

# The key of a packed row, of its hourly partials and of a daily rollup (period or bucket).
_KEY: Columns = [("device", ">i4"), ("field", ">i4"), ("site", ">i4"), ("start", ">i8")]
# The fixed part of a packed row: five scalar columns (the array columns follow it).
_PREFIX_COLUMNS: Columns = [*_KEY, ("n", ">i4")]
# A daily rollup of numbers is all fixed-width; one of other values up to its last value.
_ROLLUP_NUM: Columns = [
    *_KEY, ("n", ">i4"), ("sum", ">f8"), ("min", ">f8"), ("max", ">f8"), ("last_time", ">i8"),
    ("last_value", ">f8"), ("first_time", ">i8"), ("first_value", ">f8"),
    ("increase", ">f8"), ("integral", ">f8"),
]  # fmt: skip
_ROLLUP_OTHER_PREFIX: Columns = [*_KEY, ("n", ">i4"), ("last_time", ">i8")]
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
_INT2 = np.dtype([("len", ">i4"), ("v", ">i2")])
_INT4 = np.dtype([("len", ">i4"), ("v", ">i4")])
_INT8 = np.dtype([("len", ">i4"), ("v", ">i8")])
_FLOAT8 = np.dtype([("len", ">i4"), ("v", ">f8")])
_NULL = b"\xff\xff\xff\xff"  # the length word of a NULL


@dataclass
class Runs:
    """The time runs of sorted readings: per run its row, offset, step and count."""

    row: np.ndarray
    offset: np.ndarray
    step: np.ndarray
    count: np.ndarray


@dataclass
class PackedSlice:
    """Binary COPY payloads (without header and trailer) of one kind of readings: packed
    rows, their hourly partials and the daily rollups of their days."""

    packed: bytes
    hours: bytes
    rollups: bytes
    rows: int  # packed rows
    readings: int

    def tables(self, kind: str) -> list[tuple[str, bytes, list[str]]]:
        """Each payload with the table of readings of `kind` ("num" or "other") it is
        copied into, and that table's columns."""
        payloads = (self.packed, self.hours, self.rollups)
        return [
            (table, payload, columns)
            for (table, columns), payload in zip(PACKED_TABLES[kind], payloads, strict=True)
        ]


@dataclass
class Cells:
    """One column of consecutive COPY rows: row r's bytes (its length word and value; for
    an array the header, then the elements) are data[begins[r]:ends[r]] of each part in
    turn."""

    parts: list[tuple[bytes, np.ndarray, np.ndarray]]


def _spans(sizes: np.ndarray, lengths: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Where each row's bytes begin and end in data of elements `sizes` bytes long, row i
    holding `lengths[i]` of them (one each without `lengths`)."""
    offsets = np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)])
    if lengths is None:
        return offsets[:-1], offsets[1:]
    ends = np.cumsum(lengths, dtype=np.int64)
    return offsets[ends - lengths], offsets[ends]


def _fixed(
    dtype: np.dtype[Any], values: np.ndarray, null: np.ndarray | None = None
) -> tuple[bytes, np.ndarray]:
    """Elements of fixed-width `values` (NULL where `null`), and each one's size."""
    elements = np.empty(len(values), dtype=dtype)
    elements["len"] = dtype["v"].itemsize
    elements["v"] = values
    sizes = np.full(len(values), dtype.itemsize, dtype=np.int64)
    if null is None or not null.any():
        return elements.tobytes(), sizes
    elements["len"][null] = -1
    keep = np.ones((len(values), dtype.itemsize), dtype=bool)
    keep[null, 4:] = False
    sizes[null] = 4
    return elements.view(np.uint8).reshape(len(values), dtype.itemsize)[keep].tobytes(), sizes


def _jsonb(encoded: list[bytes | None]) -> tuple[bytes, np.ndarray]:
    """Elements of jsonb texts (version byte included; None: NULL), and each one's size."""
    elements = [_NULL if e is None else len(e).to_bytes(4, "big") + e for e in encoded]
    return b"".join(elements), np.array([len(e) for e in elements], dtype=np.int64)


def _choices(index: np.ndarray, choices: list[Any]) -> tuple[bytes, np.ndarray]:
    """Elements of the jsonb values `choices[index[j]]`, and each one's size."""
    encoded = [b"\x01" + msgspec.json.encode(c) for c in choices]
    elements = [len(e).to_bytes(4, "big") + e for e in encoded]
    index = index.astype(np.int64)
    sizes = np.array([len(e) for e in elements], dtype=np.int64)[index]
    return b"".join([elements[i] for i in index.tolist()]), sizes


def scalar_cells(elements: tuple[bytes, np.ndarray]) -> Cells:
    """A column of one value a row."""
    data, sizes = elements
    return Cells([(data, *_spans(sizes))])


def array_cells(
    oid: int,
    elements: tuple[bytes, np.ndarray],
    lengths: np.ndarray,
    null_rows: np.ndarray | None = None,
) -> Cells:
    """An array column, `lengths[i]` of `elements` in row i (a NULL array where
    `null_rows`, holding none of them)."""
    data, sizes = elements
    begins, ends = _spans(sizes, lengths)
    headers = np.empty(len(lengths), dtype=_ARRAY)
    headers["len"] = 20 + ends - begins
    headers["ndim"], headers["flags"], headers["oid"] = 1, 0, oid
    headers["dim"], headers["lbound"] = lengths, 1
    header_sizes = np.full(len(lengths), _ARRAY.itemsize, dtype=np.int64)
    if null_rows is not None:
        headers["len"][null_rows] = -1
        header_sizes[null_rows] = 4
    header_begins = np.arange(len(lengths), dtype=np.int64) * _ARRAY.itemsize
    return Cells(
        [(headers.tobytes(), header_begins, header_begins + header_sizes), (data, begins, ends)]
    )


def write_rows(prefixes: np.ndarray, columns: list[Cells]) -> bytes:
    """Rows of COPY data: each row's fixed-width prefix, then its cells of every column."""
    prefix_view, size = memoryview(prefixes.tobytes()), prefixes.dtype.itemsize
    views = [
        (memoryview(data), begins.tolist(), ends.tolist())
        for column in columns
        for data, begins, ends in column.parts
    ]
    parts: list[memoryview] = []
    for r in range(len(prefixes)):
        parts.append(prefix_view[r * size : (r + 1) * size])
        for data, starts, stops in views:
            parts.append(data[starts[r] : stops[r]])
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


# A frame of readings' columns in packed order (by series, site and period, then by
# (time, value) as the values array is), which is also the order pack_sorted takes them.
PACKING_ORDER = ("device_num", "field_num", "site_num", "time_us", "value")


def frame_arrays(frame: pl.DataFrame, names: Sequence[str]) -> list[np.ndarray]:
    """The named columns of a frame of readings as numpy arrays, in the order named."""
    return [frame[name].to_numpy() for name in names]


def sort_for_packing(frame: pl.DataFrame) -> pl.DataFrame:
    """Readings (device_num, field_num, site_num, time_us, value) in packed order."""
    return frame.sort(*PACKING_ORDER)


def pack_slice(
    frame: pl.DataFrame, choices: list[Any] | None = None, counters: Collection[int] = ()
) -> PackedSlice:
    """The packed rows and partials of `frame`'s readings, in any order."""
    device, field, site, time_us, value = frame_arrays(sort_for_packing(frame), PACKING_ORDER)
    return pack_sorted(device, field, site, time_us, value, choices, counters)


def pack_sorted(
    device: np.ndarray,
    field: np.ndarray,
    site: np.ndarray,
    time_us: np.ndarray,
    value: np.ndarray,
    choices: list[Any] | None = None,
    counters: Collection[int] = (),
) -> PackedSlice:
    """The packed rows, hourly partials and daily rollups of readings whose series
    (device, field, site) are contiguous, each in (time, value) order (as sort_for_packing
    leaves them). The readings of a packed week must all be here: its partials are
    written whole, as the packing job writes them.

    Numeric readings hold float values; with `choices`, values are indexes into it and
    stored as jsonb. Numbers order equal times by value as PostgreSQL does (NaN aside);
    jsonb values at one time of one series would need jsonb's own order, so they are
    refused: the benchmark's series have one reading per time. `counters` are the field
    numbers whose measurement is `counter` (their hours keep the increase partials).
    """
    if not len(time_us):
        return PackedSlice(packed=b"", hours=b"", rollups=b"", rows=0, readings=0)
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
        value = value.astype(np.float64, copy=False)
        values = _fixed(_FLOAT8, value)
    else:
        value = value.astype(np.int64, copy=False)
        values = _choices(value, choices)
    packed = write_rows(
        prefixes,
        [
            array_cells(OID_INT8, _fixed(_INT8, runs.offset), runs_per_row),
            array_cells(OID_INT8, _fixed(_INT8, runs.step), runs_per_row),
            array_cells(OID_INT4, _fixed(_INT4, runs.count), runs_per_row),
            array_cells(OID_FLOAT8 if choices is None else OID_JSONB, values, n),
        ],
    )
    readings = Readings(device, field, site, period, time_us, value, row_starts, first)
    if choices is None:
        counter_rows = np.isin(field[first], np.fromiter(counters, np.int32))
        hours, rollups = _number_partials(readings, counter_rows)
    else:
        hours, rollups = _other_partials(readings, choices)
    return PackedSlice(
        packed=packed, hours=hours, rollups=rollups, rows=len(first), readings=len(time_us)
    )


def _key(
    rows: np.ndarray,
    device: np.ndarray,
    field: np.ndarray,
    site: np.ndarray,
    start: np.ndarray,
    first: np.ndarray,
) -> None:
    """The series, site and start (period or day) of each group starting at `first`."""
    rows["device"], rows["field"], rows["site"] = device[first], field[first], site[first]
    rows["start"] = start[first] - PG_EPOCH_US


class Readings:
    """Sorted readings of packed rows (as pack_sorted takes them), and the steps of
    `hours_of_merged` (schema/definitions/035-packing.sql) that every partial shares: each
    reading's hour and day, the groups they form, and the time to the next reading of
    its week (`step`, 0 for the week's last) and whether that next reading falls in the
    same hour or day (the stretch a reading's value holds inside its partial)."""

    def __init__(
        self,
        device: np.ndarray,
        field: np.ndarray,
        site: np.ndarray,
        period: np.ndarray,
        time_us: np.ndarray,
        value: np.ndarray,
        row_starts: np.ndarray,
        first: np.ndarray,
    ) -> None:
        self.device, self.field, self.site, self.period = device, field, site, period
        self.time_us, self.value, self.row_starts = time_us, value, row_starts
        self.first = first  # each packed row's first reading
        size = len(self.time_us)
        hour = (self.time_us - self.period) // HOUR_US
        self.day = self.time_us // DAY_US * DAY_US
        self.hour_starts = self.row_starts | starts_of(hour)
        self.day_starts = self.row_starts | starts_of(self.day)
        self.hour_first = np.flatnonzero(self.hour_starts)
        self.hour_last = np.append(self.hour_first[1:], size) - 1
        self.day_first = np.flatnonzero(self.day_starts)
        self.day_last = np.append(self.day_first[1:], size) - 1
        self.hour_of = np.cumsum(self.hour_starts) - 1  # each reading's hour (group)
        self.hour = hour[self.hour_first]
        self.hour_start = self.period[self.hour_first] + self.hour * HOUR_US
        self.hours_per_row = np.diff(
            np.append(np.searchsorted(self.hour_first, self.first), len(self.hour_first))
        )
        has_next = np.zeros(size, dtype=bool)
        has_next[:-1] = ~self.row_starts[1:]
        self.step = np.zeros(size, dtype=np.int64)
        self.step[:-1] = self.time_us[1:] - self.time_us[:-1]
        self.step[~has_next] = 0
        following = self.time_us + self.step
        self.in_hour = has_next & (following < self.hour_start[self.hour_of] + HOUR_US)
        self.in_day = has_next & (following < self.day + DAY_US)

    def hour_cells(self) -> list[Cells]:
        """The hours (of the week) and counts of each row's hours with readings."""
        lengths = self.hours_per_row
        return [
            array_cells(OID_INT2, _fixed(_INT2, self.hour), lengths),
            array_cells(OID_INT4, _fixed(_INT4, self.hour_last - self.hour_first + 1), lengths),
        ]

    def times_within(self, index: np.ndarray) -> np.ndarray:
        """The times of readings `index` (one per hour) in microseconds after their hour."""
        return self.time_us[index] - self.hour_start

    def in_hours(self, hours: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The readings of `hours` (a mask over the hours) of x, and where their hours
        start among them."""
        pick = hours[self.hour_of]
        return x[pick], np.flatnonzero(self.hour_starts[pick])


def _number_partials(r: Readings, counter_rows: np.ndarray) -> tuple[bytes, bytes]:
    """packed_hours_num and rollup_day_num rows of the numeric readings `r`."""
    value, starts = r.value, r.hour_first
    digits = digits15(value)  # the numeric of each reading, for the sums and integrals
    sums = numeric_sums(value, starts, digits=digits)
    # Each reading's growth over the one before it in the week (a reset: its own value;
    # the week's first: nothing), as the packing job's `growth`.
    previous = np.empty_like(value)
    previous[0:1] = value[0:1]
    previous[1:] = value[:-1]
    reset = ~r.row_starts & (value < previous)
    growth = np.where(r.row_starts, 0.0, np.where(reset, value, value - previous))
    # Integral of an hour, stored where its readings' steps inside it are uneven.
    widest = np.iinfo(np.int64).max
    shortest = np.minimum.reduceat(np.where(r.in_hour, r.step, widest), starts)
    longest = np.maximum.reduceat(np.where(r.in_hour, r.step, -1), starts)
    uneven = (longest >= 0) & (shortest != longest)
    integral = np.zeros(len(starts))
    if uneven.any():
        held, held_starts = r.in_hours(uneven, np.where(r.in_hour, value, 0.0))
        weights, _ = r.in_hours(uneven, np.where(r.in_hour, r.step, 0))
        integral[uneven] = numeric_sums(held, held_starts, weights)
    # Increase of a counter's hour, stored where one of its readings is a reset.
    counter_hours = np.repeat(counter_rows, r.hours_per_row)
    resets = np.logical_or.reduceat(reset, starts) & counter_hours
    increase = np.zeros(len(starts))
    if resets.any():
        grown, grown_starts = r.in_hours(resets, growth)
        increase[resets] = numeric_sums(grown, grown_starts)
    lows, highs = _extreme(np.minimum, value, starts), _extreme(np.maximum, value, starts)
    hour_days = np.flatnonzero(r.day_starts[starts])  # the first hour of each day
    lengths = r.hours_per_row
    prefixes = new_rows(_KEY, len(r.first), fields=len(HOURS_NUM_COLUMNS))
    _key(prefixes, r.device, r.field, r.site, r.period, r.first)
    hours = write_rows(
        prefixes,
        [
            *r.hour_cells(),
            array_cells(OID_FLOAT8, _fixed(_FLOAT8, sums), lengths),
            array_cells(OID_FLOAT8, _fixed(_FLOAT8, lows), lengths),
            array_cells(OID_FLOAT8, _fixed(_FLOAT8, highs), lengths),
            array_cells(OID_INT8, _fixed(_INT8, r.times_within(r.hour_last)), lengths),
            array_cells(OID_FLOAT8, _fixed(_FLOAT8, value[r.hour_last]), lengths),
            array_cells(OID_INT8, _fixed(_INT8, r.times_within(starts)), lengths),
            scalar_cells(_fixed(_FLOAT8, value[r.first])),
            array_cells(
                OID_FLOAT8,
                _fixed(_FLOAT8, increase[counter_hours], ~resets[counter_hours]),
                np.where(counter_rows, lengths, 0),
                null_rows=~counter_rows,
            ),
            array_cells(OID_FLOAT8, _fixed(_FLOAT8, integral, ~uneven), lengths),
        ],
    )
    days = new_rows(_ROLLUP_NUM, len(r.day_first))
    _key(days, r.device, r.field, r.site, r.day, r.day_first)
    first, last = r.day_first, r.day_last
    days["n"] = last - first + 1
    # A day's sum is the sum of its hours' sums (each a float8 already), as the job's.
    days["sum"] = numeric_sums(sums, hour_days)
    days["min"] = _extreme(np.minimum, lows, hour_days)
    days["max"] = _extreme(np.maximum, highs, hour_days)
    days["last_time"] = r.time_us[last] - PG_EPOCH_US
    days["last_value"] = value[last]
    days["first_time"] = r.time_us[first] - PG_EPOCH_US
    days["first_value"] = value[first]
    # A day's increase: the growth of its readings after its first.
    days["increase"] = numeric_sums(growth, first, (~r.day_starts).astype(np.int64))
    days["integral"] = numeric_sums(value, first, np.where(r.in_day, r.step, 0), digits)
    return hours, days.tobytes()


def _extreme(ufunc: np.ufunc, values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """min or max (`ufunc`) of each group as PostgreSQL aggregates it: float8smaller and
    float8larger keep the later of two equal values, so of 0 and -0 the last one."""
    out = ufunc.reduceat(values, starts)
    zero = out == 0
    if zero.any():
        last = np.maximum.reduceat(np.where(values == 0, np.arange(len(values)), -1), starts)
        out[zero] = values[last[zero]]
    return out


def _other_partials(r: Readings, choices: list[Any]) -> tuple[bytes, bytes]:
    """packed_hours_other and rollup_day_other rows of the readings `r` (indexes into
    `choices`)."""
    value, starts = r.value, r.hour_first
    keys = [msgspec.json.encode(c).decode() for c in choices]
    # An hour whose readings hold one value keeps NULL durations; so does such a day.
    mixed_hours = np.minimum.reduceat(value, starts) != np.maximum.reduceat(value, starts)
    lengths = r.hours_per_row
    prefixes = new_rows(_KEY, len(r.first), fields=len(HOURS_OTHER_COLUMNS))
    _key(prefixes, r.device, r.field, r.site, r.period, r.first)
    hours = write_rows(
        prefixes,
        [
            *r.hour_cells(),
            array_cells(OID_INT8, _fixed(_INT8, r.times_within(r.hour_last)), lengths),
            array_cells(OID_JSONB, _choices(value[r.hour_last], choices), lengths),
            array_cells(OID_INT8, _fixed(_INT8, r.times_within(starts)), lengths),
            array_cells(
                OID_JSONB,
                _jsonb(_durations(r.hour_of, mixed_hours, r.in_hour, r.step, value, keys)),
                lengths,
            ),
        ],
    )
    first, last = r.day_first, r.day_last
    mixed_days = np.minimum.reduceat(value, first) != np.maximum.reduceat(value, first)
    day_of = np.cumsum(r.day_starts) - 1
    days = new_rows(_ROLLUP_OTHER_PREFIX, len(first), fields=len(ROLLUP_OTHER_COLUMNS))
    _key(days, r.device, r.field, r.site, r.day, first)
    days["n"] = last - first + 1
    days["last_time"] = r.time_us[last] - PG_EPOCH_US
    rollups = write_rows(
        days,
        [
            scalar_cells(_choices(value[last], choices)),
            scalar_cells(_fixed(_INT8, r.time_us[first] - PG_EPOCH_US)),
            scalar_cells(_jsonb(_durations(day_of, mixed_days, r.in_day, r.step, value, keys))),
        ],
    )
    return hours, rollups


def _durations(
    group_of: np.ndarray,
    mixed: np.ndarray,
    held: np.ndarray,
    step: np.ndarray,
    value: np.ndarray,
    keys: list[str],
) -> list[bytes | None]:
    """Per group (an hour or a day) how long each value held inside it, as jsonb (value's
    JSON text to microseconds, as state_durations): each reading's value holds until the
    next reading when that is inside the group (`held`); None (NULL) where the group is not
    `mixed` (holds one value)."""
    out: list[bytes | None] = [None] * len(mixed)
    chosen = np.flatnonzero(mixed)
    if not len(chosen):
        return out
    counted = mixed[group_of] & held & (step > 0)
    local = np.searchsorted(chosen, group_of[counted])
    totals = np.zeros((len(chosen), len(keys)), dtype=np.int64)
    np.add.at(totals, (local, value[counted]), step[counted])
    for row, group in zip(totals.tolist(), chosen.tolist(), strict=True):
        entries = {keys[c]: micros for c, micros in enumerate(row) if micros > 0}
        out[group] = b"\x01" + msgspec.json.encode(entries)
    return out
