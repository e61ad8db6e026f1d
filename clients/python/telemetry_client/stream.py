"""Server-Sent Events of `GET /api/v1/stream` (analytics.md 4), parsed."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class StreamEvent:
    """One event: `latest` (data: a latest values object), `removed` (data: {deviceId}) or
    `reset` (what follows is the whole first send again)."""

    event: str
    data: Any
    id: str | None


async def parse_events(lines: AsyncIterator[str]) -> AsyncIterator[StreamEvent]:
    """Events from the lines of a text/event-stream (the WHATWG rules: `field: value`,
    several `data:` lines joined by newlines, a blank line dispatches, `:` a comment)."""
    event, event_id = "message", None
    data: list[str] = []
    async for raw in lines:
        line = raw.rstrip("\r\n")
        if not line:
            if data:
                text = "\n".join(data)
                try:
                    parsed: Any = json.loads(text)
                except ValueError:
                    parsed = text
                yield StreamEvent(event, parsed, event_id)
            event, data = "message", []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "event":
            event = value
        elif name == "data":
            data.append(value)
        elif name == "id":
            event_id = value
