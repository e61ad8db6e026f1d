"""Time zones of bucketed history and exports (integrations.md section 5).

A zone decides which partials nest in its local buckets. Partials are UTC hours and UTC
days. A UTC hour lies inside one local bucket of a whole-hour width when every offset the
zone uses is a whole number of hours (its local hours then start on UTC hours, and its
clock changes happen on them); a UTC day lies inside one local day only when the offset
is zero. Zones with half-hour or 45-minute offsets (Asia/Kolkata, Australia/Adelaide,
Asia/Kathmandu, Pacific/Chatham) take every bucket from the readings one by one.
"""

from __future__ import annotations

import functools
import zoneinfo
from datetime import UTC, datetime, timedelta
from enum import Enum

from app.core.errors import invalid_parameter

# Offsets are surveyed week by week over this span (no zone has kept an offset for less
# than a week since 1970), each change located to the second; ranges outside the span
# are answered from raw readings.
SURVEY_FROM = datetime(1970, 1, 1, tzinfo=UTC)
SURVEY_TO = datetime(2100, 1, 1, tzinfo=UTC)
STEP = timedelta(days=7)


class ZoneKind(Enum):
    UTC = "utc"  # offset zero throughout: UTC hours and days nest
    WHOLE_HOURS = "whole_hours"  # UTC hours nest in local hours, days, weeks and months
    OTHER = "other"  # raw readings only


@functools.cache
def known_zones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def parse_tz(tz: str | None) -> str | None:
    """An IANA zone name as spelled in the tz database, or a 400 naming `tz`."""
    if tz is None:
        return None
    if tz not in known_zones():
        raise invalid_parameter("tz", "must be an IANA time zone name such as Europe/Berlin")
    return tz


def _offset(zone: zoneinfo.ZoneInfo, moment: datetime) -> timedelta:
    offset = moment.astimezone(zone).utcoffset()
    assert offset is not None
    return offset


def _change(zone: zoneinfo.ZoneInfo, before: datetime, after: datetime) -> datetime:
    """The first second in (before, after] with the offset of `after` (tz data is in
    whole seconds)."""
    low, high = 0, int((after - before).total_seconds())
    first = _offset(zone, before)
    while high - low > 1:
        middle = (low + high) // 2
        if _offset(zone, before + timedelta(seconds=middle)) == first:
            low = middle
        else:
            high = middle
    return before + timedelta(seconds=high)


@functools.cache
def _survey(tz: str) -> ZoneKind:
    zone = zoneinfo.ZoneInfo(tz)
    hour = timedelta(hours=1)
    offsets: set[timedelta] = set()
    changes_on_hours = True
    moment, previous = SURVEY_FROM, _offset(zone, SURVEY_FROM)
    while moment < SURVEY_TO:
        offset = _offset(zone, moment)
        offsets.add(offset)
        if offset != previous:
            change = _change(zone, moment - STEP, moment)
            changes_on_hours &= (change - SURVEY_FROM) % hour == timedelta(0)
        moment, previous = moment + STEP, offset
    if offsets == {timedelta(0)}:
        return ZoneKind.UTC
    if changes_on_hours and all(offset % hour == timedelta(0) for offset in offsets):
        return ZoneKind.WHOLE_HOURS
    return ZoneKind.OTHER


def zone_kind(tz: str | None, start: datetime, end: datetime) -> ZoneKind:
    if tz is None:
        return ZoneKind.UTC
    if start < SURVEY_FROM or end > SURVEY_TO:
        return ZoneKind.OTHER
    return _survey(tz)


def week_hours_across_midnight(tz: str, start: datetime, end: datetime) -> list[int]:
    """The hours of the week (0-167: day of the packed week * 24 + UTC hour of the day) that can
    lie in another local day than their day's noon, in a zone of whole-hour offsets over
    [start, end) (sql/history/history.sql bucketed_num_local_days reads them by subscript
    from each packed week): with offset o a local midnight falls on the UTC hour
    m = -o mod 24, and the hours from it to the day's far end belong to the other local
    day ([m, 24) past noon, [0, m) before). Offsets are sampled every week of the range, as
    the survey does, and at its ends."""
    zone = zoneinfo.ZoneInfo(tz)
    hours: set[int] = set()
    moment = start
    while True:
        midnight = -_offset(zone, min(moment, end)) // timedelta(hours=1) % 24
        hours.update(range(midnight, 24) if midnight > 12 else range(midnight))
        if moment >= end:
            return [day * 24 + hour for day in range(7) for hour in sorted(hours)]
        moment += STEP


def local_naive(moment: datetime, tz: str | None) -> datetime:
    """The wall-clock time of `moment` in the zone, as a naive UTC-like datetime."""
    if tz is None:
        return moment
    try:
        return moment.astimezone(zoneinfo.ZoneInfo(tz)).replace(tzinfo=UTC)
    except OverflowError:  # the edges of the datetime range
        return moment
