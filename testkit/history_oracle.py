"""The history oracle: the route's answers against time_bucket over the raw tables.

Random readings (late, out of order, equal times, across sites, some bulk-loaded by COPY,
some packed into weeks by the packing job and some left raw in the same weeks, some
removed by `delete_device_telemetry`) are loaded for one device, clustered around hour
and day edges and the DST changes of the zones below; then random requests (range,
resolution, agg, site filter, field, `tz`) go through the real route, and each answer is
compared with the same aggregate computed directly by `time_bucket(interval, time[, tz])`
over a plain copy of the readings (`oracle_readings_num` / `_other`, one row per reading,
written beside the real load and never packed) (decisions D12, integrations.md section 5:
equal, avg within 1e-9 relative). Most requests are aimed
at the data (a range around a reading of the field, at its site), so that most cases
compare non-empty answers; the share is reported. tests/integration/test_history_oracle.py
runs a few hundred cases; the long mode (benchmarks/history_oracle.py) runs on a scratch
database of the project's cluster:

    python -m benchmarks.history_oracle --cases 10000
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any
from zoneinfo import ZoneInfo

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from app.history.planner import MAX_BUCKETS, bucket_count, parse_resolution
from testkit.factories import World, load

QUERIES_PER_DATASET = 12
# The aggregate of a series the query names none for (its raw points).
NO_AGG: list[str | None] = [None]
RESOLUTIONS = [
    "raw", "raw", "raw", "hourly", "daily", "PT1H", "P1D", "PT15M", "PT7M", "PT90M", "PT6H",
    "P1DT6H", "P2D", "P1W", "P7D", "P1M", "P2M", "P1Y", "PT1S", "PT10S",
    "PT1.5H", "P0.5D", "PT2.5S",
]  # fmt: skip
NUMERIC_AGGS = ["avg", "min", "max", "sum", "count", "last", None]
OTHER_AGGS = ["count", "last", None]
# All readings fall in [BASE, BASE + SPAN); ranges reach a little beyond on both sides.
SPAN = timedelta(days=75)
# None is UTC without `tz` (D12); the others cover whole-hour, half-hour and 45-minute
# offsets and DST changes in both hemispheres.
ZONES = [
    None, "UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Australia/Adelaide",
    "Asia/Kathmandu", "Pacific/Chatham",
]  # fmt: skip


def base_time() -> datetime:
    # September 1st of last year: inside the oracle's 10-year retention, and the 75 days
    # from it hold the autumn DST changes of Chatham, Adelaide (spring there), Berlin and
    # New York.
    return datetime(datetime.now(UTC).year - 1, 9, 1, tzinfo=UTC)


def dst_changes(base: datetime) -> list[int]:
    """Offsets from `base` (microseconds) of the zones' clock changes in the span, and of
    the local midnights before and after each."""
    points: list[int] = []
    for name in ZONES[2:]:
        assert name is not None
        zone = ZoneInfo(name)
        step, moment = timedelta(hours=1), base
        while moment < base + SPAN:
            if (moment + step).astimezone(zone).utcoffset() != moment.astimezone(zone).utcoffset():
                change = moment + step
                local = change.astimezone(zone).replace(hour=0, minute=0, second=0)
                for instant in (change, local, local + timedelta(days=1)):
                    points.append(int((instant - base).total_seconds()) * 1_000_000)
            moment += step
    return points


@dataclass(frozen=True)
class Reading:
    field: str  # "x" (number) or "s" (string)
    offset_us: int  # from BASE
    value: Any
    site: int  # 0 = none, 1 or 2: the oracle's two sites
    bulk: bool  # COPY instead of record_readings
    packed: bool  # loaded before the packing job runs (the others land in packed weeks raw)
    device: int = 0  # which of the oracle's three devices


DAY_US = 86_400_000_000
HOUR_US = 3_600_000_000
DENSE_US = 40 * DAY_US  # most readings fall in the three days from here
# Where readings cluster: the dense days, clock changes and the local midnights around them.
FOCUS = [DENSE_US, *dst_changes(base_time())]
# Times cluster in a few days, with hour and day boundaries (and their neighbours) common
# enough to make equal times and edge buckets frequent; some spread over the whole span.
offsets = st.one_of(
    st.integers(DENSE_US, DENSE_US + 3 * DAY_US),
    st.integers(0, int(SPAN.total_seconds() * 1e6) - 1),
    st.tuples(st.integers(0, 72), st.sampled_from([-1, 0, 1, 0])).map(
        lambda hd: DENSE_US + hd[0] * HOUR_US + hd[1]
    ),
    st.integers(0, 400).map(lambda minutes: DENSE_US + minutes * 60_000_000),
    st.tuples(st.integers(0, 71), st.integers(0, 3_599)).map(
        lambda t: DENSE_US + t[0] * HOUR_US + t[1] * 1_000_000
    ),
    # Quarter hours (the edges of half-hour and 45-minute zones' buckets) around a focus.
    st.tuples(
        st.sampled_from(FOCUS), st.integers(-4 * 30, 4 * 30), st.sampled_from([-1, 0, 1, 0])
    ).map(lambda t: t[0] + t[1] * 15 * 60_000_000 + t[2]),
    st.tuples(st.sampled_from(FOCUS), st.integers(-2 * DAY_US, 2 * DAY_US)).map(sum),
).filter(lambda offset: 0 <= offset < int(SPAN.total_seconds() * 1e6))
numbers = st.one_of(
    st.integers(-(10**6), 10**6).map(lambda i: i / 8),
    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
)
strings = st.sampled_from(["a", "b", "c", "zz", ""])


def readings(min_size: int) -> st.SearchStrategy[list[Reading]]:
    return st.lists(reading, min_size=min_size, max_size=80)


reading = st.builds(
    Reading,
    field=st.sampled_from(["x", "x", "x", "s"]),
    offset_us=offsets,
    value=st.none(),
    site=st.sampled_from([0, 1, 2]),
    bulk=st.booleans(),
    packed=st.sampled_from([True, True, False]),
    device=st.sampled_from([0, 0, 0, 1, 2]),
).flatmap(
    lambda r: (numbers if r.field == "x" else strings).map(
        lambda v: Reading(r.field, r.offset_us, v, r.site, r.bulk, r.packed, r.device)
    )
)


@dataclass(frozen=True)
class Dataset:
    before_deletion: list[Reading]
    after_deletion: list[Reading]


datasets = st.builds(
    Dataset,
    before_deletion=st.one_of(st.just([]), readings(0)),
    after_deletion=readings(5),
)


@dataclass(frozen=True)
class Request:
    field: str
    start_us: int
    length_us: int
    resolution: str
    agg: str | None
    site: int | None
    tz: str | None = None
    device: int = 0


requests = st.builds(
    Request,
    field=st.sampled_from(["x", "x", "s"]),
    start_us=st.one_of(
        st.integers(DENSE_US - DAY_US, DENSE_US + 3 * DAY_US),
        st.integers(-DAY_US, int(SPAN.total_seconds() * 1e6)),
        st.integers(-1, 3).map(lambda d: DENSE_US + d * DAY_US),
        st.integers(-30, 80).map(lambda h: DENSE_US + h * HOUR_US + 30 * 60_000_000),
    ),
    length_us=st.one_of(
        st.tuples(st.integers(0, 96), st.integers(0, 59), st.sampled_from([0, 1, -1, 7_777])).map(
            lambda t: max(1, t[0] * HOUR_US + t[1] * 60_000_000 + t[2])
        ),
        st.integers(1, 100).map(lambda d: d * DAY_US),
        st.integers(1, int(SPAN.total_seconds() * 1e6) + DAY_US),
    ),
    resolution=st.sampled_from(RESOLUTIONS),
    agg=st.sampled_from(NUMERIC_AGGS),
    site=st.sampled_from([None, None, 1, 2, 3]),
    tz=st.sampled_from(ZONES),
)

# How far a range aimed at a reading reaches before and after it: exactly to it, minutes,
# whole hours and days (bucket edges when the reading is on one), up to the whole span.
minutes = st.integers(0, 90).map(lambda m: m * 60_000_000)
hours = st.tuples(st.integers(0, 72), st.sampled_from([0, 0, 1, -1])).map(
    lambda t: max(0, t[0] * HOUR_US + t[1])
)
days = st.integers(0, 20).map(lambda d: d * DAY_US)
reach = st.one_of(
    st.just(0),
    minutes,
    minutes,
    hours,
    hours,
    days,
    st.integers(0, int(SPAN.total_seconds() * 1e6)),
)


@st.composite
def aimed_request(draw: Any, dataset: Dataset) -> Request:
    """A request whose range holds a reading of its field (at its site, when filtered)."""
    anchor = draw(st.sampled_from(dataset.after_deletion))
    before, after = draw(reach), draw(reach)
    site = draw(st.sampled_from([None, None, None, anchor.site or None]))
    numeric = anchor.field == "x"
    return Request(
        field=anchor.field,
        start_us=anchor.offset_us - before,
        length_us=before + after + 1,
        resolution=draw(st.sampled_from(RESOLUTIONS)),
        agg=draw(st.sampled_from(NUMERIC_AGGS if numeric else [*OTHER_AGGS, "count", "last"])),
        site=site,
        tz=draw(st.sampled_from(ZONES)),
        device=anchor.device,
    )


wide_reach = st.one_of(hours, days, st.integers(0, int(SPAN.total_seconds() * 1e6)))


@dataclass(frozen=True)
class QueryRequest:
    """A POST /query of several of the oracle's devices, followed page by page."""

    devices: list[int]  # indices into the oracle's devices (repeats and DevEUIs allowed)
    by_eui: list[bool]
    fields: list[str]
    start_us: int
    length_us: int
    resolution: str
    aggs: dict[str, list[str]]
    tz: str | None
    limit: int


