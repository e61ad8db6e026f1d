"""The Python client's reading of text/event-stream (clients/python/telemetry_client/stream.py):
the WHATWG rules the stream of analytics.md 4 is written by (the served stream is exercised
in tests/integration/test_python_client.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from telemetry_client.stream import StreamEvent, parse_events


async def _lines(*lines: str) -> AsyncIterator[str]:
    for line in lines:
        yield line


async def _events(*lines: str) -> list[StreamEvent]:
    return [event async for event in parse_events(_lines(*lines))]


async def test_events_comments_ids_and_multi_line_data() -> None:
    events = await _events(
        ": heartbeat",
        "event: latest",
        "id: 17",
        'data: {"deviceId": "a",',
        'data: "values": {}}',
        "",
        ":",
        "",
        "event: removed\r",
        'data:{"deviceId": "b"}',
        "",
        "data: not json",
        "",
    )
    assert events == [
        StreamEvent("latest", {"deviceId": "a", "values": {}}, "17"),
        StreamEvent("removed", {"deviceId": "b"}, "17"),
        StreamEvent("message", "not json", "17"),
    ]


async def test_an_event_without_its_blank_line_is_not_dispatched() -> None:
    assert await _events("event: latest", 'data: {"deviceId": "a"}') == []
