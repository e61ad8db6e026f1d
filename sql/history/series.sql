-- Chart-ready series (analytics.md section 3): what fill, downsampling and the
-- time-weighted and counter aggregates read beside history.sql's buckets.

-- name: last_before_num
-- The newest numeric reading of a series ($1 device, $2 field) in [$3 retention cutoff, $4 from), site $5 or NULL: its time in epoch microseconds and its value; no row when none.
SELECT (extract(epoch FROM n.times[1]) * 1000000)::bigint AS time_us, n.values[1] AS value
  FROM readings_num_newest($1, $2, $3, $4, $5, 1) n
 WHERE n.times IS NOT NULL

-- name: last_before_other
-- The newest non-numeric reading of a series in [$3, $4), site $5 or NULL, as last_before_num.
SELECT (extract(epoch FROM n.times[1]) * 1000000)::bigint AS time_us, n.values[1] AS value
  FROM readings_other_newest($1, $2, $3, $4, $5, 1) n
 WHERE n.times IS NOT NULL

-- name: bucket_newest_num
-- The time (epoch microseconds) of the newest numeric reading of each $5-bucket (zone $6 or UTC) of a series ($1 device, $2 field) in [$3, $4), site $7 or NULL: raw rows and packed readings one by one, packed hours from their partials ($8, $9: the whole hours of the range).
WITH parts AS (
    SELECT r.time AS t, r.time AS last_time
      FROM readings_num_in($1, $2, $3, $4, $7, $8, $9) r
    UNION ALL
    SELECT h.bucket, h.last_time
      FROM packed_hours_num_in($1, $2, $8, $9, $7, $9, $9) h
)
SELECT (extract(epoch FROM
            CASE WHEN $6::text IS NULL THEN time_bucket((SELECT $5::text::interval), t)
                 ELSE time_bucket((SELECT $5::text::interval), t, $6::text) END)
        * 1000000)::bigint AS bucket,
       (extract(epoch FROM max(last_time)) * 1000000)::bigint AS newest
  FROM parts
 GROUP BY 1

-- name: bucket_newest_other
-- As bucket_newest_num for a non-numeric series.
WITH parts AS (
    SELECT r.time AS t, r.time AS last_time
      FROM readings_other_in($1, $2, $3, $4, $7, $8, $9) r
    UNION ALL
    SELECT h.bucket, h.last_time
      FROM packed_hours_other_in($1, $2, $8, $9, $7, $9, $9) h
)
SELECT (extract(epoch FROM
            CASE WHEN $6::text IS NULL THEN time_bucket((SELECT $5::text::interval), t)
                 ELSE time_bucket((SELECT $5::text::interval), t, $6::text) END)
        * 1000000)::bigint AS bucket,
       (extract(epoch FROM max(last_time)) * 1000000)::bigint AS newest
  FROM parts
 GROUP BY 1

