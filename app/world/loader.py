"""Loads a world file (operations.md section 2): validate everything, then write it all
in one transaction, then replay its telemetry in that same transaction."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import msgspec
import msgspec.inspect as mi
import yaml
from argon2 import PasswordHasher

from app.core.sql import QUERIES
from app.world.errors import WorldError, fail
from app.world.structs import WorldSpec, WorldSummary
from app.world.telemetry import TelemetryNotSupported, replay_telemetry
from app.world.validate import Rows, check_world
from app.world.webhooks import write_webhooks

__all__ = ["WorldError", "load_world", "load_world_path", "parse_world"]

_PATH_SUFFIX = re.compile(r"^(?P<problem>.*?)(?: - at `\$(?P<path>.*)`)?$", re.DOTALL)
_MISSING = re.compile(r"^Object missing required field `(?P<name>[^`]+)`$")
_password_hasher = PasswordHasher()
_json_decoder = msgspec.json.Decoder(WorldSpec)
BULK_CHUNK = 2000


class _WorldYamlLoader(yaml.SafeLoader):
    """Safe YAML that keeps timestamps as text (times are resolved by the world's rules)
    and reads scalar mapping keys such as `0:` as strings."""


_WorldYamlLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _construct_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    loader.flatten_mapping(node)
    mapping: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if isinstance(key, bool):
            key = "true" if key else "false"
        elif isinstance(key, int | float) or key is None:
            key = key_node.value
        mapping[key] = loader.construct_object(value_node, deep=True)
    return mapping


_WorldYamlLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


class _WrittenInt(int):
    """A YAML integer that remembers how it was written."""

    written: str


class _WrittenFloat(float):
    """A YAML float that remembers how it was written."""

    written: str


def _construct_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    number = _WrittenInt(loader.construct_yaml_int(node))
    number.written = node.value
    return number


def _construct_float(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> float:
    number = _WrittenFloat(loader.construct_yaml_float(node))
    number.written = node.value
    return number


_WorldYamlLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)
_WorldYamlLoader.add_constructor("tag:yaml.org,2002:float", _construct_float)


def _plain(value: Any) -> Any:
    """`value` with the numbers YAML read as plain ints and floats again."""
    if isinstance(value, _WrittenInt):
        return int(value)
    if isinstance(value, _WrittenFloat):
        return float(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def _as_written(value: Any, kind: mi.Type) -> Any:
    """`value` with every number YAML read where the world expects text put back as written.

    Plain YAML reads `devEui: 0016001000000001` as an (octal!) integer and `name: 1e3` as a
    float; the world's schema says which places hold text, so those numbers are restored
    to the characters of the file rather than refused or silently changed. Everywhere
    else they become plain numbers.
    """
    if isinstance(kind, mi.UnionType):
        texts = [t for t in kind.types if isinstance(t, mi.StrType)]
        numbers = any(isinstance(t, mi.IntType | mi.FloatType) for t in kind.types)
        if texts and not numbers:
            return _as_written(value, texts[0])
        others = [t for t in kind.types if not isinstance(t, mi.StrType | mi.NoneType)]
        return _as_written(value, others[0]) if len(others) == 1 else _plain(value)
    if isinstance(kind, mi.StrType) and isinstance(value, _WrittenInt | _WrittenFloat):
        return value.written
    if isinstance(kind, mi.StructType) and isinstance(value, dict):
        fields = {f.encode_name: f.type for f in kind.fields}
        return {
            k: _as_written(v, fields[k]) if k in fields else _plain(v) for k, v in value.items()
        }
    if isinstance(kind, mi.ListType) and isinstance(value, list):
        return [_as_written(item, kind.item_type) for item in value]
    if isinstance(kind, mi.DictType) and isinstance(value, dict):
        return {k: _as_written(v, kind.value_type) for k, v in value.items()}
    return _plain(value)


_WORLD_TYPE = mi.type_info(WorldSpec)


def _validation_error(exc: msgspec.ValidationError) -> WorldError:
    match = _PATH_SUFFIX.match(str(exc))
    assert match is not None
    problem = match.group("problem")
    path = (match.group("path") or "").lstrip(".")
    missing = _MISSING.match(problem)
    if missing:
        path = f"{path}.{missing.group('name')}" if path else missing.group("name")
        problem = "required"
    else:
        problem = problem[:1].lower() + problem[1:]
    return fail(path or "world", problem)


def parse_world(document: dict[str, Any] | str | bytes, kind: str | None = None) -> WorldSpec:
    """A world from a dict, or JSON or YAML text (`kind` "json"/"yaml" or sniffed)."""
    try:
        if isinstance(document, dict):
            return msgspec.convert(document, WorldSpec)
        text = document.encode() if isinstance(document, str) else document
        if kind == "json" or (kind is None and text.lstrip()[:1] == b"{"):
            try:
                return _json_decoder.decode(text)
            except msgspec.ValidationError:
                raise
            except msgspec.DecodeError as exc:
                if kind == "json":
                    raise fail("world", f"not valid JSON: {exc}") from None
        try:
            data = yaml.load(text, Loader=_WorldYamlLoader)  # noqa: S506 (a SafeLoader)
        except yaml.YAMLError as exc:
            problem = " ".join(str(exc).split())
            raise fail("world", f"not valid JSON or YAML: {problem}") from None
        if data is None:
            data = {}
        if not isinstance(data, dict):
            raise fail("world", "expected an object with partners, uplinks, ...")
        return msgspec.convert(_as_written(data, _WORLD_TYPE), WorldSpec)
    except msgspec.ValidationError as exc:
        raise _validation_error(exc) from None


async def _hash_passwords(rows: Rows) -> None:
    """Argon2id hashes; one per distinct password (a world is test data), in threads."""
    distinct = sorted(set(rows.passwords.values()))
    hashes = await asyncio.gather(
        *(asyncio.to_thread(_password_hasher.hash, password) for password in distinct)
    )
    by_password = dict(zip(distinct, hashes, strict=True))
    for index, password in rows.passwords.items():
        user = list(rows.users[index])
        user[5] = by_password[password]
        rows.users[index] = tuple(user)


_ID_TABLES = (
    "partners",
    "sub_accounts",
    "api_keys",
    "integrations",
    "users",
    "device_profiles",
    "profile_fields",
    "downlink_templates",
    "sites",
    "networks",
    "gateways",
    "devices",
    "multicast_groups",
    "webhook_endpoints",
)
_SINGULAR = {
    "partners": "partner",
    "sub_accounts": "sub-account",
    "api_keys": "key",
    "integrations": "integration",
    "users": "user",
    "device_profiles": "device profile",
    "profile_fields": "profile field",
    "downlink_templates": "downlink template",
    "sites": "site",
    "networks": "network",
    "gateways": "gateway",
    "devices": "device",
    "multicast_groups": "multicast group",
    "webhook_endpoints": "webhook endpoint",
}


async def _refuse_existing(connection: Any, rows: Rows) -> None:
    ids = [list(rows.id_paths.get(table, {})) for table in _ID_TABLES]
    if any(ids):
        taken = await connection.fetch(QUERIES["world.existing_ids"], *ids)
        if taken:
            table, entity_id = taken[0]["tbl"], taken[0]["id"]
            path = rows.id_paths[table][entity_id]
            raise fail(f"{path}.id", f"a {_SINGULAR[table]} with id {entity_id} already exists")
    if rows.key_hash_paths or rows.token_hash_paths:
        clashes = await connection.fetch(
            QUERIES["world.existing_secrets"],
            list(rows.key_hash_paths),
            list(rows.token_hash_paths),
        )
        if clashes:
            kind, digest = clashes[0]["kind"], bytes(clashes[0]["hash"])
            paths = rows.key_hash_paths if kind == "key" else rows.token_hash_paths
            raise fail(paths[digest], f"another {kind} already uses this secret")


async def _write(connection: Any, rows: Rows) -> None:
    steps = (
        ("world.insert_partner", rows.partners),
        ("world.insert_sub_account", rows.sub_accounts),
        ("world.insert_api_key", rows.api_keys),
        ("world.insert_api_key_usage", [(key[0],) for key in rows.api_keys]),
        ("world.insert_audit", rows.audit),
        ("world.insert_integration", rows.integrations),
        ("world.insert_user", rows.users),
        ("world.insert_profile", rows.profiles),
        ("world.insert_field", rows.fields),
        ("world.insert_template", rows.templates),
        ("world.insert_alert_rule", rows.alert_rules),
        ("world.insert_site", rows.sites),
        ("world.insert_network", rows.networks),
        ("world.insert_membership", rows.memberships),
    )
    for query, records in steps:
        if records:
            await connection.executemany(QUERIES[query], records)
    # The big tables go in as one array per column: a statement per chunk, not per row.
    if rows.multicast_groups:
        await connection.executemany(QUERIES["world.insert_multicast_group"], rows.multicast_groups)
    for query, records in (
        ("world.insert_gateways", rows.gateways),
        ("world.insert_devices", rows.devices),
        ("world.insert_multicast_members", rows.multicast_members),
    ):
        for start in range(0, len(records), BULK_CHUNK):
            columns = [
                list(column) for column in zip(*records[start : start + BULK_CHUNK], strict=True)
            ]
            await connection.execute(QUERIES[query], *columns)


async def load_world(
    connection: Any,
    document: dict[str, Any] | str | bytes | WorldSpec,
    now: datetime | None = None,
    kind: str | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> WorldSummary:
    """Validates the whole world, then writes it and replays its telemetry atomically.

    `connection` is an asyncpg connection (with the app's jsonb codec) or pool;
    `on_progress(done, total)` follows the replay of the telemetry.
    """
    if isinstance(connection, asyncpg.Pool):
        async with connection.acquire() as acquired:
            return await load_world(acquired, document, now, kind, on_progress)
    now = datetime.now(UTC) if now is None else now
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    world = document if isinstance(document, WorldSpec) else parse_world(document, kind)
    rows = check_world(world, now)
    await _hash_passwords(rows)
    try:
        async with connection.transaction():
            await connection.execute(QUERIES["world.no_statement_timeout"])
            await _refuse_existing(connection, rows)
            await _write(connection, rows)
            await replay_telemetry(connection, world, now, on_progress)
            await write_webhooks(connection, rows.webhooks)
    except TelemetryNotSupported as exc:
        raise WorldError(str(exc)) from None
    except asyncpg.IntegrityConstraintViolationError as exc:
        # A concurrent load took an id or secret between the checks and the writes.
        detail = " ".join(str(exc).split())
        raise fail("world", f"refused by the database: {detail}") from None
    return WorldSummary(
        partners=len(rows.partners),
        sub_accounts=len(rows.sub_accounts),
        profiles=len(rows.profiles),
        devices=len(rows.devices),
        gateways=len(rows.gateways),
        users=len(rows.users),
        keys=len(rows.api_keys),
        uplinks=len(world.uplinks),
        status_events=len(world.status_events),
        gateway_stats=len(world.gateway_stats),
    )


async def load_world_path(
    connection: Any, path: Path, on_progress: Callable[[int, int], None] | None = None
) -> str:
    """Loads a JSON or YAML world file and returns the printed summary."""
    try:
        data = await asyncio.to_thread(path.read_bytes)
    except OSError as exc:
        raise WorldError(f"{path}: cannot read: {exc.strerror}") from None
    suffix = path.suffix.lower()
    kind = "json" if suffix == ".json" else "yaml" if suffix in (".yaml", ".yml") else None
    summary = await load_world(connection, data, kind=kind, on_progress=on_progress)
    return str(summary)
