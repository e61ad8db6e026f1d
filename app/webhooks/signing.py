"""Standard Webhooks signatures (https://www.standardwebhooks.com/, integrations.md 1.3).

A secret is `whsec_` + base64 of random bytes; the key is those bytes. The signature of a
message is `v1,` + base64(HMAC-SHA256(key, "{id}.{timestamp}.{body}")); during a secret
rotation both secrets sign and the header carries both, separated by a space.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
import time

PREFIX = "whsec_"
MIN_KEY_BYTES = 24
MAX_KEY_BYTES = 64
TOLERANCE_S = 5 * 60


class SignatureError(Exception):
    """A message whose signature or timestamp does not verify."""


def new_secret(key_bytes: int = 32) -> str:
    return PREFIX + base64.b64encode(secrets.token_bytes(key_bytes)).decode()


def secret_key(secret: str) -> bytes:
    """The key bytes of a `whsec_` secret; ValueError when it is not one."""
    if not secret.startswith(PREFIX):
        raise ValueError("must start with whsec_")
    try:
        key = base64.b64decode(secret[len(PREFIX) :], validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("not base64 after whsec_") from None
    if not MIN_KEY_BYTES <= len(key) <= MAX_KEY_BYTES:
        raise ValueError(f"must hold {MIN_KEY_BYTES} to {MAX_KEY_BYTES} random bytes")
    return key


def signature(secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    signed = f"{msg_id}.{timestamp}.".encode() + body
    digest = hmac.new(secret_key(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def headers(
    secrets_: list[str], msg_id: str, body: bytes, timestamp: int | None = None
) -> dict[str, str]:
    """The headers of one attempt, signed by every secret given (one, or two in rotation)."""
    timestamp = int(time.time()) if timestamp is None else timestamp
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": " ".join(signature(s, msg_id, timestamp, body) for s in secrets_),
        "content-type": "application/json",
    }


def verify(secret: str, headers_: dict[str, str], body: bytes, now: float | None = None) -> None:
    """Raises SignatureError unless one of the signatures is the secret's and the
    timestamp is within five minutes (what a receiver should check)."""
    msg_id = headers_.get("webhook-id", "")
    stamp = headers_.get("webhook-timestamp", "")
    if not msg_id or not stamp.isdigit():
        raise SignatureError("missing webhook-id or webhook-timestamp")
    now = time.time() if now is None else now
    if abs(now - int(stamp)) > TOLERANCE_S:
        raise SignatureError("timestamp too far from now")
    expected = signature(secret, msg_id, int(stamp), body)
    for candidate in headers_.get("webhook-signature", "").split():
        if hmac.compare_digest(candidate, expected):
            return
    raise SignatureError("no signature matches the secret")