@st.composite
def aimed_query(draw: Any, dataset: Dataset) -> QueryRequest:
    """A query whose range holds a reading of one of its devices, paged in small pages
    (ranges are wider than /history's, so that pages split series)."""
    anchor = draw(st.sampled_from(dataset.after_deletion))
    before, after = draw(wide_reach), draw(wide_reach)
    devices = draw(st.lists(st.sampled_from([0, 1, 2]), min_size=1, max_size=4))
    if anchor.device not in devices:
        devices.append(anchor.device)
    fields = draw(st.sampled_from([["x"], ["s"], ["x", "s"], ["s", "x"]]))
    resolution = draw(st.sampled_from(RESOLUTIONS))
    aggs: dict[str, list[str]] = {}
    if resolution != "raw":
        for name in fields:
            pool = ["avg", "min", "max", "sum", "count", "last"] if name == "x" else OTHER_AGGS[:2]
            aggs[name] = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=3, unique=True))
    return QueryRequest(
        devices=devices,
        by_eui=draw(st.lists(st.booleans(), min_size=len(devices), max_size=len(devices))),
        fields=fields,
        start_us=anchor.offset_us - before,
        length_us=before + after + 1,
        resolution=resolution,
        aggs=aggs,
        tz=draw(st.sampled_from(ZONES)),
        limit=draw(st.sampled_from([1, 1, 2, 3, 7, 20, 10_000])),
    )


