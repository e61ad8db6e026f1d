"""The shapes every directory read shares: a row as a response struct, a page, one resource.

- `from_row`: a response struct from the row's columns of the same names, so a struct's
  fields are listed once (in the struct) and a route names only what differs.
- `fetch_page`: a page of a list query whose last two parameters are the `page`'s `limit`
  and `offset` and whose rows carry the list's `total`; `list_owned`, the same for a list
  of the key's tenancy, read where a stale read is allowed.
- `fetch_owned`: one resource of the key's tenancy by its path id, else 404; another
  tenant's resource is indistinguishable from a missing one (the query's tenancy
  predicate takes the key's partner and sub-account as its first two parameters);
  `fetch_owned_by_id` for a path id that is a UUID, and `get_owned`, the answer of a
  route that returns that row as its struct.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

import msgspec

from app.core.api import Listing, Page, Pagination, Single, parse_uuid
from app.core.errors import not_found
from app.core.routing import reader

S = TypeVar("S", bound=msgspec.Struct)
T = TypeVar("T")


class Tenancy(Protocol):
    """Whose resources a read may see: the caller's partner and sub-account (the key's
    `Principal`, app/auth/principal.py, which builds itself with `from_row` here, so this
    module names it by what it reads rather than importing it)."""

    @property
    def partner_id(self) -> uuid.UUID: ...

    @property
    def sub_account_id(self) -> uuid.UUID | None: ...


def from_row(cls: type[S], row: Any, **given: Any) -> S:
    """`cls` with each field taken from the row's column of that name, except those `given`
    (a renamed column, a converted value, a nested list)."""
    fields = {name: row[name] for name in cls.__struct_fields__ if name not in given}
    return cls(**fields, **given)


def empty_page(page: Page) -> Listing[Any]:
    """The page of a list whose filters cannot match anything, answered without a query."""
    return Listing(data=[], pagination=Pagination(limit=page.limit, offset=page.offset, total=0))


async def fetch_page(
    pool: Any,
    build: Callable[[Any], T],
    query: str,
    *args: Any,
    page: Page,
    count: str | None = None,
) -> Listing[T]:
    """A page of a list query whose last two parameters are `limit` and `offset` and whose
    rows carry the list's `total`.

    Without `count` the query always answers at least one row: the total joined to the
    page's items, a lone row with a null `id` when the page is empty, so paging past the
    end still learns the total from the one query. With `count`, the rows carry
    `count(*) OVER ()` and past the end no row is left to carry it, so the `count` query
    (the same arguments but the paging) answers it.
    """
    rows = await pool.fetch(query, *args, page.limit, page.offset)
    if count is None:
        total = rows[0]["total"]
        rows = [row for row in rows if row["id"] is not None]
    else:
        total = rows[0]["total"] if rows else await pool.fetchval(count, *args)
    return Listing(
        data=[build(row) for row in rows],
        pagination=Pagination(limit=page.limit, offset=page.offset, total=total),
    )


async def list_owned(
    principal: Tenancy, build: Callable[[Any], T], query: str, *filters: Any, **paging: Any
) -> Listing[T]:
    """`fetch_page` (with its `paging` keywords) of a list of the key's tenancy: the query
    takes the key's partner and sub-account first, then `filters`. A list may be a little
    stale, so a standby may answer it (app/core/routing.py)."""
    tenancy = (principal.partner_id, principal.sub_account_id)
    return await fetch_page(reader(principal), build, query, *tenancy, *filters, **paging)


async def fetch_owned(pool: Any, principal: Tenancy, what: str, query: str, *keys: Any) -> Any:
    """The row `query` finds for the key's partner and sub-account and `keys`, else 404
    `not_found` naming `what`. Keys that are all None (a path id of no valid form) answer
    the same 404 without asking the database."""
    row = None
    if any(key is not None for key in keys):
        row = await pool.fetchrow(query, principal.partner_id, principal.sub_account_id, *keys)
    if row is None:
        raise not_found(what)
    return row


async def fetch_owned_by_id(
    pool: Any, principal: Tenancy, what: str, query: str, path_id: str
) -> Any:
    """`fetch_owned` by a path id that is a UUID; an id of any other form is the same 404."""
    return await fetch_owned(pool, principal, what, query, parse_uuid(path_id))


async def get_owned(
    pool: Any, principal: Tenancy, what: str, query: str, path_id: str, cls: type[S]
) -> Single[S]:
    """The answer of a route that returns one resource of the key's tenancy, by its UUID
    path id, as `cls` (`fetch_owned_by_id`, then `from_row`)."""
    return Single(from_row(cls, await fetch_owned_by_id(pool, principal, what, query, path_id)))
