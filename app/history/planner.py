"""How a history request is answered: its resolution, its bucket count and its sources.

A bucketed request reads the coarsest partials whose buckets nest in the requested ones:
the daily rollups of the packed readings for whole-day multiples and calendar months,
their hourly partials for whole-hour multiples, and the readings one by one for
everything else. The days and hours of [from, to) that are only partly inside the range
(the edges) come from the next finer source, down to single readings, so an edge bucket
aggregates exactly the readings inside the range (D12); raw rows (the open week, late
arrivals) are always read one by one. With `tz` (integrations.md section 5) buckets
follow the local clock: UTC hours nest in them only in zones whose offsets are whole
hours, UTC days only in zones at offset zero (app/history/zones.py); other zones read the
readings one by one. avg, sum and count of whole local days in a whole-hour zone read UTC
days whole and correct them by the hours across local midnight, with the UTC segments
(app/history/series.py bucketed_statement).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from fractions import Fraction

from app.core.durations import CALENDAR_UNITS, fraction_digits, iso_duration_parts
from app.core.errors import invalid_parameter
from app.history.zones import ZoneKind, local_naive

MICROS_PER_SECOND = 1_000_000
HOUR = 3600 * MICROS_PER_SECOND
DAY = 24 * HOUR
MAX_BUCKETS = 10_000
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# time_bucket's default origins: Monday 2000-01-03 for fixed intervals (so weeks start
# on Mondays), 2000-01-01 for month intervals.
FIXED_ORIGIN_US = 946_857_600 * MICROS_PER_SECOND

# A component's fraction (`.` or `,`) has at most nine digits: a longer one is refused as
# not a duration at all, like any other text the grammar does not take.
MAX_FRACTION_DIGITS = 9
# Bucket widths are bounded so that every one is a valid PostgreSQL interval and a
# time_bucket width: at most 100 years (1200 months, or 36,525 days of fixed length).
MAX_MONTHS = 1200
MAX_MICROS = 36_525 * DAY
# Whole parts longer than this (leading zeros aside) are far over the bound, and Python
# refuses int() of very long digit strings.
_MAX_DIGITS = 20
_MICROS_PER_UNIT = {
    "weeks": 7 * DAY,
    "days": DAY,
    "hours": HOUR,
    "minutes": 60 * MICROS_PER_SECOND,
    "seconds": MICROS_PER_SECOND,
}
NAMED = {"hourly": "PT1H", "daily": "P1D"}


@dataclass(frozen=True)
class Resolution:
    """A bucket width: calendar months, or an exact number of microseconds."""

    text: str
    months: int = 0
    micros: int = 0

    @property
    def interval(self) -> str:
        """The interval as PostgreSQL reads it (passed as text, cast in SQL)."""
        if self.months:
            return f"{self.months} months"
        return f"{self.micros} microseconds"

    @property
    def nests_days(self) -> bool:
        return self.months > 0 or self.micros % DAY == 0

    @property
    def nests_hours(self) -> bool:
        return self.nests_days or self.micros % HOUR == 0

    def bucket_index(self, moment: datetime) -> int:
        if self.months:
            return ((moment.year - 2000) * 12 + moment.month - 1) // self.months
        return (to_micros(moment) - FIXED_ORIGIN_US) // self.micros


@functools.lru_cache(maxsize=256)
def parse_resolution(text: str) -> Resolution | None:
    """None for `raw`; a 400 naming `resolution` for anything that is not a duration >= PT1S.
    Kept per text (a Resolution is immutable; refusals are raised anew): its exact
    arithmetic (Fraction) was ~3% of a bucketed /history request's CPU (py-spy).

    A component may be fractional (`PT1.5H`, `P0.5D`) when the duration it gives is a whole
    number of microseconds (as time_bucket widths are); years and months must be whole.
    """
    if text == "raw":
        return None
    written = iso_duration_parts(NAMED.get(text, text))
    if written is None or any(fraction_digits(v) > MAX_FRACTION_DIGITS for v in written.values()):
        raise invalid_parameter(
            "resolution", "must be raw, hourly, daily or an ISO 8601 duration such as PT15M"
        )
    parts = {k: v.lstrip("0") or "0" for k, v in written.items()}
    fractional = [k for k, v in parts.items() if "." in v]
    if fractional and fractional != list(parts)[-1:]:
        raise invalid_parameter("resolution", "only the last component may have a fraction")
    if any(len(v.partition(".")[0]) > _MAX_DIGITS for v in parts.values()):
        raise invalid_parameter("resolution", "must be at most 100 years (P100Y)")
    if any("." in parts.get(unit, "") for unit in CALENDAR_UNITS):
        raise invalid_parameter("resolution", "years and months must be whole numbers")
    months = 12 * int(parts.get("years", 0)) + int(parts.get("months", 0))
    exact = sum(
        (Fraction(parts[unit]) * size for unit, size in _MICROS_PER_UNIT.items() if unit in parts),
        Fraction(0),
    )
    if exact.denominator != 1:
        raise invalid_parameter("resolution", "must be a whole number of microseconds")
    micros = int(exact)
    if months and micros:
        raise invalid_parameter(
            "resolution", "a duration in months or years cannot also have days or a time part"
        )
    if months > MAX_MONTHS or micros > MAX_MICROS:
        raise invalid_parameter("resolution", "must be at most 100 years (P100Y)")
    if not months and micros < MICROS_PER_SECOND:
        raise invalid_parameter("resolution", "must be at least PT1S")
    return Resolution(text=text, months=months, micros=micros)


def to_micros(moment: datetime) -> int:
    delta = moment - EPOCH
    return (delta.days * 86_400 + delta.seconds) * MICROS_PER_SECOND + delta.microseconds


def from_micros(micros: int) -> datetime:
    return EPOCH + timedelta(microseconds=micros)


def floor_to(moment: datetime, unit: int) -> datetime:
    return from_micros(to_micros(moment) // unit * unit)


def ceil_to(moment: datetime, unit: int, limit: datetime) -> datetime:
    """The next boundary at or after `moment`, or `limit` if that is earlier (the boundary
    may lie past the last representable datetime, 9999-12-31)."""
    micros = -(-to_micros(moment) // unit) * unit
    return limit if micros >= to_micros(limit) else from_micros(micros)


def bucket_count(
    start: datetime, end: datetime, resolution: Resolution, tz: str | None = None
) -> int:
    """How many buckets [start, end) spans (in `tz`, counted on the local clock)."""
    first, last = local_naive(start, tz), local_naive(end - timedelta(microseconds=1), tz)
    return resolution.bucket_index(last) - resolution.bucket_index(first) + 1


@dataclass(frozen=True)
class Segments:
    """Readings [from, hour_lo), hourly partials [hour_lo, day_lo), daily [day_lo, day_hi),
    hourly [day_hi, hour_hi), readings [hour_hi, to); empty segments have equal bounds."""

    hour_lo: datetime
    day_lo: datetime
    day_hi: datetime
    hour_hi: datetime


def plan_segments(
    start: datetime, end: datetime, resolution: Resolution, zone: ZoneKind = ZoneKind.UTC
) -> Segments:
    if zone is ZoneKind.OTHER:
        return Segments(end, end, end, end)
    if resolution.nests_days and zone is ZoneKind.UTC:
        day_lo, day_hi = ceil_to(start, DAY, end), floor_to(end, DAY)
        if day_lo < day_hi:
            return Segments(ceil_to(start, HOUR, end), day_lo, day_hi, floor_to(end, HOUR))
    if resolution.nests_hours:
        hour_lo, hour_hi = ceil_to(start, HOUR, end), floor_to(end, HOUR)
        if hour_lo < hour_hi:
            return Segments(hour_lo, hour_hi, hour_hi, hour_hi)
    return Segments(end, end, end, end)
