"""Bucketed exports (analytics.md section 2): a row per bucket, its values the buckets'
`agg`, read by app/history/series.py and app/history/chart.py as /history and POST /query
read them, so an exported bucket equals the query's: the standard aggregates a batch of
series per statement (then filled series by series when `fill` is asked), increase, twa,
integral and duration series by series.

The devices are read a batch at a time (as many series as make about `BATCH_BUCKETS`
buckets), each batch one statement per kind of value, and its rows leave before the next
batch is read: memory holds one batch whatever the export's size. Values are written as
POST /query writes them in JSON (numbers in their shortest exact form, counts as
integers); CSV string cells are neutralised as in every export.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

import msgspec

from app.export.cells import neutralise
from app.export.structs import ExportPlan
from app.history import chart
from app.history.aggregates import NEW_AGGS
from app.history.planner import bucket_count
from app.history.series import Bucketing, Series, read_buckets
from app.history.structs import HistoryPoint

# Buckets read per statement (about; a device's series are never split).
BATCH_BUCKETS = 20_000
# Series per statement at most.
BATCH_SERIES = 200
_encode = msgspec.json.encode


@dataclass(frozen=True)
class ExportSeries:
    position: int  # the column's, 1-based
    series: Series
    data_type: str


def device_series(plan: ExportPlan, index: int) -> list[ExportSeries]:
    """The series of device `index` of the plan, by column."""
    profile = plan.device_profiles[index]
    found = [
        ExportSeries(
            position, Series(plan.device_nums[index], field, numeric, field == 0, False), kind
        )
        for field, field_profile, position, numeric, kind in zip(
            plan.map_fields,
            plan.map_profiles,
            plan.map_positions,
            plan.map_numeric,
            plan.map_types,
            strict=True,
        )
        if field_profile is None or field_profile == profile
    ]
    return sorted(found, key=lambda entry: entry.position)


async def bucket_rows(connection: Any, plan: ExportPlan) -> AsyncIterator[list[tuple[Any, ...]]]:
    """The export's rows in file order, a batch of devices at a time. A row is (time,
    device id, DevEUI, then a value per column) in the wide layout, (time, device id,
    DevEUI, column position, value) in the long one; values None where a column has no
    bucket."""
    bucketing = None
    if plan.resolution is not None:
        assert plan.agg is not None
        bucketing = Bucketing(plan.resolution, plan.agg, plan.tz)
        per_series = max(1, bucket_count(plan.start, plan.end, plan.resolution, plan.tz))
    else:  # maxPoints: at most that many readings per series
        assert plan.chart.max_points is not None
        per_series = plan.chart.max_points
    devices = range(len(plan.device_nums))
    batch: list[tuple[int, list[ExportSeries]]] = []
    size = 0
    for index in devices:
        series = device_series(plan, index)
        batch.append((index, series))
        size += len(series)
        if size * per_series >= BATCH_BUCKETS or size >= BATCH_SERIES:
            yield await _read(connection, plan, bucketing, batch)
            batch, size = [], 0
    if batch:
        yield await _read(connection, plan, bucketing, batch)


async def _points(
    connection: Any, plan: ExportPlan, bucketing: Bucketing | None, flat: list[ExportSeries]
) -> list[list[HistoryPoint]]:
    """The buckets of each series, or its readings reduced by maxPoints, oldest first, as
    /history reads them."""
    if bucketing is None:
        return [
            (
                await chart.read_downsampled(
                    connection, entry.series.device_num, entry.series.field_num, plan.start,
                    plan.end, None, plan.chart, entry.series.whole, False,
                )
            )[0]
            for entry in flat
        ]  # fmt: skip
    assert plan.resolution is not None and plan.agg is not None and plan.cutoff is not None

    def span(entry: ExportSeries) -> chart.SeriesSpan:
        assert plan.resolution is not None and plan.agg is not None and plan.cutoff is not None
        return chart.SeriesSpan(
            entry.series.numeric, entry.data_type, entry.series.device_num,
            entry.series.field_num, plan.start, plan.end, plan.cutoff, None, plan.resolution,
            plan.agg, plan.tz, plan.chart,
        )  # fmt: skip

    if plan.agg in NEW_AGGS:
        return [await chart.aggregate_points(connection, span(entry)) for entry in flat]
    answers = await read_buckets(
        connection, [entry.series for entry in flat], plan.start, plan.end, bucketing
    )
    if plan.chart.fill is None:
        return answers
    return [
        await chart.fill_points(connection, points, None, span(entry))
        for entry, points in zip(flat, answers, strict=True)
    ]


async def _read(
    connection: Any,
    plan: ExportPlan,
    bucketing: Bucketing | None,
    batch: list[tuple[int, list[ExportSeries]]],
) -> list[tuple[Any, ...]]:
    flat = [entry for _, entries in batch for entry in entries]
    answers = iter(await _points(connection, plan, bucketing, flat))
    rows: list[tuple[Any, ...]] = []
    width = len(plan.columns)
    for index, entries in batch:
        device: tuple[uuid.UUID, str] = (plan.device_ids[index], plan.device_euis[index])
        if plan.layout == "long":
            cells = [
                (point.time, entry.position, point.value)
                for entry in entries
                for point in next(answers)
            ]
            cells.sort(key=lambda cell: (cell[0], cell[1]))
            rows.extend((time, *device, position, value) for time, position, value in cells)
            continue
        by_time: dict[datetime, list[Any]] = {}
        for entry in entries:
            for point in next(answers):
                by_time.setdefault(point.time, [None] * width)[entry.position - 1] = point.value
        rows.extend((time, *device, *by_time[time]) for time in sorted(by_time))
    return rows


def rfc3339(moment: datetime) -> str:
    """RFC 3339 in UTC with `Z`, fractional seconds only when there are some (as the
    readings' export writes times)."""
    text = moment.astimezone(UTC).replace(tzinfo=None).isoformat()
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text + "Z"


def local_time(moment: datetime, tz: str) -> str:
    """ISO 8601 with the zone's offset (the `localTime` column)."""
    return moment.astimezone(ZoneInfo(tz)).isoformat()


def _lead(plan: ExportPlan, row: tuple[Any, ...]) -> list[str]:
    lead = [rfc3339(row[0])]
    if plan.fleet:
        lead += [str(row[1]), row[2]]
    if plan.tz is not None:
        lead.append(local_time(row[0], plan.tz))
    return lead


def _csv_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        text = neutralise(value)
        if text == "" or any(c in text for c in ',"\r\n'):
            return '"' + text.replace('"', '""') + '"'
        return text
    text = _encode(value).decode()
    if any(c in text for c in ',"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


def csv_lines(plan: ExportPlan, rows: list[tuple[Any, ...]]) -> bytes:
    """RFC 4180 lines (CRLF); an absent cell is empty, an empty string is ""."""
    names = [c.identifier for c in plan.columns]
    lines = []
    for row in rows:
        lead = _lead(plan, row)
        if plan.layout == "long":
            cells = [_csv_cell(names[row[3] - 1]), _csv_cell(row[4])]
        else:
            cells = [_csv_cell(value) for value in row[3:]]
        lines.append(",".join([*lead, *cells]))
    return ("\r\n".join(lines) + "\r\n").encode() if lines else b""


def ndjson_lines(plan: ExportPlan, rows: list[tuple[Any, ...]]) -> bytes:
    """One object per line, keys in column order, absent cells null."""
    names = [c.identifier for c in plan.columns]
    keys = ["time", *(["deviceId", "devEui"] if plan.fleet else [])]
    keys += ["localTime"] if plan.tz is not None else []
    out = bytearray()
    for row in rows:
        item: dict[str, Any] = dict(zip(keys, _lead(plan, row), strict=True))
        if plan.layout == "long":
            item["field"] = names[row[3] - 1]
            item["value"] = row[4]
        else:
            item.update(zip(names, row[3:], strict=True))
        out += _encode(item)
        out += b"\n"
    return bytes(out)


def _text(value: Any) -> str | None:
    """A value that is not a number as text: a string as it is, others as JSON."""
    if value is None or isinstance(value, str):
        return value
    return _encode(value).decode()


def parquet_rows(plan: ExportPlan, rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Typed rows for the Parquet schema of the plan (app/export/writers.parquet_schema)."""
    kinds = [c.kind for c in plan.columns]
    names = [c.identifier for c in plan.columns]
    typed: list[tuple[Any, ...]] = []
    for row in rows:
        lead: list[Any] = [row[0]]
        if plan.fleet:
            lead += [str(row[1]), row[2]]
        if plan.tz is not None:
            lead.append(local_time(row[0], plan.tz))
        if plan.layout == "long":
            value = row[4]
            number = (
                value if isinstance(value, int | float) and not isinstance(value, bool) else None
            )
            text = None if number is not None else _text(value)
            typed.append((*lead, names[row[3] - 1], number, text))
            continue
        cells: list[Any] = []
        for kind, value in zip(kinds, row[3:], strict=True):
            if value is None:
                cells.append(None)
            elif kind == "number":
                cells.append(float(value))
            elif kind == "boolean":
                cells.append(bool(value))
            else:
                cells.append(_text(value))
        typed.append((*lead, *cells))
    return typed
