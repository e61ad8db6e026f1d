"""Headless Chromium with the network off, for the pages the service serves itself
(the interactive reference and the live page): every host but 127.0.0.1 is unreachable,
so a page only renders if everything it loads came from the service."""

from __future__ import annotations

import shutil

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def offline_chromium(*args: str) -> list[str]:
    """The command line of a headless Chromium that reaches only loopback, then `args`."""
    assert CHROMIUM is not None
    return [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        # Network off: no name resolves, and anything not on loopback goes nowhere.
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
        "--proxy-server=http://127.0.0.1:9",
        "--proxy-bypass-list=127.0.0.1",
        *args,
    ]
