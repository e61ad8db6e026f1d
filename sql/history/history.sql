-- History of one device field (api-spec 4.3, decisions D12).
--
-- A reading is a raw row or inside a packed week (schema/definitions/035-packing.sql);
-- readings_<kind>_in reads both as one set. Bucketed queries read the packed readings of
-- [from, to) in five parts, chosen by app/history/planner.py so that each partial nests in
-- exactly one result bucket:
--   readings [$3,$6)  hourly [$6,$7)  daily [$7,$8)  hourly [$8,$9)  readings [$9,$4)
-- where hourly and daily are the partials of the packed readings (packed_hours_<kind>_in,
-- rollup_day_<kind>), and every raw row of [$3,$4) (the open week, late readings not
-- packed yet), which the partials do not count. Empty parts have equal bounds. Three
-- sources serve the five parts (readings_<kind>_in skipping [$6,$9), the hourly partials
-- skipping [$7,$8), the daily rollups): each source planned costs ~0.3 ms, as much as the
-- execution of a part. Every part becomes mergeable partials (n, sum, min, max, last) that
-- are re-bucketed with time_bucket and merged once. `last` is the value of the greatest
-- (time, value): ties on time go to the greatest value, the rule the packing job's
-- partials follow, so the answer never depends on arrival order. For numbers it is
-- max(ARRAY[epoch microseconds, value])[2] (exact: epoch microseconds fit a float8
-- mantissa until 2255), a plain C aggregate.
--
-- Only the requested aggregate accumulates (each has a FILTER on $11): a float8 overflow
-- of sum(sum) can then only fail agg=sum or avg, never min, max, count or last; with
-- custom plans $11 is a constant and the other aggregates see no rows.
--
-- Both statements read several series at once ($1 device nums and $2 field nums, parallel
-- arrays): /history passes one, POST /query a batch (app/history/series.py). Each series
-- is numbered by its position (`ord`, from 1) and read by a LATERAL subquery of its own,
-- so a batch of one is /history's read exactly. Rows come by series, then bucket, oldest
-- first. The subquery per series keeps the generic plan reading each series by its
-- indexes as a statement for one series does (the series as a CTE joined to each source
-- took 1.4-2.6 ms for one series in its generic plan, against 0.41 ms, bench S), and the
-- series come from series_list (schema/definitions/036-series.sql), estimated at one
-- row: with an unnest (ten rows estimated) the plan cache kept choosing custom plans,
-- whose planning over every chunk cost ~8 ms a call at bench M. Measured interleaved with
-- the former single-series statement at bench M (box loaded, medians of 70 calls, ms):
-- a year of daily buckets 5.8 against 6.5, 30 days hourly 11.1 against 9.8, 7 days hourly
-- 2.8 against 4.6, a day of PT15M 1.6 against 1.3; 50 series of a year's daily buckets
-- in one statement 173 ms.

-- name: bucketed_num
-- Merged partials of the numeric series ($1 device nums, $2 field nums) per $5-bucket (local to zone $12, or UTC when NULL) over [$3, $4): hourly partials for [$6, $7) and [$8, $9), daily for [$7, $8); $10 site_num or NULL; $11 agg; by series position, then bucket, oldest first.
SELECT s.ord, b.bucket, b.value
  FROM series_list($1::integer[], $2::integer[]) s
 CROSS JOIN LATERAL bucketed_num_series(s.device_num, s.field_num, $3, $4, $5, $6, $7, $8, $9,
                                        $10, $11, $12) b
 ORDER BY 1, 2