def batch_for(dataset: Dataset) -> st.SearchStrategy[list[Request | QueryRequest]]:
    """QUERIES_PER_DATASET requests, most of them aimed at the dataset's readings: /history
    requests and a few POST /query ones."""
    one = st.one_of(aimed_request(dataset), aimed_request(dataset), aimed_request(dataset),
                    aimed_request(dataset), aimed_request(dataset), aimed_request(dataset),
                    aimed_query(dataset), aimed_query(dataset), requests)  # fmt: skip
    return st.lists(one, min_size=QUERIES_PER_DATASET, max_size=QUERIES_PER_DATASET)


# A dataset with its requests (hypothesis draws both and shrinks them together).
dataset_cases = datasets.flatmap(lambda d: st.tuples(st.just(d), batch_for(d)))


@dataclass
class Oracle:
    """One device and its two fields in a loaded world, and how to reach them."""

    client: Any  # an httpx-compatible async client on the app
    pool: Any
    key: str
    device_ids: list[str]
    device_euis: list[str]
    device_nums: list[int]
    field_nums: dict[str, int]  # "x", "s"
    site_ids: list[str]  # sites 1 and 2 (index 0, 1); 3 = a site of another tenant
    site_nums: list[int]
    foreign_site_id: str
    base: datetime
    # Checks by outcome ("raw", "bucketed", "400") and how many compared non-empty answers.
    stats: dict[str, int] = field(default_factory=dict)

    def count(self, what: str, points: int = 0) -> None:
        self.stats[what] = self.stats.get(what, 0) + 1
        self.stats["cases"] = self.stats.get("cases", 0) + 1
        if points:
            self.stats[what + " non-empty"] = self.stats.get(what + " non-empty", 0) + 1
            self.stats["non-empty"] = self.stats.get("non-empty", 0) + 1

    def non_empty_share(self) -> float:
        return self.stats.get("non-empty", 0) / max(1, self.stats.get("cases", 0))

    async def _delete(self) -> None:
        for num in self.device_nums:
            await self.pool.execute("SELECT delete_device_telemetry($1)", num)

    async def load(self, dataset: Dataset) -> None:
        await self._delete()
        await self._load(dataset.before_deletion)
        if dataset.before_deletion:
            await self._delete()
        await self._load(dataset.after_deletion)
        await self._copy(dataset.after_deletion)

    async def _copy(self, batch: list[Reading]) -> None:
        await copy_plainly(
            self.pool, "oracle_readings", [(r.field == "x", self._row(r)) for r in batch]
        )

    def _row(self, reading: Reading) -> tuple[Any, ...]:
        return (
            self.device_nums[reading.device],
            self.field_nums[reading.field],
            self.base + timedelta(microseconds=reading.offset_us),
            reading.value,
            self._site_num(reading.site),
        )

    def _site_num(self, site: int) -> int:
        return self.site_nums[site - 1] if site else 0

    async def _load(self, batch: list[Reading]) -> None:
        """The packed readings, then the packing job over every closed week, then the rest
        (late readings, raw inside packed weeks)."""
        await self._write([r for r in batch if r.packed])
        await self.pool.execute("SELECT pack_closed_chunks(interval '0')")
        await self._write([r for r in batch if not r.packed])
        # How the dataset lies: readings in packed weeks and raw ones (the oracle's cases
        # must see both, and weeks holding both).
        packed, raw = await self.pool.fetchrow(
            "SELECT (SELECT COALESCE(sum(n), 0) FROM packed_num WHERE device_num = ANY ($1))"
            " + (SELECT COALESCE(sum(n), 0) FROM packed_other WHERE device_num = ANY ($1)),"
            " (SELECT count(*) FROM readings_num WHERE device_num = ANY ($1))"
            " + (SELECT count(*) FROM readings_other WHERE device_num = ANY ($1))",
            self.device_nums,
        )
        self.stats["packed readings"] = self.stats.get("packed readings", 0) + packed
        self.stats["raw readings"] = self.stats.get("raw readings", 0) + raw

    async def _write(self, batch: list[Reading]) -> None:
        for reading in batch:
            if reading.bulk:
                continue
            is_number = reading.field == "x"
            await self.pool.execute(
                "SELECT record_readings($1, $2, $3, $4, $5, $6, $7)",
                self.device_nums[reading.device],
                self._site_num(reading.site),
                self.base + timedelta(microseconds=reading.offset_us),
                [self.field_nums["x"]] if is_number else [],
                [reading.value] if is_number else [],
                [] if is_number else [self.field_nums["s"]],
                [] if is_number else [reading.value],
            )
        rows = [self._row(r) for r in batch if r.bulk]
        if not rows:
            return
        async with self.pool.acquire() as connection, connection.transaction():
            numeric = [row for row in rows if isinstance(row[3], float)]
            if numeric:
                await connection.copy_records_to_table(
                    "readings_num",
                    records=numeric,
                    columns=["device_num", "field_num", "time", "value", "site_num"],
                )
            # jsonb has no binary COPY encoder here; a plain INSERT stands in for it.
            await connection.executemany(
                "INSERT INTO readings_other (device_num, field_num, time, value, site_num)"
                " VALUES ($1, $2, $3, $4, $5)",
                [row for row in rows if not isinstance(row[3], float)],
            )

    async def check(self, request: Request | QueryRequest) -> None:
        """Asks the route and the raw tables the same question; raises AssertionError."""
        if isinstance(request, QueryRequest):
            await self.check_query(request)
            return
        numeric = request.field == "x"
        agg = request.agg if numeric or request.agg in OTHER_AGGS else "last"
        start = self.base + timedelta(microseconds=request.start_us)
        end = start + timedelta(microseconds=request.length_us)
        params: dict[str, str] = {
            "field": request.field if request.field == "s" else "x",
            "from": iso(start),
            "to": iso(end),
            "resolution": request.resolution,
        }
        if agg is not None and request.resolution != "raw":
            params["agg"] = agg
        if request.tz is not None:
            params["tz"] = request.tz
        site_id = None
        if request.site is not None:
            site_id = self.foreign_site_id if request.site == 3 else self.site_ids[request.site - 1]
            params["siteId"] = site_id
        response = await self.client.get(
            f"/api/v1/devices/{self.device_ids[request.device]}/history",
            params=params,
            headers={"Authorization": f"Bearer {self.key}"},
        )
        resolution = parse_resolution(request.resolution)
        too_many = (
            resolution is not None
            and bucket_count(start, end, resolution, request.tz) > MAX_BUCKETS
        )
        # A string field has no avg, the default agg of bucketed resolutions.
        no_default = resolution is not None and not numeric and agg is None
        if too_many or no_default:
            assert response.status_code == 400, response.text
            assert response.json()["error"]["code"] == "invalid_parameter"
            self.count("400")
            return
        assert response.status_code == 200, (params, response.text)
        data = response.json()["data"]
        assert data.get("tz") == request.tz, (params, data)
        site_num = None
        if request.site is not None:
            site_num = -1 if request.site == 3 else self.site_nums[request.site - 1]
        device_num = self.device_nums[request.device]
        if resolution is None:
            want = await self.expected_raw(device_num, request.field, start, end, site_num)
            want.reverse()  # newest first on /history
            got = [(p["time"], p["value"], p["siteId"]) for p in data["points"]]
            assert data.get("truncated", False) == (len(want) > 500), params
            assert got == want[:500], (params, got, want[:500])
            self.count("raw", len(got))
            return
        assert data["agg"] == (agg or "avg"), params
        expected = await self.expected_buckets(
            device_num, request.field, start, end, site_num, request.resolution, agg, request.tz
        )
        expected.reverse()
        compare_buckets(data["points"], expected, agg, params)
        self.count("bucketed", len(expected))

    async def expected_raw(
        self, device_num: int, field: str, start: datetime, end: datetime, site_num: int | None
    ) -> list[tuple[str, Any, str | None]]:
        """(time, value, site id) of every reading of the plain copy, oldest first (the
        reverse of /history's order: time, then value, then site num)."""
        table = "oracle_readings_num" if field == "x" else "oracle_readings_other"
        rows = await self.pool.fetch(
            f"""SELECT r.time, r.value, s.id AS site_id
                  FROM {table} r LEFT JOIN sites s ON s.num = r.site_num
                 WHERE r.device_num = $1 AND r.field_num = $2 AND r.time >= $3
                   AND r.time < $4 AND ($5::integer IS NULL OR r.site_num = $5)
                 ORDER BY r.time, r.value, r.site_num""",
            device_num,
            self.field_nums[field],
            start,
            end,
            site_num,
        )
        return [(iso(r["time"]), r["value"], str_or_none(r["site_id"])) for r in rows]

    async def expected_buckets(
        self,
        device_num: int,
        field: str,
        start: datetime,
        end: datetime,
        site_num: int | None,
        resolution: str,
        agg: str | None,
        tz: str | None,
    ) -> list[Any]:
        """time_bucket over the plain copy: rows (bucket, value, scale, n), oldest first."""
        parsed = parse_resolution(resolution)
        assert parsed is not None
        expression = {
            "avg": "avg(value)",
            "min": "min(value)",
            "max": "max(value)",
            "sum": "sum(value)",
            "count": "count(*)",
            "last": "(array_agg(value ORDER BY time DESC, value DESC))[1]",
        }[agg or "avg"]
        numeric = field == "x"
        table = "oracle_readings_num" if numeric else "oracle_readings_other"
        scale = "avg(abs(value))" if numeric else "0"
        bucket = "time_bucket($6::text::interval, time" + (", $7::text)" if tz else ")")
        return list(
            await self.pool.fetch(
                f"""SELECT {bucket} AS bucket, {expression} AS value,
                           {scale} AS scale, count(*) AS n
                      FROM {table}
                     WHERE device_num = $1 AND field_num = $2 AND time >= $3 AND time < $4
                       AND ($5::integer IS NULL OR site_num = $5)
                     GROUP BY 1 ORDER BY 1""",
                device_num,
                self.field_nums[field],
                start,
                end,
                site_num,
                parsed.interval,
                *([tz] if tz else []),
            )
        )

    async def check_query(self, request: QueryRequest) -> None:
        """POST /query over several devices, every page followed, against the plain copy:
        each (device, field, agg) series exactly, every point once, pages within limit."""
        start = self.base + timedelta(microseconds=request.start_us)
        end = start + timedelta(microseconds=request.length_us)
        references = [
            self.device_euis[d] if eui else self.device_ids[d]
            for d, eui in zip(request.devices, request.by_eui, strict=True)
        ]
        body: dict[str, Any] = {
            "devices": {"ids": references},
            "fields": request.fields,
            "from": iso(start),
            "to": iso(end),
            "resolution": request.resolution,
            "limit": request.limit,
        }
        if request.aggs:
            body["agg"] = request.aggs
        if request.tz is not None:
            body["tz"] = request.tz
        resolution = parse_resolution(request.resolution)
        merged: list[dict[str, Any]] = []
        pages = 0
        async for response in query_pages(self.client, self.key, body):
            if resolution is not None and bucket_count(start, end, resolution, request.tz) > (
                MAX_BUCKETS
            ):
                assert response.status_code == 400, response.text
                assert response.json()["error"]["code"] == "invalid_body"
                self.count("query 400")
                return
            assert response.status_code == 200, (body, response.text)
            page = response.json()
            pages += 1
            series = page["data"]["series"]
            assert sum(len(s["points"]) for s in series) <= request.limit, body
            for number, one in enumerate(series):
                key = (one["deviceId"], one["field"], one.get("agg"))
                if number == 0 and merged and merged[-1]["key"] == key:
                    merged[-1]["points"].extend(one["points"])
                else:
                    merged.append({"key": key, "points": list(one["points"])})
        order = sorted(set(request.devices), key=lambda d: self.device_ids[d])
        want_keys = [
            (self.device_ids[d], name, agg)
            for d in order
            for name in request.fields
            for agg in request.aggs.get(name) or NO_AGG
        ]
        assert [m["key"] for m in merged] == want_keys, (body, merged)
        compared = 0
        for entry, (device_id, name, agg) in zip(merged, want_keys, strict=True):
            device_num = self.device_nums[self.device_ids.index(device_id)]
            if resolution is None:
                want = await self.expected_raw(device_num, name, start, end, None)
                got = [(p["time"], p["value"], p["siteId"]) for p in entry["points"]]
                assert got == want, (body, device_id, name, got, want)
                compared += len(got)
            else:
                expected = await self.expected_buckets(
                    device_num, name, start, end, None, request.resolution, agg, request.tz
                )
                compare_buckets(entry["points"], expected, agg, body)
                compared += len(expected)
        self.count("query", compared)
        self.stats["query pages"] = self.stats.get("query pages", 0) + pages


