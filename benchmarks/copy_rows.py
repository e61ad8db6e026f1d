"""Rows of PostgreSQL's binary COPY format as numpy record arrays.

A row is its field count (int16) and then, per column, a length word (int32) and the
value. Fixed-width columns become one record array, so a whole batch of rows is one
`tobytes()`; variable-length parts (arrays, jsonb) are written by their callers after
the fixed part. Column names `nf` and `l1`, `l2`, ... are the count and the length words.
"""

from __future__ import annotations

import numpy as np

Columns = list[tuple[str, str]]  # (name, numpy format) per fixed-width column, in order


def row_type(columns: Columns) -> np.dtype:
    fields: list[tuple[str, str]] = [("nf", ">i2")]
    for i, (name, fmt) in enumerate(columns, 1):
        fields += [(f"l{i}", ">i4"), (name, fmt)]
    return np.dtype(fields)


def new_rows(columns: Columns, count: int, fields: int | None = None) -> np.ndarray:
    """`count` rows of `columns` with their field count (`fields`: the row's whole column
    count, when `columns` are only its fixed-width start) and every length word set."""
    rows = np.empty(count, dtype=row_type(columns))
    rows["nf"] = len(columns) if fields is None else fields
    for i, (_, fmt) in enumerate(columns, 1):
        rows[f"l{i}"] = np.dtype(fmt).itemsize
    return rows
