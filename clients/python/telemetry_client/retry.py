"""Retries that honour `Retry-After` on 429 and 503, as httpx transports.

Being transports, they serve the hand-written layer and the generated calls alike (both
share the client's httpx.Client). A wait longer than `max_wait` (a daily quota's
`Retry-After` is hours) is not slept: the answer is returned and becomes an ApiError.

A 429 is refused before anything is done, so every request is asked again. A 503 may come
from a request that ran out of time after its work was committed, so only reads are: a
write (a downlink, a member) asked twice could happen twice.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import httpx

from telemetry_client.errors import retry_after_seconds

READS = frozenset({"GET", "HEAD", "OPTIONS"})
# POST routes that only read (their body is the question).
READ_POSTS = frozenset({"/api/v1/query"})


def _retried(request: httpx.Request, response: httpx.Response) -> bool:
    if response.status_code == 429:
        return True
    if response.status_code != 503:
        return False
    return request.method in READS or request.url.path in READ_POSTS


def _wait(
    request: httpx.Request, response: httpx.Response, attempt: int, max_wait: float
) -> float | None:
    """Seconds to wait before the next attempt, or None when this answer is final."""
    if not _retried(request, response):
        return None
    delay = retry_after_seconds(response)
    if delay is None:
        # A 503 without Retry-After (the service sends one, a proxy may not): back off.
        delay = min(2.0**attempt, max_wait)
    if delay > max_wait:
        return None
    return delay


class RetryTransport(httpx.BaseTransport):
    def __init__(
        self,
        inner: httpx.BaseTransport | None = None,
        retries: int = 3,
        max_wait: float = 60.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.inner = inner or httpx.HTTPTransport()
        self.retries = retries
        self.max_wait = max_wait
        self.sleep = sleep

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.read()
        attempt = 0
        while True:
            response = self.inner.handle_request(request)
            delay = (
                _wait(request, response, attempt, self.max_wait) if attempt < self.retries else None
            )
            if delay is None:
                return response
            response.close()
            self.sleep(delay)
            attempt += 1

    def close(self) -> None:
        self.inner.close()


class AsyncRetryTransport(httpx.AsyncBaseTransport):
    def __init__(
        self,
        inner: httpx.AsyncBaseTransport | None = None,
        retries: int = 3,
        max_wait: float = 60.0,
    ) -> None:
        self.inner = inner or httpx.AsyncHTTPTransport()
        self.retries = retries
        self.max_wait = max_wait

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await request.aread()
        attempt = 0
        while True:
            response = await self.inner.handle_async_request(request)
            delay = (
                _wait(request, response, attempt, self.max_wait) if attempt < self.retries else None
            )
            if delay is None:
                return response
            await response.aclose()
            await asyncio.sleep(delay)
            attempt += 1

    async def aclose(self) -> None:
        await self.inner.aclose()
