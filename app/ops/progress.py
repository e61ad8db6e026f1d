"""A one-line progress bar with a rate on stderr, for long operator commands."""

from __future__ import annotations

import sys
import time
from typing import TextIO

# Below this many items a bar would flash by; the summary line says enough.
MIN_ITEMS = 1000


class ProgressBar:
    """`update(done)` redraws at most ten times a second; `finish()` ends the line."""

    def __init__(self, label: str, total: int, stream: TextIO | None = None) -> None:
        self.label = label
        self.total = total
        self.stream = stream or sys.stderr
        self.started = time.perf_counter()
        self.drawn_at = 0.0
        self.done = 0
        self.enabled = total >= MIN_ITEMS

    def update(self, done: int) -> None:
        self.done = done
        now = time.perf_counter()
        if self.enabled and (now - self.drawn_at >= 0.1 or done >= self.total):
            self.drawn_at = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        fraction = self.done / self.total if self.total else 1.0
        width = 30
        bar = "#" * int(fraction * width)
        elapsed = now - self.started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        self.stream.write(
            f"\r{self.label} [{bar:<{width}}] {fraction * 100:5.1f}% "
            f"{self.done:,}/{self.total:,} {rate:,.0f}/s"
        )
        self.stream.flush()

    def finish(self) -> None:
        if self.enabled:
            self._draw(time.perf_counter())
            self.stream.write("\n")
            self.stream.flush()
