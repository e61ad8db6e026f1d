"""Which rollups a time zone may use: UTC, zones whose offsets are whole hours over the
range, and the others."""

from __future__ import annotations

from datetime import UTC, datetime

from app.history.zones import ZoneKind, zone_kind


def test_which_rollups_a_zone_may_use() -> None:
    start, end = datetime(2020, 1, 1, tzinfo=UTC), datetime(2027, 1, 1, tzinfo=UTC)
    assert zone_kind(None, start, end) is ZoneKind.UTC
    assert zone_kind("UTC", start, end) is ZoneKind.UTC
    for zone in ["Europe/Berlin", "America/New_York", "Europe/London"]:
        assert zone_kind(zone, start, end) is ZoneKind.WHOLE_HOURS, zone
    for zone in ["Asia/Kolkata", "Australia/Adelaide", "Asia/Kathmandu", "Pacific/Chatham"]:
        assert zone_kind(zone, start, end) is ZoneKind.OTHER, zone