def compare_buckets(points: list[Any], expected: list[Any], agg: str | None, context: Any) -> None:
    """The route's buckets against time_bucket's rows, in the same order: equal, avg and
    sum within 1e-9 relative (of the readings' magnitude)."""
    got_times = [p["time"] for p in points]
    assert got_times == [iso(r["bucket"]) for r in expected], (context, points, expected)
    for point, row in zip(points, expected, strict=True):
        want_value = row["value"]
        if isinstance(want_value, float) and agg in (None, "avg", "sum"):
            scale_value = float(row["scale"]) * (row["n"] if agg == "sum" else 1)
            tolerance = 1e-9 * max(abs(want_value), scale_value, 1e-300)
            assert math.isclose(point["value"], want_value, rel_tol=0, abs_tol=tolerance), (
                context,
                point,
                want_value,
            )
        else:
            assert point["value"] == want_value, (context, point, want_value)
            assert type(point["value"]) is type(want_value), (context, point, want_value)


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def str_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


def build_world() -> tuple[Any, dict[str, Any]]:
    """A partner with long retention and multi-site, three devices (one at a site), two
    fields, two sites."""

    w = World()
    tier = {"perMinute": 10_000_000, "perDay": 100_000_000}
    partner = w.partner(plan={"retentionDays": 3650}, features={"multiSite": True}, tier=tier)
    sub = w.sub_account(partner)
    fields = [w.field("x"), w.field("s", dataType="string")]
    profile = w.profile(partner, fields=fields)
    sites = [w.site(sub), w.site(sub)]
    devices = [
        w.device(sub, profile, site=sites[0]),
        w.device(sub, profile),
        w.device(sub, profile),
    ]
    other = w.partner(features={"multiSite": True}, tier=tier)
    foreign_site = w.site(w.sub_account(other))
    key = w.key(sub, scopes=["telemetry:read"])
    return w, {
        "key": key,
        "devices": devices,
        "fields": fields,
        "sites": sites,
        "foreign_site": foreign_site,
    }


