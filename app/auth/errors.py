"""The 401 and 429 answers of authentication (decisions D2, D4) and the rate-limit headers."""

from __future__ import annotations

import functools

from app.core.errors import ApiError, ErrorCode

_CHALLENGE = {"WWW-Authenticate": "Bearer"}
_FAILURES = {
    "unauthorized": "missing, malformed or unknown API key",
    "key_expired": "the API key has expired",
    "key_revoked": "the API key has been revoked",
}
_LIMITED = {
    "rate_limited": "per-minute request limit exceeded",
    "quota_exceeded": "daily request quota exceeded",
}


def is_failure(outcome: str) -> bool:
    return outcome in _FAILURES


def unauthorized(code: str) -> ApiError:
    return ApiError(401, ErrorCode(code), _FAILURES[code], dict(_CHALLENGE))


@functools.lru_cache(maxsize=1024)
def rate_policy(limit: int, day_limit: int) -> str:
    """The IETF `RateLimit-Policy` field (draft-ietf-httpapi-ratelimit-headers): the
    per-minute window and the daily quota, a structured-field list of named policies with
    their quota `q` and window `w` in seconds. One string per plan, kept."""
    return f'"minute";q={limit};w=60, "day";q={day_limit};w=86400'


def rate_headers(
    limit: int,
    remaining: int,
    day_limit: int,
    day_remaining: int,
    retry_after: int | None = None,
    day_reset: int | None = None,
) -> dict[str, str]:
    """The rate-limit fields of an authenticated answer: the legacy `X-RateLimit-*` pair
    (the minute window) and the IETF `RateLimit-Policy` and `RateLimit` fields, which also
    carry the daily quota (`r`: what is left; `t`: seconds until more is, on a refusal)."""
    left = max(remaining, 0)
    day_left = max(day_remaining, 0)
    minute = f'"minute";r={left}' + (f";t={retry_after}" if retry_after is not None else "")
    day = f'"day";r={day_left}' + (f";t={day_reset}" if day_reset is not None else "")
    return {
        "X-RateLimit-Limit": str(limit),
        "X-RateLimit-Remaining": str(left),
        "RateLimit-Policy": rate_policy(limit, day_limit),
        "RateLimit": f"{minute}, {day}",
    }


def limited_error(
    outcome: str, limit: int, remaining: int, retry_after: int, day_limit: int, day_remaining: int
) -> ApiError:
    """The 429 of a refused request: its `Retry-After`, and the `t` of the refusing policy."""
    by_day = outcome == "quota_exceeded"
    headers = rate_headers(
        limit,
        remaining,
        day_limit,
        0 if by_day else day_remaining,
        retry_after=None if by_day else retry_after,
        day_reset=retry_after if by_day else None,
    )
    headers["Retry-After"] = str(retry_after)
    return ApiError(429, ErrorCode(outcome), _LIMITED[outcome], headers)
