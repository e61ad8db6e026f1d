"""Encoding a downlink payload from a template's `layout` (operations.md, section 2).

The layout is a list of `{field, type}`; the payload is the fields' values packed one
after another in layout order. Values come from the template's `sampleData`, overridden
by the request's `data`. Integers must be JSON integers (never `15.0` or `true`), which
keeps the bytes on the air exactly what the caller wrote.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Mapping, Sequence
from typing import Any

from app.core.errors import ApiError, ErrorCode, invalid_body

# type -> (struct format, minimum, maximum) for the integer types.
_INTEGER_TYPES: dict[str, tuple[str, int, int]] = {
    "uint8": (">B", 0, 0xFF),
    "int8": (">b", -0x80, 0x7F),
    "uint16be": (">H", 0, 0xFFFF),
    "uint16le": ("<H", 0, 0xFFFF),
    "int16be": (">h", -0x8000, 0x7FFF),
    "int16le": ("<h", -0x8000, 0x7FFF),
    "uint32be": (">I", 0, 0xFFFFFFFF),
    "uint32le": ("<I", 0, 0xFFFFFFFF),
    "int32be": (">i", -0x80000000, 0x7FFFFFFF),
    "int32le": ("<i", -0x80000000, 0x7FFFFFFF),
}
_FLOAT32_MAX = 3.4028234663852886e38


def _encode_value(name: str, kind: str, value: Any) -> bytes:
    if kind in _INTEGER_TYPES:
        fmt, low, high = _INTEGER_TYPES[kind]
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise invalid_body(name, f"must be an integer from {low} to {high} ({kind})")
        return struct.pack(fmt, value)
    if kind == "float32be":
        if (
            not isinstance(value, int | float)
            or isinstance(value, bool)
            or not math.isfinite(value)
            or abs(value) > _FLOAT32_MAX
        ):
            raise invalid_body(name, "must be a number within the float32 range (float32be)")
        return struct.pack(">f", value)
    if kind == "bool8":
        if not isinstance(value, bool):
            raise invalid_body(name, "must be true or false (bool8)")
        return b"\x01" if value else b"\x00"
    raise ApiError(
        400,
        ErrorCode.INVALID_BODY,
        f"{name}: the template's layout has the unsupported type {kind!r}",
    )


def encode_payload(
    layout: Sequence[Mapping[str, Any]],
    sample_data: Mapping[str, Any],
    data: Mapping[str, Any] | None,
) -> bytes:
    """The payload bytes, or 400 `invalid_body` naming the offending `data.<field>`."""
    fields = [str(item.get("field")) for item in layout]
    known = set(fields)
    for name in data or {}:
        if name not in known:
            raise invalid_body(f"data.{name}", "is not a field of the template")
    values = {**sample_data, **(data or {})}
    parts = []
    for item, name in zip(layout, fields, strict=True):
        if name not in values:
            raise invalid_body(f"data.{name}", "is required (the template has no sample value)")
        parts.append(_encode_value(f"data.{name}", str(item.get("type")), values[name]))
    return b"".join(parts)
