"""The granian server the app is served by, configured in one place.

`telemetry serve` builds it here; the benchmark suite's HTTP floor is meant to be served
by the same configuration (benchmarks/README.md), so it can build it here too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from granian.server import MPServer, MTServer


def granian_server(target: str, *, host: str, port: int, workers: int) -> MPServer | MTServer:
    """A granian server of the ASGI app factory `target` on uvloop, without granian's own
    access log (the app writes one, app/observe) and with a listen backlog of 2048."""
    from granian import Granian
    from granian.constants import Interfaces, Loops

    return Granian(
        target=target,
        factory=True,
        address=host,
        port=port,
        workers=workers,
        interface=Interfaces.ASGI,
        loop=Loops.uvloop,
        log_access=False,
        backlog=2048,
    )
