"""POST /query (analytics.md section 2)."""

from __future__ import annotations

from typing import Any

import asyncpg
from litestar import Controller, Request, post

from app.auth.principal import Principal
from app.core.body import json_body_operation
from app.core.enums import Scope
from app.core.errors import error_responses
from app.core.routing import reader
from app.docs.descriptions import PARAM_SCHEMAS
from app.query.service import answer
from app.query.structs import QueryBody, QueryPage

QUERY_DESCRIPTION = """\
Many series in one call: the fields of the devices named by `devices.ids` (ids or
DevEUIs, at most 1,000) or selected by the filters of `GET /devices` (assigned devices
only, at most 1,000), raw or bucketed, with one or more aggregates per field.

- Each series is one (device, field, agg); series are ordered by device id, then the
  order of `fields`, then of the field's aggregates. Its points are exactly those of
  `GET /devices/{id}/history` for the same device, field, range, resolution, agg,
  `tz`, `fill` and `maxPoints`, oldest first (raw: every reading, no 500 cap, each
  with its `siteId`).
- A field that a device's profile lacks gives no series for it; a field no selected
  device has is 400 `invalid_body`. Static fields give empty series.
- Paging: a page holds at most `limit` points (1..100,000, default 10,000) and may hold
  fewer; `nextCursor` continues where it stopped, possibly inside a series (which then
  appears again with the rest of its points). Ask the next page with the same body plus
  `cursor` (only `limit` may change). Following the cursors returns every point exactly
  once, even while readings arrive and while weeks are packed. A cursor is bound to its
  key and query and valid for an hour; anything else is 400 `invalid_cursor`.
- Rules that tie members together or depend on the devices (each 400 `invalid_body`):
  `devices` gives `ids` or filters, not both, and its filters follow `GET /devices`'
  rules; `fields` lists each field once and names fields a selected device has; `agg`
  only with a bucketed `resolution`, an object names every field of `fields` and only
  them, and a string or boolean field takes `count`, `last` or `duration:<state>`;
  `from` before `to`; `tz` a zone of the server's tz database; `fill`, `fillMaxGap`,
  `maxPoints`, `downsample` and the aggregates `increase`, `twa`, `integral` and
  `duration` as `GET /devices/{id}/history` says (its 400 `invalid_parameter` rules are
  `invalid_body` here, naming the member).
- Errors in the body are 400 `invalid_body` naming the field, unknown keys included;
  at most 1,000 devices, 20 fields and 20,000 series per query, and 10,000 buckets per
  series. Ranges are clamped by retention as on `/history` (entirely outside: 403
  `outside_retention`).
- Chart-ready series (analytics.md section 3): `fill` (bucketed) gives a point for
  every bucket of the range, each with `filled`; `maxPoints` (raw, number fields) reduces
  each series to at most that many real readings by `downsample` (`lttb` or `minmax`), a
  reduced series carrying its own `downsampled` on every page that holds it. A series'
  points equal `/history`'s for the same parameters; `duration` names its state in the
  aggregate (`{"door": "duration:open"}`). Cursors resume inside a filled or reduced
  series as in any other.
"""


# The members /history also takes as query parameters have the same forms, stated once in
# the document's parameter schemas.
PARAMETER_FORMS = {
    name: {key: value for key, value in PARAM_SCHEMAS[name].items() if key != "default"}
    for name in ("from", "to", "resolution", "tz")
}


class QueryController(Controller):
    path = "/query"
    opt = {"scope": Scope.TELEMETRY_READ}
    tags = ["Devices"]

    @post(
        operation_id="queryTelemetry",
        summary="Many devices' series in one call, paged by cursors",
        description=QUERY_DESCRIPTION,
        status_code=200,
        responses=error_responses(400, 403),
        operation_class=json_body_operation(
            QueryBody, "The query (analytics.md section 2).", PARAMETER_FORMS
        ),
    )
    async def query(
        self, request: Request[Any, Any, Any], pool: asyncpg.Pool, principal: Principal
    ) -> QueryPage:
        return await answer(request, pool, reader(principal), principal)
