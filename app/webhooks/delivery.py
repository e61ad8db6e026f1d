"""One delivery attempt and what it means (integrations.md 1.3).

Success is a 2xx within the timeout. Redirects are never followed (a 3xx is a failure).
`410 Gone` disables the endpoint at once. `429`/`503` with `Retry-After` postpone the
message by exactly that long and are not counted as an attempt. Anything else is a
failed attempt, retried on the schedule (scaled by TELEMETRY_WEBHOOK_RETRY_SCALE, ±10 %
jitter) and given up after the last step.
"""

from __future__ import annotations

import asyncio
import random
import ssl
import time
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from urllib.parse import urlsplit

import msgspec

from app.webhooks import safety, signing
from app.webhooks.client import Client, ProtocolError

# Waits after the 1st, 2nd, ... failed attempt; after the 10th attempt the message fails.
SCHEDULE_S = (5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400)
RESPONSE_KEEP = 1024


class Job(msgspec.Struct, frozen=True):
    """A claimed message: what to send, where, signed by which secrets."""

    event_num: int
    endpoint_id: str
    attempts: int
    event_id: str
    body: bytes
    url: str
    secrets: list[str]


class Result(msgspec.Struct, frozen=True):
    """An attempt as the log keeps it, and its consequence (`result`: ok, retry,
    postpone, gone) with the time the message is due again."""

    event_num: int
    endpoint_id: str
    at: datetime
    status: int | None
    error: str | None
    latency_ms: int
    response: str | None
    result: str
    next_at: datetime
    give_up: bool


def retry_delay(failed_attempts: int, scale: float) -> float | None:
    """Seconds until the next attempt after `failed_attempts` failures; None: give up."""
    if failed_attempts > len(SCHEDULE_S):
        return None
    return SCHEDULE_S[failed_attempts - 1] * scale * random.uniform(0.9, 1.1)


def retry_after(value: str | None, now: datetime) -> float | None:
    """Seconds of a Retry-After header (delta-seconds or an HTTP date); None if absent."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - now).total_seconds())


async def _post(
    client: Client, job: Job, timeout_s: float, allow_private: bool
) -> tuple[int, str, str | None]:
    """(status, first KiB of the body, Retry-After) of one POST to the checked address."""
    headers = signing.headers(job.secrets, job.event_id, job.body)
    headers["user-agent"] = "telemetry-webhooks/1"
    parts = urlsplit(job.url)
    tls = parts.scheme == "https"
    async with asyncio.timeout(timeout_s):
        address = await safety.resolve(job.url, allow_private)
        response = await client.post(
            address=address,
            port=parts.port or (443 if tls else 80),
            tls=tls,
            host=parts.hostname or "",
            host_header=safety.host_header(job.url),
            target=(parts.path or "/") + (f"?{parts.query}" if parts.query else ""),
            headers=headers,
            body=job.body,
        )
    text = response.body.decode("utf-8", "replace")
    return response.status, text, response.headers.get("retry-after")


def _error_class(exc: BaseException) -> str:
    if isinstance(exc, safety.Refused):
        return str(exc)
    if isinstance(exc, TimeoutError):
        return "timeout"
    if isinstance(exc, ssl.SSLError):
        return "tls_error"
    if isinstance(exc, asyncio.IncompleteReadError | ConnectionResetError | BrokenPipeError):
        return "connection_closed"
    if isinstance(exc, OSError):
        return "connect_error"
    if isinstance(exc, ProtocolError | asyncio.LimitOverrunError):
        return "protocol_error"
    if isinstance(exc, ValueError) and "whsec" in str(exc):
        return "invalid_secret"
    return "error"


async def attempt(
    client: Client, job: Job, *, timeout_s: float, scale: float, allow_private: bool
) -> Result:
    at = datetime.now(UTC)
    started = time.monotonic()
    status: int | None = None
    response: str | None = None
    error: str | None = None
    wait: str | None = None
    try:
        status, response, wait = await _post(client, job, timeout_s, allow_private)
    except Exception as exc:  # any failure of one attempt is that attempt's logged outcome
        error = _error_class(exc)
    latency_ms = int((time.monotonic() - started) * 1000)
    now = datetime.now(UTC)

    def result(kind: str, delay: float | None) -> Result:
        return Result(
            event_num=job.event_num,
            endpoint_id=job.endpoint_id,
            at=at,
            status=status,
            error=error,
            latency_ms=latency_ms,
            response=response,
            result=kind,
            next_at=now + timedelta(seconds=delay or 0.0),
            give_up=delay is None,
        )

    if status is not None and 200 <= status < 300:
        return result("ok", 0.0)
    if status in (429, 503):
        postpone = retry_after(wait, now)
        if postpone is not None:
            return result("postpone", postpone)
    delay = retry_delay(job.attempts + 1, scale)
    return result("gone" if status == 410 else "retry", delay)