async def copy_plainly(pool: Any, prefix: str, rows: list[tuple[bool, tuple[Any, ...]]]) -> None:
    """Readings once more, one row each, in tables the service never touches: `rows` are
    (numeric, (device_num, field_num, time, value, site_num)), the numeric ones into
    `<prefix>_num`, the others into `<prefix>_other`, each emptied first."""
    async with pool.acquire() as connection, connection.transaction():
        for kind in ("num", "other"):
            await connection.execute(
                f"CREATE TABLE IF NOT EXISTS {prefix}_{kind}"
                f" (LIKE readings_{kind} INCLUDING DEFAULTS)"
            )
            await connection.execute(f"TRUNCATE {prefix}_{kind}")
            await connection.executemany(
                f"INSERT INTO {prefix}_{kind}"
                " (device_num, field_num, time, value, site_num) VALUES ($1, $2, $3, $4, $5)",
                [row for numeric, row in rows if numeric == (kind == "num")],
            )


async def query_pages(client: Any, key: str, body: dict[str, Any]) -> AsyncIterator[Any]:
    """Each answer of `POST /query` for `body`, following `nextCursor` from one 200 page to
    the next until the last; more than 10,000 pages fail the case."""
    cursor: str | None = None
    for _ in range(10_000):
        response = await client.post(
            "/api/v1/query",
            json={**body, **({"cursor": cursor} if cursor else {})},
            headers={"Authorization": f"Bearer {key}"},
        )
        yield response
        if response.status_code != 200:
            return
        cursor = response.json()["nextCursor"]
        if cursor is None:
            return
    raise AssertionError(("more than 10,000 pages", body))


