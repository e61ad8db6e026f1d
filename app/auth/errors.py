"""The 401 and 429 answers of authentication (decisions D2, D4) and the rate-limit headers."""

from __future__ import annotations

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


def rate_headers(limit: int, remaining: int) -> dict[str, str]:
    return {"X-RateLimit-Limit": str(limit), "X-RateLimit-Remaining": str(max(remaining, 0))}


def limited_error(outcome: str, limit: int, remaining: int, retry_after: int) -> ApiError:
    headers = rate_headers(limit, remaining)
    headers["Retry-After"] = str(retry_after)
    return ApiError(429, ErrorCode(outcome), _LIMITED[outcome], headers)
