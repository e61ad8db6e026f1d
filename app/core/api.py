"""Envelopes, paging parameters and the formats of identifiers and timestamps (D6, D7)."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Generic, TypeVar

import msgspec
from litestar import Request
from litestar.params import Parameter

from app.core.errors import invalid_parameter

T = TypeVar("T")

API_PREFIX = "/api/v1"
MAX_PAGE = 200
# Offsets past this are far beyond any list and would overflow the database's integers.
MAX_OFFSET = 2_147_483_647


class Pagination(msgspec.Struct):
    limit: int
    offset: int
    total: int


class Single(msgspec.Struct, Generic[T]):
    data: T


class Listing(msgspec.Struct, Generic[T]):
    data: list[T]
    pagination: Pagination


Limit = Annotated[
    int,
    Parameter(ge=1, le=MAX_PAGE, description="Page size, 1 to 200 (default 50)."),
]
Offset = Annotated[
    int, Parameter(ge=0, le=MAX_OFFSET, description="Items to skip, 0 or more (default 0).")
]


class Page(msgspec.Struct, frozen=True):
    """The page a list route asks for: its `limit` and `offset` query parameters, declared
    once (by `provide_page`) and given to every list route as its `page` dependency. A route
    takes it last, keyword-only after its filters, so the document lists them first."""

    limit: int
    offset: int


def provide_page(limit: Limit = 50, offset: Offset = 0) -> Page:
    """The `page` dependency: the query's `limit` and `offset`, validated as declared."""
    return Page(limit, offset)


# D7: `limit` and `offset` are written as digits. Litestar's lax conversion would also take
# `1e1`, `10.0` or `+5`, so the raw text is checked first, by a hook of every API route.
INTEGER_PARAMETERS = ("limit", "offset")
_WHOLE_NUMBER = re.compile(r"[0-9]+")


async def check_integer_parameters(request: Request[Any, Any, Any]) -> None:
    """`before_request` hook (after authentication and the access checks, before Litestar
    parses parameters): the integer query parameters of a paged route are digits only."""
    # The route first: the query string is parsed (a MultiDict built) only for a paged one.
    if (
        "page" not in request.route_handler.parsed_fn_signature.parameters
        or not request.query_params
    ):
        return
    for name in INTEGER_PARAMETERS:
        for value in request.query_params.getall(name, ()):
            if not _WHOLE_NUMBER.fullmatch(value):
                raise invalid_parameter(name, "must be a whole number written in digits")


_EUI_SEPARATORS = re.compile(r"[:\-]")
_HEX16 = re.compile(r"^[0-9a-fA-F]{16}$")


def normalize_eui(text: str) -> str | None:
    """A DevEUI or GatewayEUI in canonical form (16 lowercase hex), or None."""
    compact = _EUI_SEPARATORS.sub("", text)
    return compact.lower() if _HEX16.match(compact) else None


def parse_uuid(text: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(text)
    except (ValueError, AttributeError, TypeError):
        return None


def parse_filter_id(
    name: str, text: str | None, allow_none: bool = False
) -> uuid.UUID | str | None:
    """An id filter: None when absent, "none" where allowed, else a UUID or a 400 (D18)."""
    if text is None:
        return None
    if allow_none and text == "none":
        return "none"
    parsed = parse_uuid(text)
    if parsed is None:
        expected = "a UUID or 'none'" if allow_none else "a UUID"
        raise invalid_parameter(name, f"must be {expected}")
    return parsed


_TIMESTAMP_CHARACTERS = re.compile(r"[0-9TtZz:.,+\- ]+")
# Epoch milliseconds, what Grafana's ${__from} and ${__to} give: 10 to 14 digits (from
# 1970-04-26 to the year 5138, within the years a timestamp can hold, so that the document's
# pattern says exactly which are taken). Fewer digits are not taken for them: 8 digits are
# an ISO 8601 basic date.
_EPOCH_MILLISECONDS = re.compile(r"[0-9]{10,14}")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def parse_timestamp(name: str, text: str) -> datetime:
    """RFC 3339 / ISO 8601 with an offset or Z; without an offset it is UTC (D6). Epoch
    milliseconds are accepted wherever such a timestamp is (issue 29: Grafana's time range)."""
    candidate = text.strip()
    if _EPOCH_MILLISECONDS.fullmatch(candidate):
        try:
            return _EPOCH + timedelta(milliseconds=int(candidate))
        except OverflowError:
            raise invalid_parameter(
                name, "is out of range (0001-01-01 to 9999-12-31 UTC)"
            ) from None
    # datetime.fromisoformat stops at a NUL character and would ignore what follows it.
    if not _TIMESTAMP_CHARACTERS.fullmatch(candidate):
        raise invalid_parameter(name, "must be an ISO 8601 timestamp such as 2026-11-23T08:00:00Z")
    if candidate.endswith(("z", "Z")):
        candidate = candidate[:-1] + "+00:00"
    # A '+' in a query string may have been decoded to a space.
    if re.match(r".*T.* \d{2}:?\d{2}$", candidate):
        candidate = candidate[: candidate.rfind(" ")] + "+" + candidate[candidate.rfind(" ") + 1 :]
    try:
        value = datetime.fromisoformat(candidate)
    except ValueError:
        raise invalid_parameter(
            name, "must be an ISO 8601 timestamp such as 2026-11-23T08:00:00Z"
        ) from None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    try:
        return value.astimezone(UTC)
    except OverflowError:
        # 0001-01-01T00:00:00+01:00 is a valid timestamp before year 1 in UTC.
        raise invalid_parameter(name, "is out of range (0001-01-01 to 9999-12-31 UTC)") from None


def utc_now() -> datetime:
    return datetime.now(UTC)
