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

-- The readings of a range with the last reading before it, in one statement (the
-- aggregates weighing readings by time need both): times (epoch microseconds) and values
-- of [$3, $4) oldest first, at most $6, and the newest reading in [$7 retention cutoff,
-- $3) as before_time and before_value; site $5 or NULL. No sites: the aggregates do not
-- show them.

-- name: span_num
WITH r AS (
    SELECT x.time, x.value FROM readings_num_in($1, $2, $3, $4, $5) x
     ORDER BY x.time, x.value, x.site_num
     LIMIT $6),
b AS (SELECT n.times[1] AS t, n.values[1] AS v FROM readings_num_newest($1, $2, $7, $3, $5, 1) n)
SELECT array_agg(round(date_part('epoch', r.time) * 1000000)::bigint) AS times,
       array_agg(r.value) AS values,
       (SELECT round(date_part('epoch', b.t) * 1000000)::bigint FROM b) AS before_time,
       (SELECT b.v FROM b) AS before_value
  FROM r

-- name: span_other
WITH r AS (
    SELECT x.time, x.value FROM readings_other_in($1, $2, $3, $4, $5) x
     ORDER BY x.time, x.value, x.site_num
     LIMIT $6),
b AS (SELECT n.times[1] AS t, n.values[1] AS v FROM readings_other_newest($1, $2, $7, $3, $5, 1) n)
SELECT array_agg(round(date_part('epoch', r.time) * 1000000)::bigint) AS times,
       to_json(array_agg(r.value))::text AS values,
       (SELECT round(date_part('epoch', b.t) * 1000000)::bigint FROM b) AS before_time,
       (SELECT b.v FROM b) AS before_value
  FROM r