async def check_case(oracle: Any, case: tuple[Dataset, list[Any]]) -> None:
    """One example of an oracle (`Oracle` here, `ChartOracle` in history_oracle_chart.py,
    both in the tests and in the benchmarks' long mode): load its dataset, then check each
    of its requests."""
    dataset, batch = case
    await oracle.load(dataset)
    for request in batch:
        await oracle.check(request)


def oracle_settings(datasets: int) -> settings:
    """The Hypothesis settings both oracle tests (history and chart) run with: `datasets`
    examples, no deadline (one example loads a dataset and checks many requests), no
    saved example database, and the oracle fixture and slow examples allowed."""
    return settings(
        max_examples=datasets,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


async def entity_num(pool: Any, table: str, entity_id: str) -> int:
    """The internal number (`num`) of the row of `table` with this public id."""
    value: int = await pool.fetchval(f"SELECT num FROM {table} WHERE id = $1", entity_id)
    return value


async def make_oracle(client: Any, pool: Any) -> Oracle:
    world, parts = build_world()
    await load(pool, world)
    num = partial(entity_num, pool)

    return Oracle(
        client=client,
        pool=pool,
        key=parts["key"],
        device_ids=[d["id"] for d in parts["devices"]],
        device_euis=[d["devEui"] for d in parts["devices"]],
        device_nums=[await num("devices", d["id"]) for d in parts["devices"]],
        field_nums={
            "x": await num("profile_fields", parts["fields"][0]["id"]),
            "s": await num("profile_fields", parts["fields"][1]["id"]),
        },
        site_ids=[s["id"] for s in parts["sites"]],
        site_nums=[await num("sites", s["id"]) for s in parts["sites"]],
        foreign_site_id=parts["foreign_site"]["id"],
        base=base_time(),
    )
