"""The checks that packed hours and rollups equal the raw readings they came from, shared
by the packing crash test and the benchmark dataset's test."""

from __future__ import annotations

# The packed readings, one row each.
PACKED = """
SELECT k.device_num, k.field_num, k.site_num, u.time, u.value
  FROM packed_{kind} k
 CROSS JOIN LATERAL unnest(packed_times(k.period, k.offsets, k.steps, k.counts), k.values)
       AS u (time, value)
"""


# Partials that differ from an aggregate of the packed readings per `{width}` bucket (a
# bucket of packed readings without its partials, partials without packed readings, or
# different partials), `{stored}` being the partials one row per bucket. The last value of
# a bucket is that of its newest reading, the greatest value among equal times (the order
# of packed readings).
PARTIAL_MISMATCHES_NUM = f"""
WITH expected AS (
    SELECT device_num, field_num, site_num, time_bucket('{{width}}', time) AS bucket,
           count(*) AS n, sum(value) AS sum, min(value) AS min, max(value) AS max,
           max(time) AS last_time,
           (array_agg(value ORDER BY time DESC, value DESC))[1] AS last_value
      FROM ({PACKED.format(kind="num")}) p GROUP BY 1, 2, 3, 4)
SELECT count(*)
  FROM expected e FULL JOIN {{stored}} r USING (device_num, field_num, site_num, bucket)
 WHERE e.n IS DISTINCT FROM r.n
    OR abs(e.sum - r.sum) > 1e-9 * greatest(1, abs(e.sum))
    OR e.min IS DISTINCT FROM r.min OR e.max IS DISTINCT FROM r.max
    OR e.last_time IS DISTINCT FROM r.last_time
    OR e.last_value IS DISTINCT FROM r.last_value
"""


PARTIAL_MISMATCHES_OTHER = f"""
WITH expected AS (
    SELECT device_num, field_num, site_num, time_bucket('{{width}}', time) AS bucket,
           count(*) AS n, max(time) AS last_time,
           (array_agg(value ORDER BY time DESC, value DESC))[1] AS last_value
      FROM ({PACKED.format(kind="other")}) p GROUP BY 1, 2, 3, 4)
SELECT count(*)
  FROM expected e FULL JOIN {{stored}} r USING (device_num, field_num, site_num, bucket)
 WHERE e.n IS DISTINCT FROM r.n OR e.last_time IS DISTINCT FROM r.last_time
    OR e.last_value IS DISTINCT FROM r.last_value
"""


# The hourly partials, one row per hour (packed_hours_<kind> holds a week's as arrays).
HOURS = """(
    SELECT k.device_num, k.field_num, k.site_num, k.period + u.h * interval '1 hour' AS bucket,
           u.n{selected},
           k.period + u.h * interval '1 hour' + u.lt * interval '1 microsecond' AS last_time,
           u.lv AS last_value
      FROM packed_hours_{kind} k
     CROSS JOIN LATERAL unnest(k.hours, k.n{arrays}, k.last_time, k.last_value)
           AS u (h, n{partials}, lt, lv))"""


# Shared with tests/integration/test_bench_smoke.py, as are the hourly ones.
ROLLUP_MISMATCHES_NUM = PARTIAL_MISMATCHES_NUM.format(width="1 day", stored="rollup_day_num")


ROLLUP_MISMATCHES_OTHER = PARTIAL_MISMATCHES_OTHER.format(width="1 day", stored="rollup_day_other")


HOURS_MISMATCHES_NUM = PARTIAL_MISMATCHES_NUM.format(
    width="1 hour",
    stored=HOURS.format(
        kind="num",
        selected=", u.sum, u.min, u.max",
        arrays=", k.sum, k.min, k.max",
        partials=", sum, min, max",
    ),
)


HOURS_MISMATCHES_OTHER = PARTIAL_MISMATCHES_OTHER.format(
    width="1 hour", stored=HOURS.format(kind="other", selected="", arrays="", partials="")
)


CLOSED_RAW_CHUNKS = """
SELECT count(*) FROM timescaledb_information.chunks
 WHERE hypertable_name IN ('readings_num', 'readings_other') AND range_end <= now()
"""
