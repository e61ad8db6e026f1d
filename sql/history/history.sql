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
-- are re-bucketed with time_bucket and merged once. `last` is the value of the greatest (time, value): ties on
-- time go to the greatest value, the rule the packing job's partials follow, so the answer
-- never depends on arrival order. For numbers it is max(ARRAY[epoch microseconds,
-- value])[2] (exact: epoch microseconds fit a float8 mantissa until 2255), a plain C
-- aggregate.
--
-- Only the requested aggregate accumulates (each has a FILTER on $11): a float8 overflow
-- of sum(sum) can then only fail agg=sum or avg, never min, max, count or last; with
-- custom plans $11 is a constant and the other aggregates see no rows.

-- name: bucketed_num
-- Merged partials of a numeric series ($1 device, $2 field) per $5-bucket (local to zone $12, or UTC when NULL) over [$3, $4): hourly partials for [$6, $7) and [$8, $9), daily for [$7, $8); $10 site_num or NULL; $11 agg; newest first.
WITH parts AS (
    SELECT r.time AS t, 1::bigint AS n, r.value AS sum, r.value AS min, r.value AS max,
           r.time AS last_time, r.value AS last_value
      FROM readings_num_in($1, $2, $3, $4, $10, $6, $9) r
    UNION ALL
    SELECT h.bucket, h.n, h.sum, h.min, h.max, h.last_time, h.last_value
      FROM packed_hours_num_in($1, $2, $6, $9, $10, $7, $8) h
    UNION ALL
    SELECT d.bucket, d.n, d.sum, d.min, d.max, d.last_time, d.last_value
      FROM rollup_day_num d
     WHERE d.device_num = $1 AND d.field_num = $2 AND d.bucket >= $7 AND d.bucket < $8
       AND ($10::integer IS NULL OR d.site_num = $10)
)
SELECT CASE WHEN $12::text IS NULL THEN time_bucket((SELECT $5::text::interval), t)
            ELSE time_bucket((SELECT $5::text::interval), t, $12::text) END AS bucket,
       CASE $11::text
            WHEN 'avg' THEN sum(sum) FILTER (WHERE $11::text = 'avg')
                            / sum(n) FILTER (WHERE $11::text = 'avg')::double precision
            WHEN 'sum' THEN sum(sum) FILTER (WHERE $11::text = 'sum')
            WHEN 'min' THEN min(min) FILTER (WHERE $11::text = 'min')
            WHEN 'max' THEN max(max) FILTER (WHERE $11::text = 'max')
            WHEN 'count' THEN sum(n) FILTER (WHERE $11::text = 'count')::double precision
            ELSE (max(ARRAY[(extract(epoch FROM last_time) * 1000000)::double precision, last_value])
                      FILTER (WHERE $11::text = 'last'))[2]
       END AS value
  FROM parts
 GROUP BY 1
 ORDER BY 1 DESC

-- name: bucketed_other
-- Merged count and last of a string/boolean/date/location series per $5-bucket (zone $12 or UTC) over [$3, $4), with partials as bucketed_num; newest first.
WITH parts AS (
    SELECT r.time AS t, 1::bigint AS n, r.time AS last_time, r.value AS last_value
      FROM readings_other_in($1, $2, $3, $4, $10, $6, $9) r
    UNION ALL
    SELECT h.bucket, h.n, h.last_time, h.last_value
      FROM packed_hours_other_in($1, $2, $6, $9, $10, $7, $8) h
    UNION ALL
    SELECT d.bucket, d.n, d.last_time, d.last_value
      FROM rollup_day_other d
     WHERE d.device_num = $1 AND d.field_num = $2 AND d.bucket >= $7 AND d.bucket < $8
       AND ($10::integer IS NULL OR d.site_num = $10)
)
SELECT CASE WHEN $12::text IS NULL THEN time_bucket((SELECT $5::text::interval), t)
            ELSE time_bucket((SELECT $5::text::interval), t, $12::text) END AS bucket,
       sum(n)::bigint AS n,
       (array_agg(last_value ORDER BY last_time DESC, last_value DESC)
            FILTER (WHERE $11::text = 'last'))[1] AS last_value
  FROM parts
 GROUP BY 1
 ORDER BY 1 DESC

-- name: raw_num
-- The newest $5 numeric readings of a series in [$3, $4), site filter $6 or NULL, with their site nums (0 = none); newest first (ties: greatest value, then site).
SELECT r.time, r.value, r.site_num
  FROM readings_num_newest($1, $2, $3, $4, $6, $5) r
 ORDER BY r.time DESC, r.value DESC, r.site_num DESC

-- name: raw_other
-- The newest $5 non-numeric readings of a series in [$3, $4), site filter $6 or NULL, with their site nums (0 = none); newest first.
SELECT r.time, r.value, r.site_num
  FROM readings_other_newest($1, $2, $3, $4, $6, $5) r
 ORDER BY r.time DESC, r.value DESC, r.site_num DESC

-- name: site_ids
-- The ids of the sites with nums $1 (a raw answer's few distinct sites, looked up once each instead of once per point).
SELECT s.num, s.id FROM sites s WHERE s.num = ANY ($1::integer[])

-- name: context
-- The device's field by identifier ($3) or id ($4) in its profile ($1), whether multi-site is on for the device's sub-account ($2), and the site num of $5 in the key's scope ($6 partner, $7 sub-account or NULL) with the feature on.
SELECT f.num, f.identifier, f.data_type, f.kind,
       COALESCE((SELECT af.multi_site FROM sub_account_features af
                  WHERE af.sub_account_id = $2), false) AS multi_site,
       (SELECT s.num
          FROM sites s
          JOIN sub_account_features af ON af.sub_account_id = s.sub_account_id
         WHERE s.id = $5 AND af.partner_id = $6
           AND ($7::uuid IS NULL OR af.sub_account_id = $7)
           AND af.multi_site) AS site_num
  FROM (SELECT 1) one
  LEFT JOIN profile_fields f
    ON f.profile_id = $1 AND (f.identifier = $3 OR f.id = $4)
 ORDER BY (f.identifier = $3) DESC
 LIMIT 1
