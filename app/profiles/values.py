"""Value rules of the pipeline: coercion to a field's dataType, the string keys of
mapping tables, formula evaluation, alert comparisons, signal quality and battery.

Pure functions over Python values; nothing here touches the database.
"""

from __future__ import annotations

import ast
import datetime as dt
import math
import operator
from collections.abc import Iterable
from decimal import ROUND_FLOOR, Decimal
from typing import Any

import simpleeval

_ZERO, _HALF, _THIRTY, _SEVENTY = Decimal(0), Decimal("0.5"), Decimal(30), Decimal(70)
_TRUE = frozenset({"true", "1", "yes", "on"})
_FALSE = frozenset({"false", "0", "no", "off"})

# The largest magnitude a stored number may have. Stored numbers end up in float8 columns
# whose rollups and history queries SUM them (count * max must stay finite), so a value
# above this, or inf/NaN, is treated like any other value that cannot be coerced: skipped
# and logged when decoded, left out of the reading when a formula or calibration makes it.
MAX_MAGNITUDE = 1e300


def finite(value: int | float) -> bool:
    """Whether a number may be stored: finite with magnitude <= MAX_MAGNITUDE.

    Compares without converting, so a 400-digit int is refused instead of raising
    OverflowError (int and float compare exactly in Python; NaN compares false)."""
    return -MAX_MAGNITUDE <= value <= MAX_MAGNITUDE


def _number(value: Any) -> int | float | None:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float):
        return value if finite(value) else None
    if isinstance(value, str):
        text = value.strip()
        try:
            number: int | float = int(text)
        except ValueError:
            try:
                number = float(text)
            except ValueError:
                return None
        return number if finite(number) else None
    return None


def _boolean(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
    return None


def _date(value: Any) -> str | None:
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value.strip()).isoformat()
        except ValueError:
            return None
    return None


def _location(value: Any) -> dict[str, Any] | None:
    if not isinstance(value, dict):
        return None
    latitude = _number(value.get("latitude"))
    longitude = _number(value.get("longitude"))
    if latitude is None or longitude is None or isinstance(value.get("latitude"), bool):
        return None
    if not (-90 <= latitude <= 90 and -180 <= longitude <= 180):
        return None
    altitude = value.get("altitude")
    altitude = None if altitude is None else _number(altitude)
    return {"latitude": latitude, "longitude": longitude, "altitude": altitude}


def string_form(value: Any) -> str | None:
    """The text a value has as a key of a mapping table: 1 and 1.0 are both "1"."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        try:
            return str(value)
        except ValueError:  # over Python's 4300-digit limit (a formula's huge result)
            return None
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 2**63:
            return str(int(value))
        return repr(value)
    if isinstance(value, str):
        return value
    return None


def _string(value: Any) -> str | None:
    if isinstance(value, str):
        # PostgreSQL's jsonb (and text) cannot hold U+0000: such a value cannot be stored,
        # so it is skipped like any other uncoercible value (never stripped: the stored
        # text would silently differ from what the device sent).
        return None if "\x00" in value else value
    return None if isinstance(value, dict | list) or value is None else string_form(value)


def coerce(value: Any, data_type: str) -> Any:
    """The value as the dataType wants it, or None when it cannot be coerced."""
    if data_type == "number":
        return _number(value)
    if data_type == "string":
        return _string(value)
    if data_type == "boolean":
        return _boolean(value)
    if data_type == "date":
        return _date(value)
    if data_type == "location":
        return _location(value)
    return None


def _sqrt(x: float) -> float:
    return math.sqrt(x)


FUNCTIONS: dict[str, Any] = {
    "abs": abs,
    "min": min,
    "max": max,
    "round": round,
    "sqrt": _sqrt,
    "floor": math.floor,
    "ceil": math.ceil,
    "pow": pow,
    "log": math.log,
    "log10": math.log10,
    "exp": math.exp,
    "int": int,
    "float": float,
}
_CONSTANTS = {"True": True, "False": False, "None": None, "pi": math.pi, "e": math.e}


class Evaluator:
    """simpleeval with a fixed function set; expressions are parsed once per catalog."""

    def __init__(self) -> None:
        self._engine = simpleeval.SimpleEval(functions=FUNCTIONS, names={})

    @staticmethod
    def parse(expression: str) -> ast.Expression:
        parsed: ast.Expression = simpleeval.SimpleEval.parse(expression.strip())
        return parsed

    def evaluate(self, expression: str, parsed: ast.Expression, names: dict[str, Any]) -> Any:
        """The value, or None when the formula fails for these names (never raises)."""
        self._engine.names = {**_CONSTANTS, **names}
        try:
            return self._engine.eval(expression, previously_parsed=parsed)
        except Exception:  # a failing formula leaves its value out (api-spec 2.4)
            return None


_OPERATORS = {
    ">": operator.gt,
    ">=": operator.ge,
    "<": operator.lt,
    "<=": operator.le,
    "==": operator.eq,
    "!=": operator.ne,
}


def breaks_rule(value: Any, op: str, threshold: Any) -> bool:
    """Whether a reading breaks an alert rule; values of unlike types never compare."""
    numeric = (int, float)
    if isinstance(value, numeric) and not isinstance(value, bool):
        if not isinstance(threshold, numeric) or isinstance(threshold, bool):
            number = _number(threshold) if isinstance(threshold, str) else None
            if number is None:
                return op == "!="
            threshold = number
    elif type(value) is not type(threshold):
        return op == "!="
    try:
        return bool(_OPERATORS[op](value, threshold))
    except (TypeError, KeyError):
        return False


def _exact(value: float) -> Decimal:
    # Through the shortest decimal text, so that -7.5 dB is exactly -7.5 and a value like
    # 0.1 is a tenth, as its author wrote it.
    return Decimal(repr(float(value)))


def signal_quality(rssi: float, snr: float) -> int:
    """D15, rounded half up (D17), in exact decimal arithmetic.

    With a = clamp(rssi + 120, 0, 70) and b = clamp(snr + 20, 0, 30),
    100 * (a/70 + b/30) / 2 = 5 * (3a + 7b) / 21, and rounding half up is
    floor((10 * (3a + 7b) + 21) / 42).
    """
    a = min(max(_exact(rssi) + 120, _ZERO), _SEVENTY)
    b = min(max(_exact(snr) + 20, _ZERO), _THIRTY)
    return int((10 * (3 * a + 7 * b) + 21) // 42)


def best_signal(receptions: Iterable[tuple[float, float]]) -> int | None:
    """The signal quality of the best receiving gateway, or None without any.

    A reception with a NaN rssi or snr has no quality; infinities are clamped (D15)."""
    best: int | None = None
    for rssi, snr in receptions:
        if rssi != rssi or snr != snr:  # NaN (proto3 JSON allows "NaN"): no quality
            continue
        quality = signal_quality(rssi, snr)
        if best is None or quality > best:
            best = quality
    return best


def battery_percent(value: Any) -> int | None:
    """A battery reading as a whole percentage: rounded half up, clamped to 0..100."""
    number = _number(value)
    if number is None:
        return None
    if not isinstance(number, int):
        number = int((_exact(number) + _HALF).to_integral_value(rounding=ROUND_FLOOR))
    return min(max(number, 0), 100)
