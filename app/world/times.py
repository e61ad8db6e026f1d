"""Times in world files: RFC 3339, `now`, `now-<ISO 8601 duration>`, `now+<duration>`.

Years and months move by calendar arithmetic (the day is clamped to the month's last
day, so `now-P1M` on 31 March is the last day of February); weeks, days and the time
part are exact durations. Fractions are accepted only on the smallest unit given, and
not on years or months, whose length varies.
"""

from __future__ import annotations

import calendar
from datetime import UTC, datetime, timedelta

from app.core.durations import CALENDAR_UNITS, iso_duration_parts


class Duration:
    """A parsed ISO 8601 duration: calendar months plus an exact timedelta."""

    __slots__ = ("exact", "months")

    def __init__(self, months: int, exact: timedelta) -> None:
        self.months = months
        self.exact = exact

    def add_to(self, moment: datetime, sign: int = 1) -> datetime:
        return add_months(moment, sign * self.months) + sign * self.exact


def parse_duration(text: str) -> Duration:
    """PnYnMnWnDTnHnMnS; raises ValueError for anything else."""
    written = iso_duration_parts(text.strip().upper())
    if written is None or any("." in written.get(unit, "") for unit in CALENDAR_UNITS):
        raise ValueError(f"not an ISO 8601 duration: {text!r}")
    parts = {k: float(v) for k, v in written.items()}
    months = int(parts.get("years", 0)) * 12 + int(parts.get("months", 0))
    exact = timedelta(
        weeks=parts.get("weeks", 0),
        days=parts.get("days", 0),
        hours=parts.get("hours", 0),
        minutes=parts.get("minutes", 0),
        seconds=parts.get("seconds", 0),
    )
    return Duration(months, exact)


def add_months(moment: datetime, months: int) -> datetime:
    if months == 0:
        return moment
    index = moment.year * 12 + (moment.month - 1) + months
    year, month = divmod(index, 12)
    day = min(moment.day, calendar.monthrange(year, month + 1)[1])
    return moment.replace(year=year, month=month + 1, day=day)


def parse_rfc3339(text: str) -> datetime:
    """An RFC 3339 timestamp or date; without an offset it is UTC (D6)."""
    candidate = text.strip()
    if candidate[-1:] in ("z", "Z"):
        candidate = candidate[:-1] + "+00:00"
    value = datetime.fromisoformat(candidate)
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def resolve_time(text: str, now: datetime) -> datetime:
    """A world-file time relative to `now` (evaluated once per load); ValueError if bad."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("not a time: expected RFC 3339, now, now-<duration> or now+<duration>")
    candidate = text.strip()
    lowered = candidate.lower()
    if lowered == "now":
        return now
    if lowered.startswith(("now-", "now+")):
        sign = -1 if lowered[3] == "-" else 1
        try:
            return parse_duration(candidate[4:]).add_to(now, sign)
        except (ValueError, OverflowError):
            raise ValueError(f"not a valid relative time: {text!r}") from None
    try:
        return parse_rfc3339(candidate)
    except ValueError:
        raise ValueError(
            f"not a time: {text!r} (expected RFC 3339, now, now-<duration> or now+<duration>)"
        ) from None
