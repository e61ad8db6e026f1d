"""Argon2id password hashing, off the event loop.

Verification always runs exactly one argon2 verify, against a dummy hash with the same
parameters when the user is unknown or has no password, so the time of a login check
does not tell whether an email exists (decisions D14).
"""

from __future__ import annotations

import os
import secrets

import anyio
import anyio.to_thread
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

MIN_PASSWORD = 10
MAX_PASSWORD = 256

_hasher = PasswordHasher()
_DUMMY_HASH = _hasher.hash(secrets.token_urlsafe(24))
# Each hash or verify takes 64 MiB and a core for a while: at most one per core at a time,
# so a burst of logins queues instead of exhausting memory. Created on first use, inside
# the event loop.
_limiter: anyio.CapacityLimiter | None = None


def _argon_limiter() -> anyio.CapacityLimiter:
    global _limiter
    if _limiter is None:
        _limiter = anyio.CapacityLimiter(max(1, os.cpu_count() or 1))
    return _limiter


def _verify(stored_hash: str | None, password: str) -> bool:
    try:
        return bool(_hasher.verify(stored_hash or _DUMMY_HASH, password)) and (
            stored_hash is not None
        )
    except (VerificationError, InvalidHashError):
        return False


async def verify_password(stored_hash: str | None, password: str) -> bool:
    """Whether `password` matches; always one full argon2 verify, in a worker thread."""
    return await anyio.to_thread.run_sync(_verify, stored_hash, password, limiter=_argon_limiter())


async def hash_password(password: str) -> str:
    return await anyio.to_thread.run_sync(_hasher.hash, password, limiter=_argon_limiter())


def password_problem(password: str) -> str | None:
    """Why a new account's password is refused (policy of D14), or None."""
    if len(password) < MIN_PASSWORD:
        return f"the password needs at least {MIN_PASSWORD} characters"
    if len(password) > MAX_PASSWORD:
        return f"the password may have at most {MAX_PASSWORD} characters"
    return None
