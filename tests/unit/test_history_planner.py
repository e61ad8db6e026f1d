"""The history planner: resolutions, bucket counts and which source answers which part."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.core.errors import ApiError
from app.history.planner import (
    DAY,
    HOUR,
    Segments,
    bucket_count,
    parse_resolution,
    plan_segments,
)


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "months", "micros"),
    [
        ("hourly", 0, HOUR),
        ("daily", 0, DAY),
        ("PT15M", 0, 15 * 60 * 10**6),
        ("PT1S", 0, 10**6),
        ("PT1.5S", 0, 1_500_000),
        ("PT6H", 0, 6 * HOUR),
        ("P1D", 0, DAY),
        ("P7D", 0, 7 * DAY),
        ("P1W", 0, 7 * DAY),
        ("P1DT1H", 0, 25 * HOUR),
        ("P1M", 1, 0),
        ("P3M", 3, 0),
        ("P1Y", 12, 0),
        ("P1Y6M", 18, 0),
        # Fractions of the last component, when they give whole microseconds.
        ("PT1.5H", 0, 90 * 60 * 10**6),
        ("PT0.5H", 0, 30 * 60 * 10**6),
        ("PT1,5H", 0, 90 * 60 * 10**6),
        ("P0.5D", 0, 12 * HOUR),
        ("P1DT0.5H", 0, 24 * HOUR + 30 * 60 * 10**6),
        ("PT0.25M", 0, 15 * 10**6),
        # The bounds: 100 years.
        ("P100Y", 1200, 0),
        ("P1200M", 1200, 0),
        ("P36525D", 0, 36525 * DAY),
        ("P000000000000000000000000001D", 0, DAY),
    ],
)
def test_resolutions(text: str, months: int, micros: int) -> None:
    resolution = parse_resolution(text)
    assert resolution is not None
    assert (resolution.text, resolution.months, resolution.micros) == (text, months, micros)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "P",
        "PT",
        "PT0S",
        "PT0.9S",
        "P1M1D",
        "P1YT1H",
        "weekly",
        "1h",
        "PT1.1234567S",
        "pt1h",
        "P101Y",
        "P1201M",
        "P36526D",
        "P200000000Y",
        "PT3000000000H",
        "P" + "9" * 5000 + "D",
        "PT1." + "0" * 20 + "1S",
        "P0.5M",
        "P1.5Y",
        "PT1.5H30M",
        "P.5D",
        "PT0.0001H",
    ],
)
def test_bad_resolutions_name_the_parameter(text: str) -> None:
    with pytest.raises(ApiError) as caught:
        parse_resolution(text)
    assert caught.value.status == 400 and caught.value.message.startswith("resolution:")


def test_raw_is_no_resolution() -> None:
    assert parse_resolution("raw") is None


def test_bucket_counts_follow_time_bucket_origins() -> None:
    week = parse_resolution("P1W")
    assert week is not None
    # 2026-11-16 is a Monday: one week bucket from Monday to Monday, two across it.
    assert bucket_count(at("2026-11-16T00:00:00"), at("2026-11-23T00:00:00"), week) == 1
    assert bucket_count(at("2026-11-15T23:00:00"), at("2026-11-16T01:00:00"), week) == 2
    month = parse_resolution("P1M")
    assert month is not None
    assert bucket_count(at("2026-01-31T00:00:00"), at("2026-03-01T00:00:00"), month) == 2
    assert bucket_count(at("1999-12-31T00:00:00"), at("2000-01-02T00:00:00"), month) == 2
    minute = parse_resolution("PT1M")
    assert minute is not None
    start = at("2026-01-01T00:00:30")
    assert bucket_count(start, start + timedelta(minutes=10_000), minute) == 10_001


def test_segments_use_daily_rollups_inside_and_finer_sources_at_the_edges() -> None:
    day = parse_resolution("P1D")
    assert day is not None
    start, end = at("2026-01-01T10:20:00"), at("2026-01-05T03:40:00")
    assert plan_segments(start, end, day) == Segments(
        hour_lo=at("2026-01-01T11:00:00"),
        day_lo=at("2026-01-02T00:00:00"),
        day_hi=at("2026-01-05T00:00:00"),
        hour_hi=at("2026-01-05T03:00:00"),
    )


def test_segments_fall_back_to_hours_then_raw() -> None:
    day, six, quarter = parse_resolution("P1M"), parse_resolution("PT6H"), parse_resolution("PT15M")
    assert day is not None and six is not None and quarter is not None
    start, end = at("2026-01-01T10:20:00"), at("2026-01-01T23:40:00")
    hours = Segments(*[at("2026-01-01T11:00:00")] + [at("2026-01-01T23:00:00")] * 3)
    assert plan_segments(start, end, day) == hours
    assert plan_segments(start, end, six) == hours
    assert plan_segments(start, end, quarter) == Segments(end, end, end, end)
    short = at("2026-01-01T10:50:00")
    assert plan_segments(start, short, six) == Segments(short, short, short, short)


def test_segments_at_the_end_of_the_calendar() -> None:
    # The next hour and day boundaries after the start lie past 9999-12-31T23:59:59.
    start, end = at("9999-12-31T23:30:00"), at("9999-12-31T23:59:00")
    for text in ("PT1H", "P1D", "P1M"):
        resolution = parse_resolution(text)
        assert resolution is not None
        assert plan_segments(start, end, resolution) == Segments(end, end, end, end)
        assert bucket_count(start, end, resolution) == 1
    day = parse_resolution("P1D")
    assert day is not None
    early = at("9999-12-29T10:20:00")
    assert plan_segments(early, end, day) == Segments(
        hour_lo=at("9999-12-29T11:00:00"),
        day_lo=at("9999-12-30T00:00:00"),
        day_hi=at("9999-12-31T00:00:00"),
        hour_hi=at("9999-12-31T23:00:00"),
    )