-- Local days of avg, sum and count in a zone whose offsets are whole hours
-- (app/history/zones.py): a local day is no UTC day, but it is a UTC day less the hours
-- past its local midnight plus those hours of the day before. So each UTC day's rollup
-- goes whole to the local bucket of its noon (its home), and the packed hours of the day
-- that lie in another local bucket are taken out of the home and put into their own:
-- for Europe/Berlin 1 or 2 hours of each day ($13: the hours of the week, 0-167, that can
-- lie across a local midnight, from the zone's offsets over the range; each is checked
-- against its day's home). Those hours are read by subscript from the week's hourly
-- arrays, not by unnesting the week: `hours` lists the hours present in ascending order,
-- so width_bucket (a binary search in C) gives an hour's position, and a week with gaps
-- is read as a full one. Each array is decompressed once per week (the [:] slice, kept
-- by OFFSET 0): a subscript of the stored column decompresses the whole array each time.
-- Unnesting every hour (168 a week) took 3.7x the UTC read at bench M; this, 2.5x.
-- Taking hours out of a sum is exact only up to rounding relative to the whole day, so a
-- day is read that way only when that rounding is far below the value of any of its
-- readings: all of one sign, with n * greatest |value| <= 1000 * least |value| (a
-- temperature, a humidity, a battery level); other days (signs mixed, zeros, far-apart
-- magnitudes) are read hour by hour, and count (integers) is always exact. The parts
-- outside whole UTC days ([$3, $6), [$6, $7), [$8, $9), [$9, $4), every raw row) are
-- read as in bucketed_num. Every part is keyed by the start of its bucket on the local
-- clock (time_bucket over the wall-clock time); the key becomes the bucket's label once
-- per bucket: time_bucket(w, t, zone) is exactly timezone(zone, time_bucket(w,
-- timezone(zone, t))), and converting each reading and hour both ways cost twice.
-- Buckets whose hours all moved away (n = 0) are not buckets.

-- name: bucketed_num_local_days
-- Merged avg, sum or count ($11) of the numeric series ($1 device nums, $2 field nums) per $5-bucket of whole local days in zone $12 over [$3, $4), as bucketed_num with its segments $6..$9, the days' rollups moved to their local buckets by the packed hours at the hours of the week $13; by series position, then bucket, oldest first.
SELECT s.ord, b.bucket, b.value
  FROM series_list($1::integer[], $2::integer[]) s
 CROSS JOIN LATERAL (
    WITH days AS (
        SELECT d.bucket AS day, d.n, d.sum,
               $11::text = 'count'
               -- One sign without a product (two tiny values multiply to an underflow,
               -- which PostgreSQL raises).
               OR (d.min > 0 OR d.max < 0) AND greatest(abs(d.min), abs(d.max)) < 1e290
                  AND d.n * greatest(abs(d.min), abs(d.max)) <= 1000 * least(abs(d.min), abs(d.max))
                   AS safe
          FROM rollup_day_num d
         WHERE d.device_num = s.device_num AND d.field_num = s.field_num
           AND d.bucket >= $7 AND d.bucket < $8
           AND ($10::integer IS NULL OR d.site_num = $10)),
    unsafe AS (SELECT COALESCE(array_agg(days.day), '{}') AS days FROM days WHERE NOT days.safe),
    parts AS (
        SELECT time_bucket((SELECT $5::text::interval), timezone($12::text, r.time)) AS key,
               1::bigint AS n, r.value AS sum
          FROM readings_num_in(s.device_num, s.field_num, $3, $4, $10, $6, $9) r
        UNION ALL
        SELECT time_bucket((SELECT $5::text::interval), timezone($12::text, h.bucket)), h.n, h.sum
          FROM packed_hours_num_in(s.device_num, s.field_num, $6, $9, $10, $7, $8) h
        UNION ALL
        SELECT time_bucket((SELECT $5::text::interval),
                           timezone($12::text, days.day + interval '12 hours')),
               days.n, days.sum
          FROM days, unsafe x
         -- A day is whole only when every site's rollup of it is safe: the hours of a day
         -- with an unsafe rollup are all read below, whatever their site.
         WHERE NOT days.day = ANY (x.days)
        UNION ALL
        -- The hours across local midnight of the safe days: into their own bucket, out
        -- of their day's home.
        SELECT v.key, v.n, v.sum
          FROM packed_hours_num k
         -- The bounds as hours of the week and the arrays, once per week.
         CROSS JOIN LATERAL (
             SELECT ceil(date_part('epoch', $7 - k.period) / 3600)::integer AS lo,
                    ceil(date_part('epoch', $8 - k.period) / 3600)::integer AS hi,
                    k.hours[:] AS hours, k.n[:] AS n, k.sum[:] AS sum
             OFFSET 0) a
         CROSS JOIN LATERAL unnest($13::smallint[]) AS g (h)
         -- The hour's position, partial, bucket and home in one subquery (each subquery
         -- level is a node rescanned for every hour).
         CROSS JOIN LATERAL (
             SELECT q.day, a.n[q.i]::bigint AS n, a.sum[q.i] AS sum,
                    time_bucket((SELECT $5::text::interval), timezone($12::text, q.t)) AS own,
                    time_bucket((SELECT $5::text::interval),
                                timezone($12::text, q.day + interval '12 hours')) AS home
               FROM (SELECT width_bucket(g.h, a.hours) AS i,
                            k.period + g.h * interval '1 hour' AS t,
                            k.period + (g.h / 24) * interval '1 day' AS day) q
              -- Position 0 (before the first hour present) reads NULL: not there.
              WHERE a.hours[q.i] = g.h
             OFFSET 0) m
         CROSS JOIN LATERAL (VALUES (m.own, m.n, m.sum), (m.home, -m.n, -m.sum)) v (key, n, sum)
         WHERE k.device_num = s.device_num AND k.field_num = s.field_num
           AND k.period > $7::timestamptz - interval '7 days' AND k.period < $8
           AND ($10::integer IS NULL OR k.site_num = $10)
           AND $7 < $8
           AND g.h >= a.lo AND g.h < a.hi
           AND m.own <> m.home
           AND NOT m.day = ANY ((SELECT unsafe.days FROM unsafe)::timestamptz[])
        UNION ALL
        -- Every hour of the other days, into its own bucket.
        SELECT time_bucket((SELECT $5::text::interval), timezone($12::text, c.t)), u.n, u.sum
          FROM unsafe x, packed_hours_num k
         CROSS JOIN LATERAL unnest(k.hours, k.n, k.sum) AS u (h, n, sum)
         CROSS JOIN LATERAL (SELECT k.period + u.h * interval '1 hour' AS t,
                                    k.period + (u.h / 24) * interval '1 day' AS day) c
         WHERE k.device_num = s.device_num AND k.field_num = s.field_num
           AND k.period > $7::timestamptz - interval '7 days' AND k.period < $8
           AND ($10::integer IS NULL OR k.site_num = $10)
           AND cardinality(x.days) > 0
           AND c.day = ANY (x.days)
    )
    -- n is summed once for every aggregate (the HAVING needs it), sum only for avg and
    -- sum (its overflow can then fail only those), tested once per statement.
    SELECT timezone($12::text, parts.key) AS bucket,
           CASE $11::text
                WHEN 'avg' THEN float8_avg(ARRAY[
                                    sum(n)::double precision,
                                    sum(sum) FILTER (WHERE (SELECT $11::text <> 'count')), 0])
                WHEN 'sum' THEN sum(sum) FILTER (WHERE (SELECT $11::text <> 'count'))
                ELSE sum(n)::double precision
           END AS value
      FROM parts
     GROUP BY parts.key
    HAVING sum(n) <> 0
 ) b
 ORDER BY 1, 2

