"""GET /devices/{id}/history (api-spec 4.3, decisions D12)."""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, get
from litestar.params import Parameter

from app.auth.principal import Principal
from app.core.api import Single
from app.core.errors import error_responses
from app.core.routing import reader
from app.history.service import parse_query, read_history
from app.history.structs import History

HISTORY_DESCRIPTION = """\
The readings of one field in `[from, to)`.

- `resolution=raw` (default): the newest 500 readings, newest first, each with the
  `siteId` of the site the device was at when the reading arrived; `truncated: true`
  when more matched (page back with `to` = the oldest `time` received).
- `hourly`, `daily` or an ISO 8601 duration of at least `PT1S` (`PT15M`, `PT6H`, `P1W`,
  `P1M`, ...): one point per non-empty bucket, newest first, `time` = the bucket start.
  Buckets follow TimescaleDB `time_bucket` in UTC (weeks start on Mondays, months on the
  1st); a bucket at an edge of the range aggregates only the readings inside it. At most
  10,000 buckets. `agg`: `avg` (default), `min`, `max`, `sum`, `count`, `last` (the
  value of the newest reading; on equal times the greatest value); string, boolean,
  date and location fields take `count` and `last` only, so they need an explicit `agg`.
- `tz` (an IANA zone such as `Europe/Berlin`): buckets follow the local clock, as
  `time_bucket(interval, time, tz)` does: daily buckets start at local midnight, so a
  DST day is 23 or 25 hours long. `time` stays UTC (the instant the local bucket starts)
  and the response echoes `tz`. No effect on raw points.
- `signal_quality` is the signal quality series; static fields have no history (no
  points); fields by identifier or UUID.
- The range is bounded by the plan's telemetry retention: a range that starts before
  the cutoff starts at it, with `clamped: true` and `retentionCutoff`; a range entirely
  before it is 403 `outside_retention`.
"""


class HistoryController(Controller):
    path = "/devices/{device_ref:str}/history"
    opt = {"scope": "telemetry:read"}
    tags = ["Devices"]

    @get(
        operation_id="getDeviceHistory",
        summary="Time series of one device field",
        description=HISTORY_DESCRIPTION,
        responses=error_responses(400, 403, 404),
    )
    async def history(
        self,
        principal: Principal,
        device_ref: Annotated[str, Parameter(description="Service id (UUID) or DevEUI.")],
        field: Annotated[
            str | None,
            Parameter(
                description="Required. Field identifier, field UUID or `signal_quality`; "
                "an unknown field's 400 lists the valid identifiers."
            ),
        ] = None,
        from_: Annotated[
            str | None,
            Parameter(
                query="from",
                description="Required. Start (inclusive): an ISO 8601 timestamp "
                "(`2026-11-22T00:00:00Z`; no offset means UTC), `now` or `now-<duration>` "
                "(`now-P1D`, `now-PT15M`).",
            ),
        ] = None,
        to: Annotated[
            str | None,
            Parameter(
                description="Required. End (exclusive), in the same forms as `from` "
                "(`now` for up to this moment)."
            ),
        ] = None,
        resolution: Annotated[
            str | None,
            Parameter(description="`raw` (default), `hourly`, `daily` or an ISO 8601 duration."),
        ] = None,
        agg: Annotated[
            str | None,
            Parameter(description="Bucketed only: avg (default), min, max, sum, count, last."),
        ] = None,
        site_id: Annotated[
            str | None,
            Parameter(
                query="siteId",
                description="Only readings recorded at this site (needs the multi-site "
                "feature, else 403 `multi_site_disabled`).",
            ),
        ] = None,
        tz: Annotated[
            str | None,
            Parameter(description="IANA time zone of the buckets (default UTC)."),
        ] = None,
    ) -> Single[History]:
        query = parse_query(principal, field, from_, to, resolution, agg, site_id, tz)
        return Single(await read_history(reader(principal), principal, device_ref, query))
