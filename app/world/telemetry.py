"""Replays a world file's telemetry sections through the ingest pipeline.

Owned by the telemetry area; until the pipeline lands, telemetry sections are refused.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any


class TelemetryNotSupported(Exception):
    pass


async def replay_telemetry(connection: Any, world: Any, now: datetime) -> int:
    """Stores the world's uplinks, statusEvents and gatewayStats; returns how many events."""
    if (
        getattr(world, "uplinks", None)
        or getattr(world, "status_events", None)
        or getattr(world, "gateway_stats", None)
    ):
        raise TelemetryNotSupported(
            "uplinks, statusEvents and gatewayStats are not supported yet: "
            "the ingest pipeline has not landed"
        )
    return 0
