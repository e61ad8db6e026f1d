"""How a history request is answered: its resolution, its bucket count and its sources.

A bucketed request reads the coarsest source whose buckets nest in the requested ones:
daily rollups for whole-day multiples and calendar months, hourly rollups for whole-hour
multiples, raw readings for everything else. The days and hours of [from, to) that are
only partly inside the range (the edges) come from the next finer source, down to raw
readings, so an edge bucket aggregates exactly the readings inside the range (D12).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from app.core.errors import invalid_parameter

MICROS_PER_SECOND = 1_000_000
HOUR = 3600 * MICROS_PER_SECOND
DAY = 24 * HOUR
MAX_BUCKETS = 10_000
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# time_bucket's default origins: Monday 2000-01-03 for fixed intervals (so weeks start
# on Mondays), 2000-01-01 for month intervals.
FIXED_ORIGIN_US = 946_857_600 * MICROS_PER_SECOND

_DURATION = re.compile(
    r"^P(?!$)(?:(?P<years>\d+)Y)?(?:(?P<months>\d+)M)?(?:(?P<weeks>\d+)W)?(?:(?P<days>\d+)D)?"
    r"(?:T(?!$)(?:(?P<hours>\d+)H)?(?:(?P<minutes>\d+)M)?(?:(?P<seconds>\d+(?:\.\d{1,6})?)S)?)?$"
)
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


def parse_resolution(text: str) -> Resolution | None:
    """None for `raw`; a 400 naming `resolution` for anything that is not a duration >= PT1S."""
    if text == "raw":
        return None
    match = _DURATION.match(NAMED.get(text, text))
    if match is None:
        raise invalid_parameter(
            "resolution", "must be raw, hourly, daily or an ISO 8601 duration such as PT15M"
        )
    parts = {k: v for k, v in match.groupdict().items() if v is not None}
    months = 12 * int(parts.get("years", 0)) + int(parts.get("months", 0))
    seconds = parts.get("seconds", "0")
    whole, _, fraction = seconds.partition(".")
    micros = (
        int(whole) * MICROS_PER_SECOND
        + int((fraction + "000000")[:6])
        + int(parts.get("minutes", 0)) * 60 * MICROS_PER_SECOND
        + int(parts.get("hours", 0)) * HOUR
        + (int(parts.get("days", 0)) + 7 * int(parts.get("weeks", 0))) * DAY
    )
    if months and micros:
        raise invalid_parameter(
            "resolution", "a duration in months or years cannot also have days or a time part"
        )
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


def ceil_to(moment: datetime, unit: int) -> datetime:
    return from_micros(-(-to_micros(moment) // unit) * unit)


def bucket_count(start: datetime, end: datetime, resolution: Resolution) -> int:
    """How many buckets [start, end) touches."""
    last = end - timedelta(microseconds=1)
    return resolution.bucket_index(last) - resolution.bucket_index(start) + 1


@dataclass(frozen=True)
class Segments:
    """Boundaries of raw [from, hour_lo), hourly [hour_lo, day_lo), daily [day_lo, day_hi),
    hourly [day_hi, hour_hi), raw [hour_hi, to); empty segments have equal bounds."""

    hour_lo: datetime
    day_lo: datetime
    day_hi: datetime
    hour_hi: datetime


def plan_segments(start: datetime, end: datetime, resolution: Resolution) -> Segments:
    if resolution.nests_days:
        day_lo, day_hi = ceil_to(start, DAY), floor_to(end, DAY)
        if day_lo < day_hi:
            return Segments(ceil_to(start, HOUR), day_lo, day_hi, floor_to(end, HOUR))
    if resolution.nests_hours:
        hour_lo, hour_hi = ceil_to(start, HOUR), floor_to(end, HOUR)
        if hour_lo < hour_hi:
            return Segments(hour_lo, hour_hi, hour_hi, hour_hi)
    return Segments(end, end, end, end)
