"""World files without a database: their text, times and durations, and the demo world."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.world.errors import WorldError
from app.world.loader import load_world
from app.world.times import parse_duration, resolve_time

NOW = datetime(2026, 3, 31, 12, 0, tzinfo=UTC)


async def test_malformed_text_is_refused() -> None:
    with pytest.raises(WorldError) as raised:
        await load_world(None, "partners: [ {", now=NOW)
    assert raised.value.message.startswith("world: not valid JSON or YAML")


def test_times_and_durations() -> None:
    assert resolve_time("now", NOW) == NOW
    assert resolve_time("now-PT15M", NOW) == NOW - timedelta(minutes=15)
    assert resolve_time("now+PT1H", NOW) == NOW + timedelta(hours=1)
    assert resolve_time("now-P1W2DT3H4M5S", NOW) == NOW - timedelta(
        days=9, hours=3, minutes=4, seconds=5
    )
    # Months are calendar months: 31 March minus one month is the last day of February.
    assert resolve_time("now-P1M", NOW) == datetime(2026, 2, 28, 12, 0, tzinfo=UTC)
    assert resolve_time("now-P1Y", NOW) == datetime(2025, 3, 31, 12, 0, tzinfo=UTC)
    assert resolve_time("2026-01-01T10:00:00+02:00", NOW) == datetime(2026, 1, 1, 8, tzinfo=UTC)
    assert resolve_time("2026-01-01T10:00:00Z", NOW) == datetime(2026, 1, 1, 10, tzinfo=UTC)
    assert parse_duration("PT0.5S").exact == timedelta(milliseconds=500)
    for bad in ("P", "PT", "P1H", "1D", "P-1D", "PT1.5"):
        with pytest.raises(ValueError):
            parse_duration(bad)


def test_demo_world_is_valid_and_deterministic() -> None:
    from app.world.loader import parse_world
    from app.world.validate import check_world
    from demo.world import build

    world = build()
    assert world == build()
    rows = check_world(parse_world(world), NOW)
    assert len(rows.devices) == 200
    kinds = {f[7] for f in rows.fields}
    data_types = {f[6] for f in rows.fields}
    assert kinds == {"decoded", "static", "formula", "mapping"}
    assert data_types == {"number", "string", "boolean", "date", "location"}
    assert len(parse_world(world).uplinks) > 1000