-- name: bucketed_other
-- Merged count and last of the string/boolean/date/location series ($1 device nums, $2 field nums) per $5-bucket (zone $12 or UTC) over [$3, $4), with partials as bucketed_num; by series position, then bucket, oldest first.
SELECT s.ord, b.bucket, b.n, b.last_value
  FROM series_list($1::integer[], $2::integer[]) s
 CROSS JOIN LATERAL (
    WITH parts AS (
        SELECT r.time AS t, 1::bigint AS n, r.time AS last_time, r.value AS last_value
          FROM readings_other_in(s.device_num, s.field_num, $3, $4, $10, $6, $9) r
        UNION ALL
        SELECT h.bucket, h.n, h.last_time, h.last_value
          FROM packed_hours_other_in(s.device_num, s.field_num, $6, $9, $10, $7, $8) h
        UNION ALL
        SELECT d.bucket, d.n, d.last_time, d.last_value
          FROM rollup_day_other d
         WHERE d.device_num = s.device_num AND d.field_num = s.field_num
           AND d.bucket >= $7 AND d.bucket < $8
           AND ($10::integer IS NULL OR d.site_num = $10)
    )
    SELECT CASE WHEN $12::text IS NULL THEN time_bucket((SELECT $5::text::interval), t)
                ELSE time_bucket((SELECT $5::text::interval), t, $12::text) END AS bucket,
           sum(n)::bigint AS n,
           (array_agg(last_value ORDER BY last_time DESC, last_value DESC)
                FILTER (WHERE $11::text = 'last'))[1] AS last_value
      FROM parts
     GROUP BY 1
 ) b
 ORDER BY 1, 2

-- A raw answer is one row of arrays (readings_<kind>_newest). Its times go as one JSON array,
-- which msgspec decodes in C straight to datetimes: asyncpg builds a datetime per
-- timestamptz in Python, 0.4 ms for 500 (the pool's sessions run in UTC, so every time
-- reads +00:00). The ids of the answer's few sites come in the same row.

-- name: raw_num
-- The newest $5 numeric readings of a series in [$3, $4), site filter $6 or NULL, newest first (ties: greatest value, then site), as one row: their times (a JSON array), values, site nums (0 = none) and the ids of those sites (a JSON object, num to id); NULLs when none.
SELECT n.* FROM newest_num_series($1, $2, $3, $4, $6, $5) n

-- name: raw_other
-- The newest $5 non-numeric readings of a series in [$3, $4), site filter $6 or NULL, as raw_num; the values one JSON array (one decode, not one per value).
SELECT to_json(n.times)::text AS times, to_json(n.values) AS values, n.sites,
       (SELECT json_object_agg(s.num, s.id) FROM sites s WHERE s.num = ANY (n.sites))::text
           AS site_ids
  FROM readings_other_newest($1, $2, $3, $4, $6, $5) n

