"""PostgreSQL's numeric sums of float8 values, reproduced bit for bit with numpy.

The packing job (schema/definitions/035-packing.sql) sums readings in numeric and rounds
once: `saturate(sum(v::numeric))`. A float8 becomes numeric with 15 significant digits
(float8_numeric prints it with `%.15g`), the numeric sum is exact, and numeric back to
float8 is correctly rounded (float8in, strtod), so the result depends neither on the order
of the values nor on pairwise or sequential float addition; it generally differs from both
in the last bits, and the client packer (benchmarks/packed.py) must write the same bits.

Each value therefore becomes an integer mantissa and a decimal scale, its 15 significant
digits found exactly in float64 (an error-free product, Dekker's, tells which way the
rounding goes at a tie); a group's mantissas are brought to one scale and summed in int64,
and the sum is divided by the power of ten once: one IEEE division of exact operands when
the sum is below 2**53, Python's correctly rounded int division otherwise. Groups outside
that range (a value below 1e-6 or from 1e15 on in magnitude, a sum that could overflow
int64) are summed exactly with the decimal module, one value at a time.
"""

from __future__ import annotations

import decimal

import numpy as np

_POW10_F = 10.0 ** np.arange(0, 23)  # exact in float64 up to 10**22
_POW10_I = 10 ** np.arange(0, 19, dtype=np.int64)
_SPLIT = 134_217_729.0  # 2**27 + 1, Dekker's splitter
_TWO53 = 2**53
_INT62 = float(2**62)
# Wide enough for the exact sum of any float8 values' 15-digit decimals, and any exponent.
_EXACT = decimal.Context(prec=1000, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)


def _product_error(a: np.ndarray, b: np.ndarray, p: np.ndarray) -> np.ndarray:
    """a * b - p, exactly, where p is the float64 product of a and b (Dekker)."""
    c = _SPLIT * a
    a_hi = c - (c - a)
    a_lo = a - a_hi
    c = _SPLIT * b
    b_hi = c - (c - b)
    b_lo = b - b_hi
    return ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo


def digits15(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """x::numeric as PostgreSQL takes it: `(mantissa, scale, exact)` with x's 15
    significant digits equal to mantissa * 10**-scale (trailing zeros stripped; zero is
    (0, 0)), and where that was computed (False: |x| below 1e-6 or from 1e15 on)."""
    x = np.asarray(x, dtype=np.float64)
    magnitude = np.abs(x)
    zero = magnitude == 0
    exact = zero | ((magnitude >= 1e-6) & (magnitude < 1e15))
    safe = np.where(exact & ~zero, magnitude, 1.0)
    scale = 14 - np.floor(np.log10(safe)).astype(np.int64)  # 0..20
    # log10 may be one off next to a power of ten: 15 digits are x * 10**scale in
    # [1e14, 1e15), decided on the exact product.
    for _ in range(2):
        factor = _POW10_F[np.clip(scale, 0, 22)]
        product = safe * factor
        error = _product_error(safe, factor, product)
        above = (product > 1e15) | ((product == 1e15) & (error >= 0))
        below = (product < 1e14) | ((product == 1e14) & (error < 0))
        scale = scale - above + below
    exact &= (scale >= 0) & (scale <= 22)
    factor = _POW10_F[np.clip(scale, 0, 22)]
    x = np.where(exact, x, 0.0)
    product = x * factor
    error = _product_error(x, factor, product)
    mantissa = np.rint(product)  # ties to even, as printf's rounding of an exact tie
    off = product - mantissa  # exact: both are multiples of product's last place
    mantissa += (off == 0.5) & (error > 0)
    mantissa -= (off == -0.5) & (error < 0)
    mantissa = np.where(exact, mantissa, 0).astype(np.int64)
    for digits in (8, 4, 2, 1):
        divisible = mantissa % _POW10_I[digits] == 0
        mantissa = np.where(divisible, mantissa // _POW10_I[digits], mantissa)
        scale = scale - digits * divisible
    scale = np.where(mantissa == 0, 0, scale)
    return mantissa, scale, exact


def numeric_sums(x: np.ndarray, starts: np.ndarray, weight: np.ndarray | None = None) -> np.ndarray:
    """`saturate(sum(x::numeric * weight))` of each group of consecutive elements (group
    g from starts[g] up to the next start; starts ascending from 0, no group empty), as
    float8, bit for bit PostgreSQL's. `weight` holds integers (microseconds)."""
    x = np.asarray(x, dtype=np.float64)
    size, groups = len(x), len(starts)
    out = np.zeros(groups, dtype=np.float64)
    if not groups:
        return out
    mantissa, scale, exact = digits15(x)
    if weight is not None:
        weight = np.asarray(weight, dtype=np.int64)
        exact &= np.abs(mantissa).astype(np.float64) * np.abs(weight) < _INT62
        mantissa = np.where(exact, mantissa * weight, 0)
    sizes = np.diff(np.append(starts, size))
    nonzero = mantissa != 0
    least = np.iinfo(np.int64).min
    common = np.maximum.reduceat(np.where(nonzero, scale, least), starts)
    common = np.where(common == least, 0, common)
    shift = np.where(nonzero, np.repeat(common, sizes) - scale, 0)
    fits = shift <= 18
    magnitude = np.abs(mantissa).astype(np.float64) * 10.0 ** np.clip(shift, 0, 18)
    fast = (
        np.logical_and.reduceat(exact & fits, starts)
        & (np.add.reduceat(magnitude, starts) < _INT62)
        & (common <= 22)
        & (common >= -22)
    )
    terms = np.where(exact & fits, mantissa * _POW10_I[np.clip(shift, 0, 18)], 0)
    total = np.add.reduceat(terms, starts)
    direct = fast & (np.abs(total) < _TWO53)
    power = _POW10_F[np.abs(common)]
    out[direct] = np.where(common >= 0, total / power, total.astype(np.float64) * power)[direct]
    for g in np.flatnonzero(fast & ~direct).tolist():
        out[g] = _to_float(int(total[g]), int(common[g]))
    for g in np.flatnonzero(~fast).tolist():
        begin, end = int(starts[g]), int(starts[g]) + int(sizes[g])
        out[g] = _decimal_sum(x[begin:end], None if weight is None else weight[begin:end])
    return out


def _to_float(total: int, scale: int) -> float:
    """total * 10**-scale correctly rounded, saturated to +-Infinity."""
    try:
        return total / 10**scale if scale >= 0 else float(total * 10**-scale)
    except OverflowError:
        return float("inf") if total > 0 else float("-inf")


def _decimal_sum(x: np.ndarray, weight: np.ndarray | None) -> float:
    """The exact numeric sum of one group, one value at a time (any magnitude)."""
    with decimal.localcontext(_EXACT):
        total = decimal.Decimal(0)
        for i, value in enumerate(x.tolist()):
            term = decimal.Decimal(format(value, ".15g"))
            total += term if weight is None else term * int(weight[i])
        return float(total)
