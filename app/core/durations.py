"""Durations as the service reads them, each grammar written once.

ISO 8601 durations (`PnYnMnWnDTnHnMnS`) are read by world-file and API times (`now-P1D`,
app/world/times.py, also fill's maxGap) and by /history's resolution
(app/history/planner.py). Both read the text with `iso_duration_parts` and then apply their
own rules with their own messages: times accept any case and surrounding space, fractions
of any length on weeks and the units below; a resolution is case-sensitive, takes at most
nine fraction digits, and says why it refuses a fraction on years or months.

Command-line options take the shorter `24h` form (`parse_short_duration`).
"""

from __future__ import annotations

import re
from datetime import timedelta

# Every component may carry a fraction (`.` or `,`) here; the callers decide which may.
_NUMBER = r"\d+(?:[.,]\d+)?"
_ISO_DURATION = re.compile(
    rf"^P(?!$)(?:(?P<years>{_NUMBER})Y)?(?:(?P<months>{_NUMBER})M)?(?:(?P<weeks>{_NUMBER})W)?"
    rf"(?:(?P<days>{_NUMBER})D)?"
    rf"(?:T(?!$)(?:(?P<hours>{_NUMBER})H)?(?:(?P<minutes>{_NUMBER})M)?(?:(?P<seconds>{_NUMBER})S)?)?$"
)
CALENDAR_UNITS = ("years", "months")


def iso_duration_parts(text: str) -> dict[str, str] | None:
    """The components of an ISO 8601 duration as written, a decimal `,` read as `.`: name
    (years, months, weeks, days, hours, minutes, seconds) -> number, in that order and only
    those given; None when `text` is not one. Case and space are the caller's."""
    match = _ISO_DURATION.match(text)
    if match is None:
        return None
    return {name: v.replace(",", ".") for name, v in match.groupdict().items() if v is not None}


def fraction_digits(number: str) -> int:
    """How many digits a component's number has after its decimal point."""
    return len(number.partition(".")[2])


_SHORT_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_short_duration(text: str) -> timedelta:
    """`90s`, `15m`, `24h`, `2d` or plain seconds; ValueError saying what is wrong."""
    body, unit = (text[:-1], text[-1]) if text and text[-1] in _SHORT_UNITS else (text, "s")
    try:
        value = float(body)
    except ValueError:
        raise ValueError(f"not a duration (e.g. 24h, 30m): {text}") from None
    if value < 0:
        raise ValueError("must not be negative")
    return timedelta(seconds=value * _SHORT_UNITS[unit])
