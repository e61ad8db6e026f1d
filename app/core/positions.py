"""The position a network server reports for a device: ChirpStack's location event
(app/core/chirpstack_events.py) and The Things Stack's solved location
(app/ingest/tts_messages.py) both send it as latitude, longitude and altitude, names that
either's JSON naming leaves as they are."""

from __future__ import annotations

from typing import Any

import msgspec


# No docstring: the class's docstring would become the description of The Things Stack's
# body in the OpenAPI document (app/docs/document.py INGEST_SCHEMAS).
class Location(msgspec.Struct):
    latitude: float = 0.0
    longitude: float = 0.0
    altitude: float | None = None

    def as_event_location(self) -> dict[str, Any]:
        """The position as a location event carries it (app/ingest/pipeline.py DeviceEvent)."""
        return {"latitude": self.latitude, "longitude": self.longitude, "altitude": self.altitude}
