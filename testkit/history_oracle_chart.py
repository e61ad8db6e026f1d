"""The history oracle for chart-ready series (analytics.md section 3, issue 26).

The datasets of testkit/history_oracle.py (random readings: late, out of order, equal times,
clustered on hour and day edges and on DST changes; some packed into weeks by the packing
job, some left raw in the same weeks and after them) are loaded for one device whose
number field `x` is a counter (its random values go down as often as up: resets) and whose
string field `s` is a state. Random requests with the new aggregates (increase, twa,
integral, duration), every fill mode and maxPoints go through the real routes (GET
/devices/{id}/history, or POST /query with the same parameters followed page by page in
small pages, its series oldest first), and each answer is compared with the same
computation over a plain copy of the readings:

- the aggregates in SQL over the copy: each reading held until the next (lead over time,
  value), cut into whole UTC minutes, each minute put in its bucket by time_bucket (the
  resolutions here are whole minutes and every zone's offsets and clock changes fall on
  whole minutes, so a minute never straddles two buckets); increase from lag;
- fill by the rules written out here in plain Python over time_bucket's buckets of the
  range (every minute of it bucketed) and the standard aggregates of the copy;
- maxPoints by the straightforward implementations below (exact fractions for LTTB's
  bucket bounds and the minmax slices).

1e-9 relative (of the values' scale), or exact where the contract's result is exact.
tests/integration/test_history_oracle_chart.py runs a few hundred cases; the long mode:
`python -m benchmarks.history_oracle --chart --cases 10000`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from functools import partial
from typing import Any

from hypothesis import strategies as st

from testkit.factories import World, load
from testkit.history_oracle import (
    DAY_US,
    HOUR_US,
    Dataset,
    Reading,
    base_time,
    copy_plainly,
    datasets,
    entity_num,
    iso,
    query_pages,
)

RESOLUTIONS = ["hourly", "daily", "PT15M", "PT7M", "PT90M", "PT6H", "P1D", "P1W", "P1M"]
ZONES = [None, "UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Asia/Kathmandu"]
NEW_AGGS = ["increase", "twa", "integral"]
FILLS = ["none", "null", "previous", "linear", "zero"]
STANDARD_AGGS = ["avg", "min", "max", "sum", "count", "last"]
QUERIES_PER_DATASET = 12
MAX_LENGTH_US = 5 * DAY_US  # the minute-by-minute oracle stays quick
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class ChartRequest:
    kind: str  # "aggregate", "fill" or "downsample"
    field: str  # "x" or "s"
    start_us: int
    length_us: int
    resolution: str
    agg: str
    tz: str | None
    fill: str = "none"
    max_gap: str | None = None
    max_points: int = 0
    method: str = "lttb"
    state: str = ""
    # Asked of POST /query in pages of `limit` points instead of /history.
    via_query: bool = False
    limit: int = 10_000


reach = st.one_of(
    st.just(0),
    st.integers(0, 90).map(lambda m: m * 60_000_000),
    st.tuples(st.integers(0, 72), st.sampled_from([0, 0, 1, -1])).map(
        lambda t: max(0, t[0] * HOUR_US + t[1])
    ),
    st.integers(0, 5).map(lambda d: d * DAY_US),
)


@st.composite
def chart_request(draw: Any, dataset: Dataset) -> ChartRequest:
    anchor = draw(st.sampled_from(dataset.after_deletion))
    before, after = draw(reach), draw(reach)
    length = min(before + after + 1, MAX_LENGTH_US)
    kind = draw(st.sampled_from(["aggregate", "aggregate", "fill", "fill", "downsample"]))
    common = {
        "start_us": anchor.offset_us - before,
        "length_us": length,
        "resolution": draw(st.sampled_from(RESOLUTIONS)),
        "tz": draw(st.sampled_from(ZONES)),
        "via_query": draw(st.sampled_from([False, False, True])),
        "limit": draw(st.sampled_from([1, 2, 3, 7, 10_000])),
    }
    if kind == "downsample":
        return ChartRequest(
            kind, "x", agg="", **common,
            max_points=draw(st.sampled_from([2, 3, 4, 5, 7, 10, 25])),
            method=draw(st.sampled_from(["lttb", "minmax"])),
        )  # fmt: skip
    if anchor.field == "s":
        agg = "duration" if kind == "aggregate" else draw(st.sampled_from(["count", "duration"]))
        state = draw(st.sampled_from(["a", "b", "zz"]))
        fill = draw(st.sampled_from(FILLS)) if kind == "fill" else "none"
        if fill == "linear" and agg != "count" and agg != "duration":
            fill = "null"
        if fill == "zero" and agg != "count":
            fill = "null"
        return ChartRequest(kind, "s", agg=agg, fill=fill, state=state, **common)
    if kind == "aggregate":
        return ChartRequest(kind, "x", agg=draw(st.sampled_from(NEW_AGGS)), **common)
    agg = draw(st.sampled_from([*STANDARD_AGGS, *NEW_AGGS]))
    fill = draw(st.sampled_from(FILLS[1:]))
    if fill == "zero" and agg not in ("count", "sum"):
        fill = "null"
    max_gap = (
        draw(st.sampled_from([None, None, "PT1H", "PT3H", "P1D"])) if fill == "previous" else None
    )
    return ChartRequest(kind, "x", agg=agg, fill=fill, max_gap=max_gap, **common)


def chart_batch(dataset: Dataset) -> st.SearchStrategy[list[ChartRequest]]:
    return st.lists(
        chart_request(dataset), min_size=QUERIES_PER_DATASET, max_size=QUERIES_PER_DATASET
    )


chart_cases = datasets.flatmap(lambda d: st.tuples(st.just(d), chart_batch(d)))


# The straightforward implementations of section 3's downsampling ----------------------------


def lttb_reference(times: list[float], values: list[float], threshold: int) -> list[int]:
    """Steinarsson's LTTB from the contract's text, bucket bounds with exact fractions."""
    n = len(times)
    if n <= threshold:
        return list(range(n))
    if threshold == 2:
        return [0, n - 1]
    every = Fraction(n - 2, threshold - 2)
    kept, a = [0], 0
    for i in range(threshold - 2):
        start, stop = math.floor(i * every) + 1, math.floor((i + 1) * every) + 1
        next_start, next_stop = stop, min(math.floor((i + 2) * every) + 1, n)
        if i == threshold - 3:
            next_start, next_stop = n - 1, n
        count = next_stop - next_start
        avg_x = sum(times[next_start:next_stop]) / count
        avg_y = sum(values[next_start:next_stop]) / count
        best, best_area = start, -1.0
        for j in range(start, stop):
            area = abs((times[a] - avg_x) * (values[j] - values[a])
                       - (times[a] - times[j]) * (avg_y - values[a])) / 2  # fmt: skip
            if area > best_area:
                best, best_area = j, area
        kept.append(best)
        a = best
    kept.append(n - 1)
    return kept


def minmax_reference(times: list[int], values: list[float], lo: int, hi: int, m: int) -> list[int]:
    """Section 3's minmax: max_points // 2 equal slices of [lo, hi), exact bounds."""
    if len(times) <= m:
        return list(range(len(times)))
    slices = m // 2
    width = Fraction(hi - lo, slices)
    kept: list[int] = []
    for i in range(slices):
        top = lo + (i + 1) * width if i < slices - 1 else hi
        inside = [j for j, t in enumerate(times) if lo + i * width <= t < top]
        if inside:
            low = min(inside, key=lambda j: (values[j], j))
            high = min(inside, key=lambda j: (-values[j], j))
            kept.extend(sorted({low, high}))
    return kept


