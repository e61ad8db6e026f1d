"""Cells of an export as PostgreSQL writes them (the text of `COPY ... TO STDOUT` in CSV, and
the NDJSON lines built from it; sql/export/export.sql), for the rows the service writes
itself (app/export/wide.py): the same bytes whichever side wrote them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any

import msgspec
import numpy as np
import numpy.typing as npt
import polars as pl

Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]


# A CSV string cell beginning with one of these gets a leading ', so that spreadsheets do not
# read it as a formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t")


def neutralise(text: str) -> str:
    return "'" + text if text[:1] in FORMULA_STARTS else text


def neutralised(texts: pl.Series) -> pl.Series:
    """neutralise of each string."""
    starts = "".join(FORMULA_STARTS).replace("-", "\\-")
    return texts.str.replace(f"^([{starts}])", "'${1}")


def float_text(value: float) -> str:
    """A float8 as PostgreSQL's float8out writes it (extra_float_digits 1): the shortest
    digits that read back exactly, fixed-point for decimal exponents -4 to 14."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    shown, power = shortest_digits(abs(value))
    lead = "-" if value < 0 else ""
    if -4 <= power < 15:
        if power >= len(shown) - 1:
            return lead + shown + "0" * (power - len(shown) + 1)
        if power >= 0:
            return lead + shown[: power + 1] + "." + shown[power + 1 :]
        return lead + "0." + "0" * (-power - 1) + shown
    mantissa = shown[0] + ("." + shown[1:] if len(shown) > 1 else "")
    return f"{lead}{mantissa}e{'-' if power < 0 else '+'}{abs(power):02d}"


def shortest_digits(value: float) -> tuple[str, int]:
    """The significant digits of a positive finite float8 as PostgreSQL's Ryu (d2s.c)
    gives them, and the decimal exponent of the first: the shortest decimal strictly
    inside the value's rounding interval, the closest to it of that length. Python's repr
    chooses alike but takes the interval's ends when the mantissa is even, which
    PostgreSQL never does, so a value whose repr is an end is searched for here (above
    2^53 only, where the ends can be short decimals: 6.36810321321301e+16 is
    6.3681032132130096e+16 there, 1.01487e+21 is 1.0148700000000001e+21)."""
    _, digits, exponent = Decimal(repr(value)).as_tuple()
    assert isinstance(exponent, int)
    shown = "".join(map(str, digits)).lstrip("0")
    power = len(shown) + exponent - 1
    shown = shown.rstrip("0")
    exact = Fraction(value)
    mantissa, binary = math.frexp(value)
    unit = Fraction(2) ** max(binary - 53, -1074)
    upper = exact + unit / 2
    lower = exact - (unit / 4 if mantissa == 0.5 and binary > -1021 else unit / 2)

    def inside(candidate: Fraction) -> bool:
        return lower < candidate < upper

    if inside(Fraction(Decimal(repr(value)))):
        return shown, power
    for length in range(len(shown), 18):
        scale = Fraction(10) ** (power - length + 1)
        low = math.floor(exact / scale)
        found = [k for k in (low, low + 1) if inside(k * scale)]
        if found:
            # The closest; of two as close, the even one.
            best = min(found, key=lambda k: (abs(k * scale - exact), k % 2))
            text = str(best)
            top = power - length + 1 + len(text) - 1
            return text.rstrip("0"), top
    return shown, power  # not reached: 17 digits always name the value


def float_texts(values: Floats) -> pl.Series:
    """float_text of each value: polars writes the same shortest digits (Ryu, as
    PostgreSQL) in fixed point from 1e-5 to 1e16, with `.0` after a whole number; the values
    PostgreSQL writes otherwise (or that are zero, infinite or NaN) are written one by one."""
    texts = pl.Series(values, dtype=pl.Float64).cast(pl.String).str.strip_suffix(".0")
    odd = outside_fixed_point(values)
    if len(odd):
        texts = texts.scatter(odd, [float_text(float(values[i])) for i in odd])
    return texts


def outside_fixed_point(values: Floats) -> Ints:
    """The positions of the values that float8out does not write in fixed point (decimal
    exponents -4 to 14), or that are zero, infinite or NaN."""
    magnitude = np.abs(values)
    with np.errstate(invalid="ignore"):
        odd: Ints = np.flatnonzero(~((magnitude >= 1e-4) & (magnitude < 1e15)))
    return odd


def json_number(text: str) -> str:
    """to_jsonb's number: float8out's text read as a numeric (NaN and the infinities are
    JSON strings)."""
    if text in ("NaN", "Infinity", "-Infinity"):
        return f'"{text}"'
    number = Decimal(text)
    return "0" if number.is_zero() else format(number, "f")


def json_numbers(values: Floats) -> pl.Series:
    """json_number of each value: float8out's fixed-point text is already a numeric's
    (but for -0, which is among the values written one by one)."""
    texts = float_texts(values)
    odd = outside_fixed_point(values)
    if len(odd):
        texts = texts.scatter(odd, [json_number(texts[int(i)]) for i in odd])
    return texts


def strings_of(texts: Sequence[str]) -> list[Any]:
    """The values of JSON texts (a string's characters without quotes and escapes)."""
    decoded: list[Any] = msgspec.json.decode("[" + ",".join(texts) + "]")
    return decoded


def time_texts(times: Ints) -> pl.Series:
    """RFC 3339 in UTC with a Z, as PostgreSQL's ISO timestamp text (fractional seconds
    only when there are some, trailing zeros dropped)."""
    # A fleet's devices mostly share their times: each distinct time is written once.
    distinct, index = np.unique(times, return_inverse=True)
    if len(distinct) < len(times):
        return _time_texts(distinct).gather(index)
    return _time_texts(times)


def _time_texts(times: Ints) -> pl.Series:
    moments = pl.Series(times, dtype=pl.Int64)
    stamp = pl.from_epoch(moments, time_unit="us").dt.strftime("%Y-%m-%dT%H:%M:%S")
    fraction = moments % 1_000_000
    if not (fraction != 0).any():
        return stamp + "Z"
    tail = pl.select(
        pl.when(fraction != 0)
        .then("." + fraction.cast(pl.String).str.zfill(6).str.strip_chars_end("0"))
        .otherwise(pl.lit(""))
    ).to_series()
    return stamp + tail + "Z"


def csv_quoted(cells: pl.Expr) -> pl.Expr:
    """COPY's CSV quoting: a cell that is empty or holds a comma, a quote or a line break
    is quoted, its quotes doubled."""
    return (
        pl.when((cells == "") | cells.str.contains(r'[,"\r\n]'))
        .then('"' + cells.str.replace_all('"', '""', literal=True) + '"')
        .otherwise(cells)
    )
