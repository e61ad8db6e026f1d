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
that range (a value below 1e-6 or from 1e15 on in magnitude, a sum past 2**62 * 10**15)
are summed exactly with the decimal module, one value at a time.
"""

from __future__ import annotations

import decimal

import numpy as np

_POW10_F = 10.0 ** np.arange(0, 23)  # exact in float64 up to 10**22
_POW10_I = 10 ** np.arange(0, 19, dtype=np.int64)
_SPLIT = 134_217_729.0  # 2**27 + 1, Dekker's splitter
_TWO53 = 2**53
_INT62 = float(2**62)
_LIMB_DIGITS = 15
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


Digits = tuple[np.ndarray, np.ndarray, np.ndarray]  # mantissa, scale, exact (digits15)


def digits15(x: np.ndarray) -> Digits:
    """x::numeric as PostgreSQL takes it: `(mantissa, scale, exact)` with x's 15
    significant digits equal to mantissa * 10**-scale, and where that was computed (False:
    |x| below 1e-6 or from 1e15 on, left to the decimal module)."""
    x = np.asarray(x, dtype=np.float64)
    # Readings of up to three decimals, the usual case: x is the float nearest to
    # k / 1000 for an integer k below 10**15, so k / 1000 are its 15 digits (DBL_DIG: a
    # decimal of 15 significant digits survives a float8 and back). Small mantissas, too,
    # so that products with microseconds stay in int64.
    k = np.rint(x * 1000.0)
    short = (k / 1000.0 == x) & (np.abs(k) < 1e15)
    mantissa = np.where(short, k, 0.0).astype(np.int64)
    scale = np.full(len(x), 3, dtype=np.int64)
    exact = np.ones(len(x), dtype=bool)
    rest = np.flatnonzero(~short)
    if len(rest):
        mantissa[rest], scale[rest], exact[rest] = _significant(x[rest])
    return mantissa, scale, exact


def _significant(x: np.ndarray) -> Digits:
    """digits15 of any x: the 15 significant digits found on the exact product."""
    magnitude = np.abs(x)
    zero = magnitude == 0
    exact = zero | ((magnitude >= 1e-6) & (magnitude < 1e15))
    safe = np.where(exact & ~zero, magnitude, 1.0)
    scale = 14 - np.floor(np.log10(safe)).astype(np.int64)  # 0..20
    # log10 may be one off next to a power of ten: 15 digits are x * 10**scale in
    # [1e14, 1e15), decided on the exact product where the rounded one is a bound.
    product = safe * np.take(_POW10_F, scale, mode="clip")
    off = np.flatnonzero((product >= 1e15) | (product <= 1e14))
    for _ in range(2):
        if not len(off):
            break
        factor = np.take(_POW10_F, scale[off], mode="clip")
        near = safe[off] * factor
        error = _product_error(safe[off], factor, near)
        above = (near > 1e15) | ((near == 1e15) & (error >= 0))
        below = (near < 1e14) | ((near == 1e14) & (error < 0))
        scale[off] += below.astype(np.int64) - above
        off = off[above | below]
    exact &= (scale >= 0) & (scale <= 22)
    factor = np.take(_POW10_F, scale, mode="clip")
    x = np.where(exact, x, 0.0)
    product = x * factor
    mantissa = np.rint(product)  # ties to even, as printf's rounding of an exact tie
    # A product halfway between integers (it is exact below 2**53 only in the last place)
    # rounds by the sign of the product's error: the exact x * 10**scale decides.
    half = np.flatnonzero(np.abs(product - mantissa) == 0.5)
    if len(half):
        error = _product_error(x[half], factor[half], product[half])
        gap = product[half] - mantissa[half]
        mantissa[half] += ((gap == 0.5) & (error > 0)).astype(np.float64)
        mantissa[half] -= ((gap == -0.5) & (error < 0)).astype(np.float64)
    return np.where(exact, mantissa, 0).astype(np.int64), scale, exact


def numeric_sums(
    x: np.ndarray,
    starts: np.ndarray,
    weight: np.ndarray | None = None,
    digits: Digits | None = None,
) -> np.ndarray:
    """`saturate(sum(x::numeric * weight))` of each group of consecutive elements (group
    g from starts[g] up to the next start; starts ascending from 0, no group empty), as
    float8, bit for bit PostgreSQL's. `weight` holds integers (microseconds; 0 leaves an
    element out); `digits` may give digits15(x) already taken."""
    x = np.asarray(x, dtype=np.float64)
    size, groups = len(x), len(starts)
    out = np.zeros(groups, dtype=np.float64)
    if not groups:
        return out
    mantissa, scale, exact = digits15(x) if digits is None else digits
    if weight is not None:
        weight = np.asarray(weight, dtype=np.int64)
        exact = exact & (np.abs(mantissa).astype(np.float64) * np.abs(weight) < _INT62)
        mantissa = mantissa * weight
    sizes = np.diff(np.append(starts, size))
    common = np.maximum.reduceat(scale, starts)
    shift = np.repeat(common, sizes) - scale
    widest = float(_POW10_F[min(int(shift.max()), 22)]) * float(sizes.max())
    magnitude = float(np.abs(mantissa).max())
    if exact.all() and magnitude * widest < _INT62:
        # Every term and every sum fits int64 as it is (readings of a few decimals). A
        # shift past 18 is only that of zeros here (10**19 alone is past 2**62).
        fast = np.ones(groups, dtype=bool)
        highs = np.zeros(groups, dtype=np.int64)
        lows = np.add.reduceat(mantissa * np.take(_POW10_I, shift, mode="clip"), starts)
        unit = 0
    elif exact.all() and max(magnitude / _POW10_F[9], _POW10_F[9]) * widest < _INT62:
        # 15-digit mantissas (differences of readings): each split at 10**9, the upper
        # and lower parts summed apart.
        fast = np.ones(groups, dtype=bool)
        upper = mantissa // _POW10_I[9]
        power = np.take(_POW10_I, shift, mode="clip")
        highs = np.add.reduceat(upper * power, starts)
        lows = np.add.reduceat((mantissa - upper * _POW10_I[9]) * power, starts)
        highs += lows // _POW10_I[9]  # the carry: lows below 10**9 again
        lows %= _POW10_I[9]
        unit = 9
    else:
        fast, highs, lows = _limb_sums(mantissa, exact, shift, starts, sizes)
        unit = _LIMB_DIGITS
    # The sum as one int64 where it fits (its parts' magnitudes bound it).
    fits = np.abs(highs) < 9 * 10 ** (18 - unit)
    total = np.where(fits, highs, 0) * _POW10_I[unit] + np.where(fits, lows, 0)
    direct = fast & fits & (np.abs(total) < _TWO53)
    power = np.take(_POW10_F, np.abs(common), mode="clip")
    out[direct] = np.where(common >= 0, total / power, total.astype(np.float64) * power)[direct]
    for g in np.flatnonzero(fast & ~direct).tolist():
        out[g] = _to_float(int(highs[g]) * 10**unit + int(lows[g]), int(common[g]))
    for g in np.flatnonzero(~fast).tolist():
        begin, end = int(starts[g]), int(starts[g]) + int(sizes[g])
        out[g] = _decimal_sum(x[begin:end], None if weight is None else weight[begin:end])
    return out


def _limb_sums(
    mantissa: np.ndarray,
    exact: np.ndarray,
    shift: np.ndarray,
    starts: np.ndarray,
    sizes: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sums of mantissa * 10**shift per group as high * 10**15 + low (0 <= low <
    10**15), each term split so: the lows of up to 9,000 terms add up without overflow,
    and the highs of values at a common scale stay far below 2**62. Returns where that
    held (the groups summed here), the highs and the lows."""
    fits = exact & (shift <= 18)
    shift = np.where(fits, shift, 0)
    cut = shift <= _LIMB_DIGITS
    divisor = np.take(_POW10_I, np.where(cut, _LIMB_DIGITS - shift, 0))
    high = np.where(
        cut, mantissa // divisor, mantissa * np.take(_POW10_I, np.maximum(shift - 15, 0))
    )
    low = np.where(cut, mantissa % divisor * np.take(_POW10_I, shift, mode="clip"), 0)
    high_magnitude = np.abs(mantissa) * np.take(_POW10_F, shift) / _POW10_F[_LIMB_DIGITS]
    fast = (
        np.logical_and.reduceat(fits & (high_magnitude < _INT62), starts)
        & (np.add.reduceat(high_magnitude, starts) < _INT62)
        & (sizes < 9000)
    )
    highs = np.add.reduceat(np.where(fits, high, 0), starts)
    lows = np.add.reduceat(np.where(fits, low, 0), starts)
    highs += lows // _POW10_I[_LIMB_DIGITS]  # the carry: lows below 10**15 again
    lows %= _POW10_I[_LIMB_DIGITS]
    return fast, highs, lows


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
