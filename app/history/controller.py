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
- Chart-ready series (analytics.md section 3), each rule broken a 400
  `invalid_parameter` naming it:
  - `fill` (bucketed only, not raw) = `none` (default) | `null` | `previous` | `linear` |
    `zero` (with `count` and `sum` only): a point for every bucket that starts in [the
    bucket of `from`, the earlier of `to` and now), with `filled`. `previous` carries the
    last non-empty bucket (before the first one, the single last reading before `from`);
    `fillMaxGap` (an ISO 8601 duration, with `previous` only) leaves null a bucket that
    starts more than that after the newest reading it would carry. `linear` interpolates
    by bucket start between non-empty buckets (null where a side has none).
  - `maxPoints` (2..10,000; raw only, number fields only) with `downsample` = `lttb`
    (default) | `minmax`: every reading of the range (no 500 cap) reduced to at most
    that many real readings, `downsampled: {method, readings, points}` when it reduced.
  - `agg=increase` (counter fields: growth, a lower reading being a reset that counts its
    own value; the first difference from the reading before the bucket), `twa` and
    `integral` (number fields: time-weighted average and value-hours of the step function,
    each reading held until the next, the value at the start from the reading before),
    `duration` (state fields, with `state=<value>`: the seconds that value held). A
    bucket with a value held into it has a twa, integral and duration. Another field's
    measurement is a 400 naming it.
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
            Parameter(
                description="Bucketed only: avg (default), min, max, sum, count, last, "
                "increase (counter fields), twa and integral (number fields), duration "
                "(state fields, with `state`)."
            ),
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
        fill: Annotated[
            str | None,
            Parameter(
                description="Bucketed only: `none` (default), `null`, `previous`, `linear` "
                "or `zero` (count and sum only): a point for every bucket of the range."
            ),
        ] = None,
        fill_max_gap: Annotated[
            str | None,
            Parameter(
                query="fillMaxGap",
                description="With `fill=previous` only: an ISO 8601 duration; a bucket "
                "starting more than that after the newest reading it would carry stays null.",
            ),
        ] = None,
        max_points: Annotated[
            str | None,
            Parameter(
                query="maxPoints",
                description="Raw, number fields only: 2..10,000; every reading of the range "
                "reduced to at most this many real readings (no 500 cap).",
            ),
        ] = None,
        downsample: Annotated[
            str | None,
            Parameter(description="With `maxPoints`: `lttb` (default) or `minmax`."),
        ] = None,
        state_value: Annotated[
            str | None,
            Parameter(
                query="state",
                description="With `agg=duration` (required there): the state value timed "
                "(a boolean's as `true` or `false`).",
            ),
        ] = None,
    ) -> Single[History]:
        query = parse_query(
            principal, field, from_, to, resolution, agg, site_id, tz,
            fill=fill, fill_max_gap=fill_max_gap, max_points=max_points,
            method=downsample, state=state_value,
        )  # fmt: skip
        return Single(await read_history(reader(principal), principal, device_ref, query))
