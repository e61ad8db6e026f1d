"""Held requests and streams are answered when the worker is told to stop.

granian stops a worker on SIGTERM/SIGINT by closing its listener and waiting for the open
connections to end before it runs the app's lifespan shutdown, so a long poll held for
60 s (or a stream, which never ends on its own) would hold the worker that long, or be
cut when it is killed. The worker's signal handler is therefore extended: it still sets
granian's stop signal, and first wakes every live hub of the process (app/notify/hub.py),
so that each held request answers 304 and each stream ends at once, while the connection
is still served.

granian installs the handler in `granian._signals.set_loop_signals`, called in the
worker after the app is loaded; `install` wraps that function (call it when loading the
app in the worker). Without granian (tests in-process) nothing changes.
"""

from __future__ import annotations

import signal
from typing import Any

from app.notify.hub import close_every_hub

_INSTALLED = False


def install() -> None:
    global _INSTALLED
    if _INSTALLED:
        return
    try:
        import granian._signals as granian_signals
    except ImportError:
        return
    original = granian_signals.set_loop_signals

    def set_loop_signals(loop: Any) -> Any:
        stop = original(loop)

        def on_signal(*_: Any) -> None:
            close_every_hub()
            stop.set()

        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, on_signal)
        return stop

    granian_signals.set_loop_signals = set_loop_signals
    _INSTALLED = True
