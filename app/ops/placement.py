"""Tenants placed across clusters: each partner lives whole on one TimescaleDB cluster.

`TELEMETRY_PLACEMENT` names a placement file (YAML or JSON):

    clusters:                      # name -> primary URL and, optionally, its standbys
      a: {url: postgresql://...@db-a/telemetry, read: [postgresql://...@db-a-standby/telemetry]}
      b: {url: postgresql://...@pgbouncer-b/telemetry, listen: postgresql://...@db-b/telemetry}
    default: a                     # partners not listed (default: the first cluster)
    directory: a                   # where the key directory lives (default: `default`)
    partners: {<partner uuid>: b}

The app is then one full application per cluster (its own pools, key cache, LISTEN/NOTIFY,
read routing and jobs, unchanged) behind `PlacementApp`, which sends each request to the
application of its partner's cluster. Each cluster's LISTEN and advisory locks go to its
`listen` URL (straight to its primary past a PgBouncer), else to its `url`, never to
DATABASE_LISTEN_URL: that names one database, and with it for all clusters a cluster's key
and /latest caches never heard of that cluster's changes. The partner of a request is found
from its bearer secret (API key or integration token) by one indexed lookup in
`placement_directory` on the directory cluster (`telemetry placement sync` fills it), cached
per worker: a secret never changes partner. Requests without a known secret go to the
default cluster, which answers them (401, health, docs). The partner map is re-read when the
file changes (checked every second); the set of clusters is fixed at start-up.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import asyncpg
import msgspec
import yaml
from litestar.types import Receive, Scope, Send

from app.auth.principal import hash_secret
from app.core.config import Settings
from app.core.sql import QUERIES

PARTNER_OF = QUERIES["placement.partner_of"]
WATCH_EVERY_S = 1.0
MAX_CACHED = 1_000_000
log = logging.getLogger(__name__)
_UNAVAILABLE = b'{"error":{"code":"unavailable","message":"service temporarily unavailable"}}'


class ClusterSpec(msgspec.Struct, forbid_unknown_fields=True):
    url: str
    read: list[str] = []
    listen: str | None = None


class Placement(msgspec.Struct, forbid_unknown_fields=True):
    clusters: dict[str, ClusterSpec]
    partners: dict[uuid.UUID, str] = {}
    default: str | None = None
    directory: str | None = None

    def __post_init__(self) -> None:
        if not self.clusters:
            raise ValueError("placement: `clusters` names no cluster")
        self.default = self.default or next(iter(self.clusters))
        self.directory = self.directory or self.default
        for where, name in [
            ("default", self.default),
            ("directory", self.directory),
            *((f"partners.{partner}", name) for partner, name in self.partners.items()),
        ]:
            if name not in self.clusters:
                raise ValueError(f"placement: {where} names an unknown cluster {name!r}")

    def cluster_of(self, partner_id: uuid.UUID | None) -> str:
        default: str = self.default or next(iter(self.clusters))
        return self.partners.get(partner_id, default) if partner_id is not None else default


def load_placement(path: Path) -> Placement:
    """Reads and checks a placement file; raises ValueError naming what is wrong."""
    try:
        document = yaml.safe_load(path.read_text())
        return msgspec.convert(document, Placement, strict=False)
    except (OSError, yaml.YAMLError, msgspec.ValidationError) as error:
        raise ValueError(f"placement file {path}: {error}") from None


def bearer_secret(scope: Scope) -> str | None:
    for name, value in scope["headers"]:
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            return token.strip() if scheme.lower() == "bearer" and token.strip() else None
    return None


class PlacementApp:
    """An ASGI app that serves each request with the application of its partner's cluster."""

    def __init__(self, settings: Settings, factory: Callable[[Settings], Any]) -> None:
        assert settings.placement_file is not None
        self.path = Path(settings.placement_file)
        self.placement = load_placement(self.path)
        self._mtime = self.path.stat().st_mtime
        self.apps = {
            name: factory(
                msgspec.structs.replace(
                    settings,
                    database_url=spec.url,
                    database_read_urls=tuple(spec.read),
                    database_listen_url=spec.listen,
                    placement_file=None,
                )
            )
            for name, spec in self.placement.clusters.items()
        }
        self.settings = settings
        self.partner_of: dict[bytes, uuid.UUID] = {}
        self.directory: asyncpg.Pool | None = None

    async def cluster_for(self, scope: Scope) -> str:
        secret = bearer_secret(scope)
        if secret is None:
            return self.placement.cluster_of(None)
        secret_hash = hash_secret(secret)
        partner = self.partner_of.get(secret_hash)
        if partner is None and self.directory is not None:
            partner = await self.directory.fetchval(PARTNER_OF, secret_hash)
            if partner is not None:
                if len(self.partner_of) >= MAX_CACHED:
                    self.partner_of.clear()
                self.partner_of[secret_hash] = partner
        return self.placement.cluster_of(partner)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            await self.apps[self.placement.cluster_of(None)](scope, receive, send)
            return
        try:
            name = await self.cluster_for(scope)
        except (TimeoutError, asyncpg.PostgresError, OSError) as error:
            log.warning("placement: directory unavailable: %s", error)
            await _unavailable(send)
            return
        await self.apps[name](scope, receive, send)

    # Lifespan: the directory pool, every cluster's app, and the file watcher ------------

    async def _lifespan(self, receive: Receive, send: Any) -> None:
        await receive()  # lifespan.startup
        stack = contextlib.AsyncExitStack()
        try:
            directory = self.placement.clusters[self.placement.directory or ""]
            self.directory = await asyncpg.create_pool(
                directory.url, min_size=0, max_size=2, timeout=2
            )
            stack.push_async_callback(self.directory.close)
            for app in self.apps.values():
                await stack.enter_async_context(app.lifespan())
        except Exception as error:
            await stack.aclose()
            await send({"type": "lifespan.startup.failed", "message": str(error)})
            return
        watcher = asyncio.create_task(self._watch())
        await send({"type": "lifespan.startup.complete"})
        await receive()  # lifespan.shutdown
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
        await stack.aclose()
        await send({"type": "lifespan.shutdown.complete"})

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(WATCH_EVERY_S)
            self.reload()

    def reload(self) -> bool:
        """Re-reads the partner map if the file changed; keeps the old one if it is bad."""
        try:
            mtime = self.path.stat().st_mtime
            if mtime == self._mtime:
                return False
            placement = load_placement(self.path)
            if set(placement.clusters) != set(self.apps):
                raise ValueError("the set of clusters changed; restart to apply it")
        except (OSError, ValueError) as error:
            log.error("placement: keeping the current map: %s", error)
            return False
        self._mtime = mtime
        self.placement = placement
        log.info("placement: map reloaded (%d partners placed)", len(placement.partners))
        return True


async def _unavailable(send: Any) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": 503,
            "headers": [(b"content-type", b"application/json"), (b"retry-after", b"1")],
        }
    )
    await send({"type": "http.response.body", "body": _UNAVAILABLE})


async def sync_directory(placement: Placement) -> dict[str, int]:
    """Copies every cluster's key and token hashes into the directory; returns counts."""
    counts: dict[str, int] = {}
    directory_url = placement.clusters[placement.directory or ""].url
    target = await asyncpg.connect(directory_url)
    try:
        for name, spec in placement.clusters.items():
            source = await asyncpg.connect(spec.url)
            try:
                rows = await source.fetch(QUERIES["placement.cluster_secrets"])
            finally:
                await source.close()
            misplaced = {
                r["partner_id"] for r in rows if placement.cluster_of(r["partner_id"]) != name
            }
            for partner in sorted(misplaced, key=str):
                log.warning(
                    "placement: partner %s has data on %s but is placed elsewhere", partner, name
                )
            await target.execute(
                QUERIES["placement.register"],
                [r["secret_hash"] for r in rows],
                [r["partner_id"] for r in rows],
                [r["kind"] for r in rows],
            )
            counts[name] = len(rows)
    finally:
        await target.close()
    return counts
