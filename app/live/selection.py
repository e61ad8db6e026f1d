"""Which devices a fleet read or a stream selects, and which fields of them (analytics.md
sections 1 and 4).

A selection is either `deviceIds` (ids or DevEUIs, at most 200) or the filters of
`GET /devices`, parsed by the device list's own functions (app/devices/filters.py), with
the status always `assigned`. Parameters are strict: an unknown one, a malformed one, or
`deviceIds` together with a filter is 400 `invalid_parameter` naming it.
"""

from __future__ import annotations

import functools
import re
import uuid
from typing import Any

import msgspec

from app.auth.principal import Principal
from app.auth.tenancy import split_reference
from app.core.errors import invalid_parameter
from app.devices.filters import DEVICE_FILTERS, parse_filters

MAX_IDS = 200
FILTERS = DEVICE_FILTERS
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Selection(msgspec.Struct, frozen=True):
    """`references` (id, DevEUI) when chosen by `deviceIds`, else `filters`: the
    arguments of `fleet_devices` after the tenancy and the status (sql/live/live.sql).
    `fields` None means every field."""

    references: tuple[tuple[uuid.UUID | None, str | None], ...] | None
    filters: tuple[Any, ...] | None
    fields: frozenset[str] | None
    # The filter parameters sent, in the order of FILTERS.
    given: tuple[str, ...] = ()

    @property
    def ids(self) -> list[uuid.UUID]:
        return [ref for ref, _ in self.references or () if ref is not None]

    @property
    def euis(self) -> list[str]:
        return [eui for _, eui in self.references or () if eui is not None]


def check_known(query: Any, known: frozenset[str]) -> None:
    """400 naming the first query parameter the route does not take."""
    for name in query:
        if name not in known:
            raise invalid_parameter(name, "is not a parameter of this route")


def parse_selection(principal: Principal, query: Any) -> Selection:
    """The selection of a request's query (`request.query_params`)."""
    fields = parse_fields(query.get("fields"))
    device_ids = query.get("deviceIds")
    if device_ids is not None:
        given = [name for name in FILTERS if name in query]
        if given:
            raise invalid_parameter(
                "deviceIds", f"cannot be combined with the device filters ({given[0]})"
            )
        return Selection(references=parse_references(device_ids), filters=None, fields=fields)
    parsed = parse_filters(
        principal,
        sub_account_id=query.get("subAccountId"),
        device_profile_id=query.get("deviceProfileId"),
        network_id=query.get("networkId"),
        site_id=query.get("siteId"),
        include_descendants=query.get("includeDescendants"),
        online=query.get("online"),
        search=query.get("search"),
    )
    filters = (
        parsed.sub_account,
        parsed.profile,
        parsed.network.id,
        parsed.network.none,
        parsed.online,
        parsed.name_pattern,
        parsed.eui_pattern,
        parsed.site.id,
        parsed.site.none,
        parsed.descendants,
    )
    sent = tuple(name for name in FILTERS if name in query)
    return Selection(references=None, filters=filters, fields=fields, given=sent)


@functools.lru_cache(maxsize=1024)
def parse_references(text: str) -> tuple[tuple[uuid.UUID | None, str | None], ...]:
    """`deviceIds` as (id, DevEUI) pairs; a dashboard sends the same list on every refresh,
    so the parsed lists are kept (the text alone decides the answer)."""
    items = text.split(",")
    if len(items) > MAX_IDS:
        raise invalid_parameter("deviceIds", f"lists {len(items)} devices; at most {MAX_IDS}")
    references = []
    for item in items:
        reference = split_reference(item.strip())
        if reference == (None, None):
            raise invalid_parameter("deviceIds", f"{item.strip()!r} is neither a UUID nor a DevEUI")
        references.append(reference)
    return tuple(references)


def parse_fields(text: str | None) -> frozenset[str] | None:
    if text is None:
        return None
    names = [name.strip() for name in text.split(",")]
    for name in names:
        if not _IDENTIFIER.fullmatch(name):
            raise invalid_parameter("fields", "must be a comma-separated list of identifiers")
    return frozenset(names)


def restrict(body: bytes, fields: frozenset[str] | None) -> bytes:
    """A stored latest values body with `values`, `retained` and `derived` holding only
    `fields`; `retained` and `derived` left out when nothing of theirs remains."""
    if fields is None:
        return body
    data: dict[str, Any] = msgspec.json.decode(body)
    data["values"] = {k: v for k, v in data["values"].items() if k in fields}
    for member in ("retained", "derived"):
        if member in data:
            kept = {k: v for k, v in data[member].items() if k in fields}
            if kept:
                data[member] = kept
            else:
                del data[member]
    return msgspec.json.encode(data)
