"""The asyncpg pool: one per worker process, with codecs and a statement timeout."""

from __future__ import annotations

from typing import Any

import asyncpg
import msgspec

from app.core.config import Settings

_json_encode = msgspec.json.Encoder().encode
_json_decode = msgspec.json.Decoder().decode


def _encode_json(value: Any) -> str:
    return _json_encode(value).decode()


async def init_connection(connection: asyncpg.Connection) -> None:
    for type_name in ("json", "jsonb"):
        await connection.set_type_codec(
            type_name, encoder=_encode_json, decoder=_json_decode, schema="pg_catalog"
        )


def server_settings(settings: Settings) -> dict[str, str]:
    return {
        "statement_timeout": str(settings.statement_timeout_ms),
        "timezone": "UTC",
        "application_name": "telemetry",
    }


async def _keep_session(connection: asyncpg.Connection) -> None:
    """No reset on release: handlers keep no session state (only SET LOCAL), and
    asyncpg's default reset costs a second round trip per query."""


async def create_pool(settings: Settings) -> asyncpg.Pool:
    pool = await asyncpg.create_pool(
        settings.database_url,
        min_size=settings.pool_min_size,
        max_size=settings.pool_max_size,
        init=init_connection,
        reset=_keep_session,
        server_settings=server_settings(settings),
        statement_cache_size=settings.statement_cache_size,
    )
    assert pool is not None
    return pool


async def connect(settings: Settings) -> asyncpg.Connection:
    connection = await asyncpg.connect(
        settings.database_url, server_settings=server_settings(settings)
    )
    await init_connection(connection)
    return connection


async def connect_listener(settings: Settings) -> asyncpg.Connection:
    """A connection whose session state matters (LISTEN, a session advisory lock):
    straight to the primary (DATABASE_LISTEN_URL) even when queries go through a
    transaction-pooling PgBouncer, which keeps no session's state."""
    connection = await asyncpg.connect(
        settings.database_listen_url or settings.database_url,
        server_settings=server_settings(settings),
    )
    await init_connection(connection)
    return connection
