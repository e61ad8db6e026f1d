"""Helpers shared by the tests: request headers."""

from __future__ import annotations


def bearer(key: str, **extra: str) -> dict[str, str]:
    """The headers of a request authenticated with API key `key` (plus any `extra`)."""
    return {"Authorization": f"Bearer {key}", **extra}
