"""Fill of bucketed series (analytics.md section 3): a point for every bucket of the range.

With `fill` other than `none`, every bucket that starts in [the bucket of `from`, the
earlier of `to` and now) has a point, `filled` true when its value comes from the rule
because the bucket is empty. The rules work on one series' buckets, oldest first, so
/history, POST /query and the exports fill alike:

- `null`: null; `zero`: 0 (count and sum only);
- `previous`: the value of the last non-empty bucket before, or, before the first one,
  the aggregate of the single last reading before `from` (its value, 1 for count); with
  `fillMaxGap`, null where the bucket starts more than that after the newest reading of
  what it would carry;
- `linear`: interpolated by bucket start between the nearest non-empty buckets on each
  side, null where a side has none.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.core.errors import invalid_parameter
from app.history.planner import from_micros, to_micros
from app.world.times import Duration, add_months, parse_duration

FILL_MODES = ("none", "null", "previous", "linear", "zero")
ZERO_AGGS = ("count", "sum")


@dataclass(frozen=True)
class FillRule:
    mode: str  # null, previous, linear or zero (none is no rule)
    max_gap: Duration | None = None


@dataclass(frozen=True)
class Bucket:
    """A non-empty bucket: its value and the time of its newest reading (microseconds)."""

    value: Any
    newest: int | None = None


@dataclass(frozen=True)
class FilledPoint:
    label: int  # the bucket's start, epoch microseconds
    value: Any
    filled: bool


def parse_fill(
    fill: str | None, fill_max_gap: str | None, bucketed: bool, name: str = "fill"
) -> FillRule | None:
    """The fill of a request, or None for `none`; a 400 naming the rule broken."""
    gap_name = "fillMaxGap"
    if fill is None or fill == "none":
        if fill_max_gap is not None:
            raise invalid_parameter(gap_name, "applies only with fill=previous")
        return None
    if fill not in FILL_MODES:
        raise invalid_parameter(name, f"must be one of {', '.join(FILL_MODES)}")
    if not bucketed:
        raise invalid_parameter(name, "applies to bucketed resolutions only, not raw")
    max_gap = None
    if fill_max_gap is not None:
        if fill != "previous":
            raise invalid_parameter(gap_name, "applies only with fill=previous")
        try:
            max_gap = parse_duration(fill_max_gap)
        except ValueError:
            raise invalid_parameter(
                gap_name, "must be an ISO 8601 duration such as PT6H or P1D"
            ) from None
    return FillRule(fill, max_gap)


def check_fill_agg(rule: FillRule | None, agg: str, numeric_value: bool) -> None:
    """The rules that depend on the aggregate: zero only with count and sum, linear only
    where the aggregate is a number."""
    if rule is None:
        return
    if rule.mode == "zero" and agg not in ZERO_AGGS:
        raise invalid_parameter("fill", f"zero applies only with agg count or sum, not {agg}")
    if rule.mode == "linear" and not numeric_value:
        raise invalid_parameter("fill", "linear needs a numeric aggregate")


def previous_seed(agg: str, value: Any) -> Any:
    """The aggregate of a single reading, what fill=previous carries into the buckets
    before the first non-empty one: its value, 1 for count, 0 growth for increase."""
    if agg == "count":
        return 1
    if agg == "increase":
        return 0
    return value


def _too_old(rule: FillRule, label: int, newest: int | None) -> bool:
    if rule.max_gap is None or newest is None:
        return False
    limit = add_months(from_micros(newest), rule.max_gap.months) + rule.max_gap.exact
    return label > to_micros(limit)


def fill_buckets(
    labels: Sequence[int],
    known: dict[int, Bucket],
    rule: FillRule,
    before: Bucket | None = None,
) -> list[FilledPoint]:
    """Every bucket of `labels` (oldest first), the non-empty ones from `known`, the others
    by the rule; `before` is what fill=previous carries before the first non-empty bucket
    (the seed of the last reading before `from`, with that reading's time)."""
    if rule.mode == "linear":
        return _linear(labels, known)
    out: list[FilledPoint] = []
    carried = before
    for label in labels:
        bucket = known.get(label)
        if bucket is not None:
            out.append(FilledPoint(label, bucket.value, False))
            carried = bucket
        elif rule.mode == "null":
            out.append(FilledPoint(label, None, True))
        elif rule.mode == "zero":
            out.append(FilledPoint(label, 0, True))
        elif carried is None or _too_old(rule, label, carried.newest):
            out.append(FilledPoint(label, None, True))
        else:
            out.append(FilledPoint(label, carried.value, True))
    return out


def _linear(labels: Sequence[int], known: dict[int, Bucket]) -> list[FilledPoint]:
    out: list[FilledPoint] = []
    anchors = [label for label in labels if label in known and known[label].value is not None]
    position = 0  # anchors[position] is the first anchor after the current label
    for label in labels:
        bucket = known.get(label)
        while position < len(anchors) and anchors[position] <= label:
            position += 1
        if bucket is not None:
            out.append(FilledPoint(label, bucket.value, False))
            continue
        if position == 0 or position == len(anchors):
            out.append(FilledPoint(label, None, True))
            continue
        left, right = anchors[position - 1], anchors[position]
        a, b = known[left].value, known[right].value
        out.append(FilledPoint(label, a + (b - a) * (label - left) / (right - left), True))
    return out