-- Raw pages of POST /query: every reading of a series, oldest first, from a key on. The
-- order is the exact reverse of raw_num's (time, then value, then site num), so a page
-- ends between two readings, and the next starts at the last key seen ($5 time, $6 value,
-- $7 site num: the key itself included, since readings may repeat it; the caller skips
-- the ones it already gave). The readings are those of readings_<kind>_in, raw rows and
-- packed weeks as one set: a week packed between two pages gives the same readings.

-- name: raw_page_num
-- Numeric readings of a series ($1 device, $2 field) in [$3, $4) with key (time, value, site) at or after ($5, $6, $7) (every one when $5 is NULL), oldest first, at most $8, as one row of arrays as raw_num.
SELECT to_json(n.times)::text AS times, n.values, n.sites,
       (SELECT json_object_agg(s.num, s.id) FROM sites s WHERE s.num = ANY (n.sites))::text
           AS site_ids
  FROM (SELECT array_agg(a.time) AS times, array_agg(a.value) AS values,
               array_agg(a.site_num) AS sites
          FROM (SELECT r.time, r.value, r.site_num
                  FROM readings_num_in($1, $2, $3, $4) r
                 WHERE $5::timestamptz IS NULL
                    OR (r.time, r.value, r.site_num) >= ($5, $6::double precision, $7::integer)
                 ORDER BY 1, 2, 3
                 LIMIT $8) a) n

-- name: raw_page_other
-- Non-numeric readings of a series ($1 device, $2 field) in [$3, $4) with key at or after ($5, $6, $7) (every one when $5 is NULL), oldest first, at most $8, as raw_page_num; the values one JSON array.
SELECT to_json(n.times)::text AS times, to_json(n.values) AS values, n.sites,
       (SELECT json_object_agg(s.num, s.id) FROM sites s WHERE s.num = ANY (n.sites))::text
           AS site_ids
  FROM (SELECT array_agg(a.time) AS times, array_agg(a.value) AS values,
               array_agg(a.site_num) AS sites
          FROM (SELECT r.time, r.value, r.site_num
                  FROM readings_other_in($1, $2, $3, $4) r
                 WHERE $5::timestamptz IS NULL
                    OR (r.time, r.value, r.site_num) >= ($5, $6::jsonb, $7::integer)
                 ORDER BY 1, 2, 3
                 LIMIT $8) a) n

-- name: device_context
-- The device by id ($3) or DevEUI ($4) in the key's scope ($1 partner, $2 sub-account or NULL; tenant_device, as auth.resolve_device) with its field by identifier ($5) or id ($6), whether multi-site is on for its sub-account, and the site num of $7 in the key's scope with the feature on; no row when there is no such device.
SELECT c.* FROM history_device_context($1, $2::uuid, $3, $4, $5, $6, $7) c

-- One round trip for /history's common reads (app/history/service.py): the device and its
-- field (device_context, without siteId) and, when that is an assigned device's numeric
-- field with a history (not static), its points as the statement for the series alone
-- reads them. The points are read in the same statement only then, so the answer and every
-- error stay what the two statements give; another field takes its second statement.

-- name: device_buckets_num
-- device_context ($1..$6, no site) with the buckets of its series as bucketed_num reads them ($7 from, $8 to, $9 width, $10..$13 segments, $14 agg, $15 zone or NULL; no site), newest first: the bucket starts as a JSON array (decoded by the client straight to datetimes: asyncpg's own decoding of 720 timestamps cost 0.38 ms of CPU, msgspec's 0.06) and the values; NULLs when there are none or the field is not read so.
SELECT c.*, b.buckets, b.values
  FROM history_device_context($1, $2::uuid, $3, $4, $5, $6, NULL) c
  LEFT JOIN LATERAL (
       SELECT to_json(array_agg(x.bucket ORDER BY x.bucket DESC))::text AS buckets,
              array_agg(x.value ORDER BY x.bucket DESC) AS values
         FROM bucketed_num_series(c.num, c.field_num, $7, $8, $9, $10, $11, $12, $13, NULL,
                                  $14, $15) x
        WHERE c.status = 'assigned' AND c.data_type = 'number' AND c.kind <> 'static') b ON true

-- name: device_raw_num
-- device_context ($1..$6, no site) with the newest $9 readings of its series in [$7, $8) as raw_num reads them (no site); NULLs when there are none or the field is not read so.
SELECT c.*, r.times, r.values, r.sites, r.site_ids
  FROM history_device_context($1, $2::uuid, $3, $4, $5, $6, NULL) c
  LEFT JOIN LATERAL (
       SELECT n.*
         FROM newest_num_series(c.num, c.field_num, $7, $8, NULL, $9) n
        WHERE c.status = 'assigned' AND c.data_type = 'number' AND c.kind <> 'static'
       OFFSET 0) r ON true

