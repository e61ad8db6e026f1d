"""The service's errors as one typed exception: the envelope's `code` and `message`."""

from __future__ import annotations

import json
from typing import Any

import httpx


class ApiError(Exception):
    """An answer other than 2xx (and 304): `code` and `message` are the service's envelope
    (`{"error": {"code", "message"}}`, decisions D5); an answer that is not an envelope (a
    proxy's page) gets the code `unexpected_response`."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        request_id: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.request_id = request_id
        self.retry_after = retry_after

    @classmethod
    def from_response(cls, response: httpx.Response) -> ApiError:
        code, message = "unexpected_response", f"HTTP {response.status_code} without an envelope"
        try:
            body: Any = json.loads(response.content)
        except ValueError:
            body = None
        if isinstance(body, dict) and isinstance(body.get("error"), dict):
            error = body["error"]
            code = str(error.get("code", code))
            message = str(error.get("message", message))
        return cls(
            response.status_code,
            code,
            message,
            request_id=response.headers.get("X-Request-ID"),
            retry_after=retry_after_seconds(response),
        )


def retry_after_seconds(response: httpx.Response) -> float | None:
    """`Retry-After` in seconds (the service sends whole seconds; an HTTP date is read too)."""
    value = response.headers.get("Retry-After")
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    from datetime import UTC, datetime

    if when.tzinfo is None:  # `-0000`: UTC, the zone of its writer unknown (RFC 5322)
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def raise_for_envelope(response: httpx.Response) -> httpx.Response:
    """The response itself when it is 2xx or 304, else its ApiError."""
    if response.is_success or response.status_code == 304:
        return response
    if not response.is_stream_consumed:
        response.read()
    raise ApiError.from_response(response)
