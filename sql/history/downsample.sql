-- maxPoints (analytics.md section 3, app/history/downsample.py): every numeric reading of a
-- range, read without unpacking the packed weeks in SQL. A year of readings unpacked by
-- readings_num_in and sorted costs ~20 ms of database time; the packed rows as they are
-- stored cost a tenth of that, and the service expands their runs of times with numpy.

-- name: downsample_parts_num
-- The numeric readings of a series ($1 device, $2 field) in [$3, $4), site $5 or NULL. First row (always one): the raw readings, at most $6, as arrays (times in epoch microseconds, values, site nums; NULLs when none). Then the packed weeks that overlap the range, a row each, by period then site, until they hold more than $6 readings: period in epoch microseconds, the runs of times (offsets, steps, counts), values and site num. The caller keeps the readings inside the range and counts them against its bound.
SELECT NULL::bigint AS period, NULL::bigint[] AS offsets, NULL::bigint[] AS steps,
       NULL::integer[] AS counts, array_agg(r.t) AS times, array_agg(r.value) AS values,
       array_agg(r.site_num) AS sites, NULL::integer AS site_num
  FROM (SELECT round(date_part('epoch', x.time) * 1000000)::bigint AS t, x.value, x.site_num
          FROM readings_num x
         WHERE x.device_num = $1 AND x.field_num = $2 AND x.time >= $3 AND x.time < $4
           AND ($5::integer IS NULL OR x.site_num = $5)
         LIMIT $6) r
UNION ALL
SELECT round(date_part('epoch', k.period) * 1000000)::bigint, k.offsets, k.steps, k.counts,
       NULL, k.values, NULL, k.site_num
  FROM (SELECT p.period, p.offsets, p.steps, p.counts, p.values, p.site_num, p.n,
               sum(p.n) OVER (ORDER BY p.period, p.site_num) AS running
          FROM packed_num p
         WHERE p.device_num = $1 AND p.field_num = $2
           AND p.period >= packed_period($3) AND p.period < $4
           AND ($5::integer IS NULL OR p.site_num = $5)) k
 WHERE k.running - k.n <= $6
 ORDER BY 1 NULLS FIRST, 8

-- name: downsample_site_ids
-- The ids of the sites numbered $1.
SELECT s.num, s.id FROM sites s WHERE s.num = ANY ($1::integer[])