# The oracle ---------------------------------------------------------------------------------


@dataclass
class ChartOracle:
    client: Any
    pool: Any
    key: str
    device_id: str
    device_num: int
    field_nums: dict[str, int]
    base: datetime
    stats: dict[str, int] = field(default_factory=dict)

    def count(self, what: str, non_empty: bool) -> None:
        self.stats[what] = self.stats.get(what, 0) + 1
        self.stats["cases"] = self.stats.get("cases", 0) + 1
        if non_empty:
            self.stats["non-empty"] = self.stats.get("non-empty", 0) + 1

    def non_empty_share(self) -> float:
        return self.stats.get("non-empty", 0) / max(1, self.stats.get("cases", 0))

    async def load(self, dataset: Dataset) -> None:
        """The dataset's readings (all at no site): the packed ones, the packing job, then
        the rest, raw in packed weeks and after them; and the plain copy."""
        await self.pool.execute("SELECT delete_device_telemetry($1)", self.device_num)
        batch = dataset.after_deletion
        for packed in (True, False):
            for reading in batch:
                if reading.packed != packed:
                    continue
                numeric = reading.field == "x"
                await self.pool.execute(
                    "SELECT record_readings($1, 0, $2, $3, $4, $5, $6)",
                    self.device_num,
                    self._time(reading),
                    [self.field_nums["x"]] if numeric else [],
                    [reading.value] if numeric else [],
                    [] if numeric else [self.field_nums["s"]],
                    [] if numeric else [reading.value],
                )
            if packed:
                await self.pool.execute("SELECT pack_closed_chunks(interval '0')")
        rows = [
            (r.field == "x", (self.device_num, self.field_nums[r.field], self._time(r), r.value, 0))
            for r in batch
        ]
        await copy_plainly(self.pool, "chart_oracle", rows)

    def _time(self, reading: Reading) -> datetime:
        return self.base + timedelta(microseconds=reading.offset_us)

    async def check(self, request: ChartRequest) -> None:
        start = self.base + timedelta(microseconds=request.start_us)
        end = start + timedelta(microseconds=request.length_us)
        params: dict[str, str] = {"field": request.field, "from": iso(start), "to": iso(end)}
        if request.kind == "downsample":
            params |= {"maxPoints": str(request.max_points), "downsample": request.method}
        else:
            params |= {"resolution": request.resolution, "agg": request.agg}
            if request.tz is not None:
                params["tz"] = request.tz
            if request.agg == "duration":
                params["state"] = request.state
            if request.fill != "none":
                params["fill"] = request.fill
            if request.max_gap is not None:
                params["fillMaxGap"] = request.max_gap
        if request.via_query:
            data = await self.ask_query(request, params)
        else:
            response = await self.client.get(
                f"/api/v1/devices/{self.device_id}/history",
                params=params,
                headers={"Authorization": f"Bearer {self.key}"},
            )
            assert response.status_code == 200, (params, response.text)
            data = response.json()["data"]
        if request.kind == "downsample":
            await self._check_downsample(request, start, end, data, params)
            return
        want = await self.buckets(request, start, end)
        if request.fill != "none":
            want = await self.filled(request, start, end, want)
        got = {p["time"]: p["value"] for p in data["points"]}
        assert list(got) == sorted(got, reverse=True), params
        assert sorted(got) == sorted(want), (params, got, want)
        for time, (value, scale) in want.items():
            assert_close(
                got[time], value, scale, (params, time, got[time], value, data, self._newest)
            )
        if request.fill != "none":
            filled = {p["time"]: p["filled"] for p in data["points"]}
            assert filled == {t: t not in self._non_empty for t in want}, (params, filled)
        self.count(request.kind, bool(want))

    async def ask_query(self, request: ChartRequest, params: dict[str, str]) -> dict[str, Any]:
        """The same parameters as one POST /query, every page followed: its one series as
        /history shows it (newest first, with `downsampled`), after the checks of paging
        (pages within the limit, the series continued, `downsampled` on each page)."""
        body: dict[str, Any] = {
            "devices": {"ids": [self.device_id]},
            "fields": [request.field],
            "from": params["from"],
            "to": params["to"],
            "limit": request.limit,
        }
        if request.kind == "downsample":
            body |= {"maxPoints": request.max_points, "downsample": request.method}
        else:
            agg = request.agg + (f":{request.state}" if request.agg == "duration" else "")
            body |= {"resolution": request.resolution, "agg": agg}
            body |= {k: params[k] for k in ("tz", "fill", "fillMaxGap") if k in params}
        points: list[Any] = []
        reduced: list[Any] = []
        pages = 0
        async for response in query_pages(self.client, self.key, body):
            assert response.status_code == 200, (body, response.text)
            page = response.json()
            pages += 1
            series = page["data"]["series"]
            assert len(series) <= 1, body
            for one in series:
                assert (one["field"], one.get("agg")) == (request.field, body.get("agg")), body
                assert len(one["points"]) <= request.limit, body
                points.extend(one["points"])
                reduced.append(one.get("downsampled"))
        # A reduced series carries the same `downsampled` on every page that holds it.
        assert len(set(map(str, reduced))) <= 1, (body, reduced)
        self.stats["query"] = self.stats.get("query", 0) + 1
        self.stats["query pages"] = self.stats.get("query pages", 0) + pages
        data: dict[str, Any] = {"points": list(reversed(points))}
        if reduced and reduced[0] is not None:
            data["downsampled"] = reduced[0]
        return data

    async def _check_downsample(
        self, request: ChartRequest, start: datetime, end: datetime, data: Any, params: Any
    ) -> None:
        rows = await self.pool.fetch(
            "SELECT time, value FROM chart_oracle_num WHERE device_num = $1 AND field_num = $2"
            " AND time >= $3 AND time < $4 ORDER BY time, value",
            self.device_num, self.field_nums["x"], start, end,
        )  # fmt: skip
        micros = [(r["time"] - EPOCH) // timedelta(microseconds=1) for r in rows]
        values = [r["value"] for r in rows]
        if request.method == "lttb":
            kept = lttb_reference([t / 1e6 for t in micros], values, request.max_points)
        else:
            lo = (start - EPOCH) // timedelta(microseconds=1)
            hi = (end - EPOCH) // timedelta(microseconds=1)
            kept = minmax_reference(micros, values, lo, hi, request.max_points)
        want = [(iso(rows[i]["time"]), values[i]) for i in reversed(kept)]
        assert [(p["time"], p["value"]) for p in data["points"]] == want, (params, data, want)
        if len(kept) < len(rows):
            assert data["downsampled"] == {
                "method": request.method, "readings": len(rows), "points": len(kept)
            }, params  # fmt: skip
        else:
            assert "downsampled" not in data, params
        self.count("downsample", bool(rows))

    async def buckets(
        self, request: ChartRequest, start: datetime, end: datetime
    ) -> dict[str, tuple[Any, float]]:
        """The non-empty buckets: (value, scale of its rounding) by bucket time."""
        table = "chart_oracle_num" if request.field == "x" else "chart_oracle_other"
        bucket = (
            "CASE WHEN $6::text IS NULL THEN time_bucket($5::text::interval, {t})"
            " ELSE time_bucket($5::text::interval, {t}, $6::text) END"
        )
        args = [self.device_num, self.field_nums[request.field], start, end, _width(request)]
        args.append(request.tz)
        if request.agg in STANDARD_AGGS:
            expression = {
                "avg": "avg(value)", "min": "min(value)", "max": "max(value)",
                "sum": "sum(value)", "count": "count(*)::float8",
                "last": "(array_agg(value ORDER BY time DESC, value DESC))[1]",
            }[request.agg]  # fmt: skip
            rounding = "avg(abs(value)) * count(*)" if request.field == "x" else "0"
            rows = await self.pool.fetch(
                f"""SELECT {bucket.format(t="time")} AS bucket, {expression} AS value,
                           {rounding} AS scale, max(time) AS newest
                      FROM {table}
                     WHERE device_num = $1 AND field_num = $2 AND time >= $3 AND time < $4
                     GROUP BY 1""",
                *args,
            )
        elif request.agg == "increase":
            rows = await self.pool.fetch(
                f"""WITH d AS (
                        SELECT time, value,
                               lag(value) OVER (ORDER BY time, value) AS previous
                          FROM {table} WHERE device_num = $1 AND field_num = $2 AND time < $4),
                    g AS (
                        SELECT time, CASE WHEN previous IS NULL THEN 0
                                          WHEN value < previous THEN value
                                          ELSE value - previous END AS growth
                          FROM d WHERE time >= $3)
                    SELECT {bucket.format(t="time")} AS bucket, sum(growth) AS value,
                           sum(abs(growth)) AS scale, max(time) AS newest
                      FROM g GROUP BY 1""",
                *args,
            )
        else:
            held = (
                "(CASE WHEN value = to_jsonb($7::text) THEN 1.0::float8 ELSE 0.0::float8 END)"
                if request.agg == "duration"
                else "value"
            )
            if request.agg == "duration":
                args.append(request.state)
            rows = await self.pool.fetch(
                f"""WITH steps AS (
                        SELECT time AS t0, lead(time) OVER (ORDER BY time, value) AS t1,
                               {held} AS v
                          FROM {table} WHERE device_num = $1 AND field_num = $2 AND time < $4),
                    spans AS (
                        SELECT greatest(t0, $3) AS a, least(COALESCE(t1, $4), $4) AS b, v
                          FROM steps WHERE COALESCE(t1, $4) > $3),
                    minutes AS (
                        SELECT greatest(a, m) AS lo, least(b, m + interval '1 minute') AS hi,
                               m, v
                          FROM spans,
                               generate_series(date_trunc('minute', a), b, interval '1 minute') m
                         WHERE b > a)
                    SELECT {bucket.format(t="m")} AS bucket, v,
                           sum(date_part('epoch', hi - lo)) AS seconds
                      FROM minutes WHERE hi > lo GROUP BY 1, 2""",
                *args,
            )
            # Value times seconds in Python: PostgreSQL refuses a float8 product that
            # underflows (a subnormal value held for a microsecond).
            sums: dict[str, list[float]] = {}
            for row in rows:
                covered, total, scale = sums.setdefault(iso(row["bucket"]), [0.0, 0.0, 0.0])
                seconds, value = float(row["seconds"]), float(row["v"])
                sums[iso(row["bucket"])] = [
                    covered + seconds,
                    total + value * seconds,
                    scale + abs(value) * seconds,
                ]
            out: dict[str, tuple[Any, float]] = {}
            for label, (covered, total, scale) in sums.items():
                if request.agg == "twa":
                    out[label] = (total / covered, scale / covered)
                elif request.agg == "integral":
                    out[label] = (total / 3600, scale / 3600)
                else:
                    out[label] = (total, covered)
            self._newest = {}
            self._non_empty = set(out)
            return out
        self._newest = {iso(r["bucket"]): r["newest"] for r in rows}
        self._non_empty = {iso(r["bucket"]) for r in rows}
        return {iso(r["bucket"]): (r["value"], float(r["scale"])) for r in rows}

    async def filled(
        self,
        request: ChartRequest,
        start: datetime,
        end: datetime,
        known: dict[str, tuple[Any, float]],
    ) -> dict[str, tuple[Any, float]]:
        """Every bucket of the range, by section 3's fill rules written out plainly."""
        bucket = "time_bucket($3::text::interval, m" + (", $4::text)" if request.tz else ")")
        rows = await self.pool.fetch(
            f"""SELECT DISTINCT {bucket} AS bucket
                  FROM (SELECT generate_series($1::timestamptz,
                                               $2::timestamptz - interval '1 microsecond',
                                               interval '1 minute') AS m
                        UNION ALL SELECT $2::timestamptz - interval '1 microsecond') s
                 ORDER BY 1""",
            start, end, _width(request), *([request.tz] if request.tz else []),
        )  # fmt: skip
        labels = [iso(r["bucket"]) for r in rows]
        out: dict[str, tuple[Any, float]] = {}
        if request.fill == "linear":
            anchors = [t for t in labels if t in known and known[t][0] is not None]
            for label in labels:
                if label in known:
                    out[label] = known[label]
                    continue
                left = [t for t in anchors if t < label]
                right = [t for t in anchors if t > label]
                if not left or not right:
                    out[label] = (None, 0.0)
                    continue
                a, b = _parse(left[-1]), _parse(right[0])
                va, vb = known[left[-1]][0], known[right[0]][0]
                ratio = (_parse(label) - a) / (b - a)
                out[label] = (va + (vb - va) * ratio, max(abs(va), abs(vb)))
            return out
        carried: tuple[Any, float] | None = None
        carried_time: datetime | None = None
        if request.fill == "previous":
            table = "chart_oracle_num" if request.field == "x" else "chart_oracle_other"
            row = await self.pool.fetchrow(
                f"SELECT time, value FROM {table} WHERE device_num = $1 AND field_num = $2"
                " AND time < $3 ORDER BY time DESC, value DESC LIMIT 1",
                self.device_num, self.field_nums[request.field], start,
            )  # fmt: skip
            if row is not None and request.agg not in ("twa", "integral", "duration"):
                value = {"count": 1.0, "increase": 0.0}.get(request.agg, row["value"])
                carried, carried_time = (
                    (value, abs(value) if isinstance(value, float) else 0.0),
                    row["time"],
                )
        gap = _duration(request.max_gap) if request.max_gap else None
        for label in labels:
            if label in known:
                out[label] = known[label]
                carried, carried_time = known[label], self._newest.get(label)
            elif request.fill == "null":
                out[label] = (None, 0.0)
            elif request.fill == "zero":
                out[label] = (0.0, 0.0)
            elif carried is None or (
                gap is not None and carried_time is not None and _parse(label) > carried_time + gap
            ):
                out[label] = (None, 0.0)
            else:
                out[label] = carried
        return out


def _width(request: ChartRequest) -> str:
    return {"hourly": "1 hour", "daily": "1 day", "PT15M": "15 minutes", "PT7M": "7 minutes",
            "PT90M": "90 minutes", "PT6H": "6 hours", "P1D": "1 day", "P1W": "7 days",
            "P1M": "1 month"}[request.resolution]  # fmt: skip


def _duration(text: str) -> timedelta:
    return {"PT1H": timedelta(hours=1), "PT3H": timedelta(hours=3), "P1D": timedelta(days=1)}[text]


def _parse(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def assert_close(got: Any, want: Any, scale: float, context: Any) -> None:
    if want is None or got is None or isinstance(want, str):
        assert got == want, context
        return
    # As the history oracle: relative to the values' scale, never below 1e-309 absolute
    # (subnormal values carry too few bits for a relative bound).
    tolerance = 1e-9 * max(abs(want), scale, 1e-300)
    assert math.isclose(got, want, rel_tol=0, abs_tol=tolerance), context


async def make_chart_oracle(client: Any, pool: Any) -> ChartOracle:
    w = World()
    tier = {"perMinute": 10_000_000, "perDay": 100_000_000}
    partner = w.partner(plan={"retentionDays": 3650}, tier=tier)
    sub = w.sub_account(partner)
    fields = [w.field("x", measurement="counter"), w.field("s", dataType="string")]
    device = w.device(sub, w.profile(partner, fields=fields))
    key = w.key(sub, scopes=["telemetry:read"])
    await load(pool, w)
    num = partial(entity_num, pool)

    return ChartOracle(
        client=client,
        pool=pool,
        key=key,
        device_id=device["id"],
        device_num=await num("devices", device["id"]),
        field_nums={
            "x": await num("profile_fields", fields[0]["id"]),
            "s": await num("profile_fields", fields[1]["id"]),
        },
        base=base_time(),
    )