-- The parts of a range for increase, twa, integral (schema/180-composable-partials.sql)
-- and duration (181-state-partials.sql), in one statement: the readings of [$3, $4)
-- outside [$8, $11) and every raw row of the range, oldest first, at most $6 (times in
-- epoch microseconds, values); the newest reading in [$7 retention cutoff, $3) as
-- before_time and before_value; the hourly partials of the packed readings of [$8, $9)
-- and [$10, $11), and the daily rollups of [$9, $10) (app/history/planner.py's
-- segments); site $5 or NULL. For numbers with $12 (increase), an hour carries the last
-- reading before it in its week (h_prev_*; NULL for the week's first hour, which carries
-- the week's first value instead) and whether its week keeps the increase at all
-- (h_counted). Times of partials in epoch microseconds.

-- name: span_parts_num
-- The readings, the reading before, the hourly partials and the daily rollups of a numeric series' range ($1 device, $2 field, [$3, $4), site $5, at most $6 readings, cutoff $7, segments $8..$11; $12: with what increase needs), as one row of arrays.
WITH r AS (
    SELECT x.time, x.value FROM readings_num_in($1, $2, $3, $4, $5, $8, $11) x
     ORDER BY x.time, x.value, x.site_num
     LIMIT $6),
-- The reading before $3. When $3 is on a whole UTC hour, the packed readings before it
-- end with the last reading of the newest packed hour before it (hourly partials keep
-- it), so the newest raw row and that partial answer it; readings_num_newest would unpack
-- the newest packed week to find it (0.26 ms of 0.76 for daily increase over 30 days,
-- bench S). Another $3 reads it so.
b0 AS (
    SELECT x.t, x.v FROM (
        SELECT r.time AS t, r.value AS v
          FROM readings_num r
         WHERE r.device_num = $1 AND r.field_num = $2 AND r.time >= $7 AND r.time < $3
           AND ($5::integer IS NULL OR r.site_num = $5)
           AND time_bucket(interval '1 hour', $3::timestamptz) = $3
         ORDER BY r.time DESC, r.value DESC
         LIMIT 1) x
    UNION ALL
    SELECT y.t, y.v FROM (
        SELECT q.t, q.v
          FROM packed_hours_num k
         CROSS JOIN LATERAL (
             SELECT k.period + u.h * interval '1 hour' + u.lt * interval '1 microsecond' AS t,
                    u.lv AS v
               FROM unnest(k.hours, k.last_time, k.last_value) AS u (h, lt, lv)
              WHERE k.period + (u.h + 1) * interval '1 hour' <= $3
              ORDER BY u.h DESC
              LIMIT 1) q
         WHERE k.device_num = $1 AND k.field_num = $2
           AND k.period > $7::timestamptz - interval '7 days' AND k.period < $3
           AND ($5::integer IS NULL OR k.site_num = $5)
           AND time_bucket(interval '1 hour', $3::timestamptz) = $3
         ORDER BY k.period DESC, q.t DESC, q.v DESC
         LIMIT 1) y
     WHERE y.t >= $7
    UNION ALL
    SELECT n.times[1], n.values[1]
      FROM readings_num_newest($1, $2, $7, $3, $5, 1) n
     WHERE time_bucket(interval '1 hour', $3::timestamptz) <> $3),
b AS (SELECT b0.t, b0.v FROM b0 WHERE b0.t IS NOT NULL ORDER BY b0.t DESC, b0.v DESC LIMIT 1),
h AS (
    SELECT k.site_num, w.start, u.n, u.sum, u.ft, u.lt, u.lv, u.inc, u.area,
           w0.period_us + u.pt AS pt, u.pv,
           k.first_value AS week_first, k.increase IS NOT NULL AS counted
      FROM packed_hours_num k
     CROSS JOIN LATERAL (
         SELECT round(date_part('epoch', k.period) * 1000000)::bigint AS period_us OFFSET 0) w0
     CROSS JOIN LATERAL (
         -- The reading before each hour in its week only for increase ($12): the window
         -- costs a sort of the week's hours, a third of the read for twa over 30 days.
         SELECT x.h, x.n, x.sum, x.ft, x.lt, x.lv, x.inc, x.area,
                lag(x.lt + x.h * 3600000000::bigint) OVER (ORDER BY x.h) AS pt,
                lag(x.lv) OVER (ORDER BY x.h) AS pv
           FROM unnest(k.hours, k.n, k.sum, k.first_time, k.last_time, k.last_value,
                       k.increase, k.integral) AS x (h, n, sum, ft, lt, lv, inc, area)
          WHERE $12::boolean
         UNION ALL
         SELECT x.h, x.n, x.sum, x.ft, x.lt, x.lv, NULL, x.area, NULL, NULL
           FROM unnest(k.hours, k.n, k.sum, k.first_time, k.last_time, k.last_value,
                       k.integral) AS x (h, n, sum, ft, lt, lv, area)
          WHERE NOT $12::boolean) u
     CROSS JOIN LATERAL (SELECT w0.period_us + u.h * 3600000000::bigint AS start) w
     WHERE k.device_num = $1 AND k.field_num = $2
       AND k.period > $8::timestamptz - interval '7 days' AND k.period < $11
       AND ($5::integer IS NULL OR k.site_num = $5)
       AND $8 < $11
       AND (k.period < $9 AND $8 < $9 OR k.period > $10::timestamptz - interval '7 days' AND $10 < $11)
       AND k.period + u.h * interval '1 hour' >= $8 AND k.period + u.h * interval '1 hour' < $11
       AND NOT (k.period + u.h * interval '1 hour' >= $9 AND k.period + u.h * interval '1 hour' < $10)),
d AS (
    SELECT round(date_part('epoch', y.bucket) * 1000000)::bigint AS start, y.site_num,
           round(date_part('epoch', y.first_time) * 1000000)::bigint AS ft, y.first_value,
           round(date_part('epoch', y.last_time) * 1000000)::bigint AS lt, y.last_value,
           y.increase, y.integral
      FROM rollup_day_num y
     WHERE y.device_num = $1 AND y.field_num = $2 AND y.bucket >= $9 AND y.bucket < $10
       AND ($5::integer IS NULL OR y.site_num = $5))
SELECT (SELECT array_agg(round(date_part('epoch', r.time) * 1000000)::bigint) FROM r) AS times,
       (SELECT array_agg(r.value) FROM r) AS values,
       (SELECT round(date_part('epoch', b.t) * 1000000)::bigint FROM b) AS before_time,
       (SELECT b.v FROM b) AS before_value,
       h_start, h_site, h_n, h_sum, h_first, h_last, h_last_value, h_increase, h_integral,
       h_prev_time, h_prev_value, h_week_first, h_counted,
       d_start, d_site, d_first, d_first_value, d_last, d_last_value, d_increase, d_integral
  FROM (SELECT array_agg(h.start) AS h_start, array_agg(h.site_num) AS h_site,
               array_agg(h.n) AS h_n, array_agg(h.sum) AS h_sum,
               array_agg(h.start + h.ft) AS h_first, array_agg(h.start + h.lt) AS h_last,
               array_agg(h.lv) AS h_last_value, array_agg(h.inc) AS h_increase,
               array_agg(h.area) AS h_integral,
               array_agg(h.pt) AS h_prev_time,
               array_agg(h.pv) AS h_prev_value, array_agg(h.week_first) AS h_week_first,
               array_agg(h.counted) AS h_counted
          FROM h) hh,
       (SELECT array_agg(d.start) AS d_start, array_agg(d.site_num) AS d_site,
               array_agg(d.ft) AS d_first, array_agg(d.first_value) AS d_first_value,
               array_agg(d.lt) AS d_last, array_agg(d.last_value) AS d_last_value,
               array_agg(d.increase) AS d_increase, array_agg(d.integral) AS d_integral
          FROM d) dd

-- name: ranges_num
-- Every numeric reading of a series ($1 device, $2 field) in the ranges [$3[i], $4[i]), site $5 or NULL, oldest first (ties: smallest value, then site), as arrays: times (epoch microseconds) and values; NULLs when none. The periods whose partials cannot serve a read (app/history/aggregates.py).
SELECT array_agg(round(date_part('epoch', r.time) * 1000000)::bigint ORDER BY r.time, r.value, r.site_num) AS times,
       array_agg(r.value ORDER BY r.time, r.value, r.site_num) AS values
  FROM unnest($3::timestamptz[], $4::timestamptz[]) AS g (lo, hi)
 CROSS JOIN LATERAL readings_num_in($1, $2, g.lo, g.hi, $5) r

-- name: span_parts_other
-- The readings, the reading before, the hourly partials and the daily rollups of a non-numeric series' range (as span_parts_num, without $12): values, last values and durations as JSON arrays.
WITH r AS (
    SELECT x.time, x.value FROM readings_other_in($1, $2, $3, $4, $5, $8, $11) x
     ORDER BY x.time, x.value::text, x.site_num
     LIMIT $6),
b AS (SELECT n.times[1] AS t, n.values[1] AS v FROM readings_other_newest($1, $2, $7, $3, $5, 1) n),
h AS (
    SELECT k.site_num, w.start, u.ft, u.lt, u.lv, u.durations
      FROM packed_hours_other k
     CROSS JOIN LATERAL (
         SELECT round(date_part('epoch', k.period) * 1000000)::bigint AS period_us OFFSET 0) w0
     CROSS JOIN LATERAL unnest(k.hours, k.first_time, k.last_time, k.last_value, k.durations)
           AS u (h, ft, lt, lv, durations)
     CROSS JOIN LATERAL (SELECT w0.period_us + u.h * 3600000000::bigint AS start) w
     WHERE k.device_num = $1 AND k.field_num = $2
       AND k.period > $8::timestamptz - interval '7 days' AND k.period < $11
       AND ($5::integer IS NULL OR k.site_num = $5)
       AND $8 < $11
       AND (k.period < $9 AND $8 < $9 OR k.period > $10::timestamptz - interval '7 days' AND $10 < $11)
       AND k.period + u.h * interval '1 hour' >= $8 AND k.period + u.h * interval '1 hour' < $11
       AND NOT (k.period + u.h * interval '1 hour' >= $9 AND k.period + u.h * interval '1 hour' < $10)),
d AS (
    SELECT round(date_part('epoch', y.bucket) * 1000000)::bigint AS start, y.site_num,
           round(date_part('epoch', y.first_time) * 1000000)::bigint AS ft,
           round(date_part('epoch', y.last_time) * 1000000)::bigint AS lt, y.last_value,
           y.durations
      FROM rollup_day_other y
     WHERE y.device_num = $1 AND y.field_num = $2 AND y.bucket >= $9 AND y.bucket < $10
       AND ($5::integer IS NULL OR y.site_num = $5))
SELECT (SELECT array_agg(round(date_part('epoch', r.time) * 1000000)::bigint) FROM r) AS times,
       (SELECT to_json(array_agg(r.value))::text FROM r) AS values,
       (SELECT round(date_part('epoch', b.t) * 1000000)::bigint FROM b) AS before_time,
       (SELECT b.v FROM b) AS before_value,
       h_start, h_site, h_first, h_last, h_last_value, h_durations,
       d_start, d_site, d_first, d_last, d_last_value, d_durations
  FROM (SELECT array_agg(h.start) AS h_start, array_agg(h.site_num) AS h_site,
               array_agg(h.start + h.ft) AS h_first, array_agg(h.start + h.lt) AS h_last,
               to_json(array_agg(h.lv))::text AS h_last_value,
               to_json(array_agg(h.durations))::text AS h_durations
          FROM h) hh,
       (SELECT array_agg(d.start) AS d_start, array_agg(d.site_num) AS d_site,
               array_agg(d.ft) AS d_first, array_agg(d.lt) AS d_last,
               to_json(array_agg(d.last_value))::text AS d_last_value,
               to_json(array_agg(d.durations))::text AS d_durations
          FROM d) dd

-- name: ranges_other
-- Every non-numeric reading of a series in the ranges [$3[i], $4[i]), site $5 or NULL, as ranges_num; the values one JSON array.
SELECT array_agg(round(date_part('epoch', r.time) * 1000000)::bigint ORDER BY r.time, r.value::text, r.site_num) AS times,
       to_json(array_agg(r.value ORDER BY r.time, r.value::text, r.site_num))::text AS values
  FROM unnest($3::timestamptz[], $4::timestamptz[]) AS g (lo, hi)
 CROSS JOIN LATERAL readings_other_in($1, $2, g.lo, g.hi, $5) r
