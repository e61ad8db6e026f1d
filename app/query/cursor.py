"""The cursors of POST /query: where the next page starts, signed and bound to its query.

A cursor is `<payload>.<signature>`, both base64url without padding: the payload is JSON
(the key it was given to, the digest of the query, when it expires, the range the first
page resolved, and the position), the signature its HMAC-SHA256 under the cursor secret.
Only a cursor this service signed, for this key and this query, before it expired, is
read back; anything else is 400 `invalid_cursor`. The position is a keyset: a series by
(device id, field position, agg position), and inside it the last point given (a bucket's
start, or a raw reading's time, value and site num with how many readings of that very
key were given, since readings may repeat one), so a page never depends on where the
readings are stored (a week packed between two pages reads the same).

The secret is CURSOR_SECRET when set (every instance behind one address must share it).
Unset, it is a random secret kept in the database (schema/150-cursor-secret.sql), made
once and read by every instance of that database: cursors then survive restarts and work
across instances without configuration. (A random secret per process would not: a page
asked of another instance or after a restart would be refused.)
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from typing import Any

import msgspec

from app.core.errors import ApiError, ErrorCode

# Valid for an hour (the contract asks for at least 10 minutes and at most 24 hours).
LIFETIME_S = 3600
_SECRET_CONTEXT = b"telemetry POST /query cursor v1"


class Position(msgspec.Struct, array_like=True, frozen=True):
    """Where the next page starts: the series (device id, field and agg positions), and
    after which point of it (None: at its start). `time_us` is a bucket start or a raw
    reading's time in epoch microseconds; raw positions add the reading's value and site
    num and how many readings with that key were given."""

    device_id: str
    field: int
    agg: int
    time_us: int | None = None
    value: Any = None
    site_num: int = 0
    given: int = 0


class CursorPayload(msgspec.Struct, array_like=True, frozen=True):
    key_id: str
    query: str  # the digest of the query (app/query/service.py query_digest)
    expires: int  # epoch seconds
    start_us: int  # the range the first page resolved (`now-P1D` stays the same)
    end_us: int
    position: Position


_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder(CursorPayload).decode


def derive_key(secret: str | bytes) -> bytes:
    """The signing key of a server secret (HMAC, so the secret itself never signs)."""
    raw = secret.encode() if isinstance(secret, str) else secret
    return hmac.new(raw, _SECRET_CONTEXT, hashlib.sha256).digest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def invalid_cursor(problem: str) -> ApiError:
    return ApiError(400, ErrorCode.INVALID_CURSOR, f"cursor: {problem}")


def sign(
    key: bytes,
    key_id: str,
    digest: str,
    start_us: int,
    end_us: int,
    position: Position,
    now: float | None = None,
) -> str:
    expires = int((time.time() if now is None else now) + LIFETIME_S)
    payload = _encode(CursorPayload(key_id, digest, expires, start_us, end_us, position))
    signature = hmac.new(key, payload, hashlib.sha256).digest()
    return f"{_b64(payload)}.{_b64(signature)}"


def verify(
    key: bytes, cursor: str, key_id: str, digest: str, now: float | None = None
) -> CursorPayload:
    """The payload of a cursor this service signed for this key and query, still valid."""
    payload_text, dot, signature_text = cursor.partition(".")
    if not dot:
        raise invalid_cursor("is not a cursor of this service")
    try:
        payload, signature = _unb64(payload_text), _unb64(signature_text)
    except ValueError:
        raise invalid_cursor("is not a cursor of this service") from None
    expected = hmac.new(key, payload, hashlib.sha256).digest()
    if not hmac.compare_digest(signature, expected):
        raise invalid_cursor("is not a cursor of this service")
    try:
        decoded = _decode(payload)
    except msgspec.DecodeError:
        raise invalid_cursor("is not a cursor of this service") from None
    if decoded.key_id != key_id:
        raise invalid_cursor("was given to another key")
    if decoded.query != digest:
        raise invalid_cursor("belongs to another query (only limit may change between pages)")
    if decoded.expires < (time.time() if now is None else now):
        raise invalid_cursor("has expired; start again from the first page")
    return decoded
