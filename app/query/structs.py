"""The body and the answer of POST /query (analytics.md section 2)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, TypeAlias, TypeVar

import msgspec
from msgspec import Meta

from app.history.aggregates import STATE_AGGS
from app.history.downsample import MAX_POINTS, METHODS, MIN_POINTS
from app.history.fill import FILL_MODES
from app.history.service import AGGS
from app.history.structs import Downsampled, HistoryPoint

MAX_DEVICES = 1_000
MAX_FIELDS = 20
MAX_SERIES = 20_000
MAX_LIMIT = 100_000
DEFAULT_LIMIT = 10_000


class DeviceSelection(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    """`ids`, or the filters of GET /devices (status is always assigned), not both."""

    ids: (
        Annotated[
            list[str],
            Meta(description="Service ids (UUID) or DevEUIs, at most 1,000."),
        ]
        | None
    ) = None
    sub_account_id: str | None = None
    device_profile_id: str | None = None
    network_id: Annotated[str, Meta(description="A network id or `none`.")] | None = None
    site_id: Annotated[str, Meta(description="A site id or `none`.")] | None = None
    include_descendants: bool | str | None = None
    online: bool | str | None = None
    search: str | None = None


# An aggregate's name, as /history's `agg` takes it: the document states the set, so a
# generated client (and schemathesis) knows it. `duration` names the state it times after
# a colon (analytics.md section 3: `"door": "duration:open"`), since a body has no
# `state` parameter and one field may time several states.
QUERY_AGGS = AGGS
STATE_SEPARATOR = ":"
AGG_PATTERN = (
    "^("
    + "|".join(a for a in QUERY_AGGS if a not in STATE_AGGS)
    # `duration` alone passes the pattern, so that its 400 says what it lacks.
    + "".join(f"|{a}({STATE_SEPARATOR}.+)?" for a in STATE_AGGS)
    + ")$"
)
# The pattern is stated in the document only and checked by the service
# (app/query/service.py `_check_agg`): msgspec (0.18 to 0.22) corrupts memory when one
# union holds a `Meta(pattern=...)` string beside a list or dict, as `agg` does (its
# TypeNode_Free takes the compiled pattern for a type node and frees it at exit).
AggName = Annotated[str, Meta(extra_json_schema={"pattern": AGG_PATTERN})]
AggList = list[AggName]


class QueryBody(msgspec.Struct, rename="camel", forbid_unknown_fields=True, kw_only=True):
    devices: DeviceSelection
    # The bounds are stated in the document only: the service checks them itself, so that
    # its messages name the bound (app/query/service.py).
    fields: Annotated[
        list[Annotated[str, Meta(extra_json_schema={"minLength": 1})]],
        Meta(
            description="Field identifiers or `signal_quality`, each once, at most 20.",
            extra_json_schema={"minItems": 1, "maxItems": MAX_FIELDS, "uniqueItems": True},
        ),
    ]
    from_: Annotated[
        str,
        Meta(description="Start (inclusive): ISO 8601, `now` or `now-<duration>`, as /history."),
    ] = msgspec.field(name="from")
    to: Annotated[str, Meta(description="End (exclusive), in the same forms as `from`.")]
    resolution: (
        Annotated[
            str, Meta(description="`raw` (default), `hourly`, `daily` or an ISO 8601 duration.")
        ]
        | None
    ) = None
    agg: (
        Annotated[
            AggName | dict[str, AggName | AggList],
            Meta(
                description="Bucketed only: one aggregate for every field, or per field an "
                "aggregate or a list of them (avg, min, max, sum, count, last, increase, twa, "
                "integral, or duration:<state>; default avg)."
            ),
        ]
        | None
    ) = None
    tz: Annotated[str, Meta(description="IANA zone of the buckets (default UTC).")] | None = None
    # Section 3 (chart-ready series), checked by the parser /history uses
    # (app/query/service.py `check_chart_parameters`); their bounds and sets are stated in
    # the document only, so that the service's messages name the rule.
    fill: (
        Annotated[
            str,
            Meta(
                description="Bucketed only: a point for every bucket of the range "
                "(`none` leaves empty buckets out).",
                extra_json_schema={"enum": list(FILL_MODES)},
            ),
        ]
        | None
    ) = None
    fill_max_gap: (
        Annotated[
            str,
            Meta(
                description="With fill=previous: an ISO 8601 duration (PT6H) past which "
                "a bucket is left null."
            ),
        ]
        | None
    ) = None
    max_points: (
        Annotated[
            int,
            Meta(
                description="Raw, number fields only: each series reduced to at most this "
                "many real readings.",
                extra_json_schema={"minimum": MIN_POINTS, "maximum": MAX_POINTS},
            ),
        ]
        | None
    ) = None
    downsample: (
        Annotated[
            str,
            Meta(
                description="With maxPoints: `lttb` (default) or `minmax`.",
                extra_json_schema={"enum": list(METHODS)},
            ),
        ]
        | None
    ) = None
    limit: Annotated[int, Meta(ge=1, le=MAX_LIMIT, description="Points per page.")] = DEFAULT_LIMIT
    cursor: Annotated[str, Meta(description="The `nextCursor` of the previous page.")] | None = None


BODY_DECODER = msgspec.json.Decoder(QueryBody)


T = TypeVar("T")
# A member the answer carries only where it applies (the structs omit defaults).
OrUnset: TypeAlias = T | msgspec.UnsetType


class QuerySeries(msgspec.Struct, rename="camel", omit_defaults=True, kw_only=True):
    device_id: uuid.UUID
    dev_eui: str
    field: Annotated[str, Meta(description="The field identifier as asked.")]
    agg: OrUnset[
        Annotated[str, Meta(description="The aggregate of the buckets (bucketed only).")]
    ] = msgspec.UNSET
    # With maxPoints, when the series was reduced: on every page that holds it.
    downsampled: OrUnset[Downsampled] = msgspec.UNSET
    points: Annotated[
        list[HistoryPoint],
        Meta(description="Oldest first; on a continued page, the rest of the series."),
    ]


class QueryData(msgspec.Struct, rename="camel", omit_defaults=True, kw_only=True):
    from_: Annotated[
        datetime, Meta(description="Start of the range read (the cutoff when clamped).")
    ] = msgspec.field(name="from")
    to: Annotated[datetime, Meta(description="End of the range (exclusive).")]
    resolution: Annotated[str, Meta(description="The resolution as asked (`raw` by default).")]
    tz: OrUnset[Annotated[str, Meta(description="The zone of the buckets, when asked.")]] = (
        msgspec.UNSET
    )
    clamped: OrUnset[
        Annotated[bool, Meta(description="True when retention moved `from` to the cutoff.")]
    ] = msgspec.UNSET
    retention_cutoff: OrUnset[
        Annotated[datetime, Meta(description="The oldest time the plan keeps (when clamped).")]
    ] = msgspec.UNSET
    series: Annotated[
        list[QuerySeries],
        Meta(description="The page's series: by device id, then fields, then aggregates."),
    ]


class QueryPage(msgspec.Struct, rename="camel"):
    data: QueryData
    next_cursor: Annotated[
        str | None,
        Meta(
            description="Send it as `cursor` with the same body for the next page; null "
            "on the last page."
        ),
    ]
