"""The granian server the app is served by, configured in one place.

`telemetry serve` builds it here; the benchmark suite's HTTP floor is meant to be served
by the same configuration (benchmarks/README.md), so it can build it here too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from granian.server import MPServer, MTServer

# The request head (request line and header fields) granian's HTTP/1 parser buffers before
# it gives up with its own empty 431. Every head up to this size reaches app/server/face.py,
# whose limits (a target over 8 KiB, headers over 32 KiB) answer in the envelope; only a
# head 32 times the header limit is refused by granian first. It bounds the memory a
# connection can hold while its head arrives (granian's default is 408 KiB).
MAX_HEAD_BUFFER_BYTES = 1024 * 1024


def granian_server(target: str, *, host: str, port: int, workers: int) -> MPServer | MTServer:
    """A granian server of the ASGI app factory `target` on uvloop, without granian's own
    access log (the app writes one, app/observe) and with a listen backlog of 2048.

    WebSocket upgrades are off: the API has no WebSocket route, and with them on granian
    answers every `Upgrade: websocket` request itself (an empty 403, or a plain-text 400
    for a broken handshake) instead of letting the app answer it as the HTTP request it
    also is."""
    from granian import Granian
    from granian.constants import Interfaces, Loops
    from granian.http import HTTP1Settings

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
        websockets=False,
        http1_settings=HTTP1Settings(max_buffer_size=MAX_HEAD_BUFFER_BYTES),
    )
