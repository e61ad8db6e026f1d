-- Export (integrations.md section 4): the devices of a fleet export, the fields of their
-- profiles, the size of an export, and the streamed rows.
--
-- The row queries (long_rows, wide_rows) are templates: the column list of an export
-- depends on how many fields it asks for, so app/export/query.py fills the `{...}` slots
-- with expressions that name only positions and fixed snippets; every value (devices,
-- fields, times, identifiers) is a bind parameter. Their shared input:
--   $1 integer[]  device nums, in device id order (the export order)
--   $2 integer[]  field map: field num per entry ($2..$5 are parallel arrays)
--   $3 uuid[]     field map: profile of the entry, NULL for signal_quality (every device)
--   $4 integer[]  field map: column position (1-based, the order asked)
--   $5 boolean[]  field map: numeric (readings_num) or not (readings_other)
--   $6, $7        the range [from, to)
--   $8 text[]     the field identifiers, by position (long layout and NDJSON keys)
-- Each device's readings are read by the series index, one (device, field) range at a
-- time, and sorted per device; the devices are walked in id order by a nested loop, so
-- the first rows leave as soon as the first device is read and memory holds one device's
-- readings at most (EXPLAIN on bench S, 50 devices: Incremental Sort, presorted key the
-- device order, over a Nested Loop; per device a Sort of its readings over an Append of
-- Index Scans of readings_num_series / readings_other_series per field and chunk).
-- The cost is PostgreSQL's work per reading (scan, sort, text output), a few microseconds;
-- benchmarks/bench_export.py measures it.

-- name: fleet_devices
-- Assigned devices the key sees ($1 partner, $2 key sub-account) matching the GET /devices filters (fleet_devices), in id order, at most $13 rows.
SELECT d.num, d.id, d.dev_eui, d.profile_id
  FROM fleet_devices($1, $2, $3, $4, $5, $6, ARRAY['assigned'], $10, $11, $12, $7, $8, $9) d
 ORDER BY d.id
 LIMIT $13

-- name: profile_fields
-- The fields with history (every kind but static) of the profiles $1, in catalog order.
SELECT f.profile_id, f.num, f.identifier, f.data_type, f.kind
  FROM profile_fields f
 WHERE f.profile_id = ANY ($1::uuid[])
 ORDER BY f.position, f.identifier, f.profile_id

-- name: count_readings
-- Exact number of readings of the field map ($2..$5 as the row queries) of devices $1 in [$6, $7), from daily rollups in [$8, $9), hourly ones in [$10, $8) and [$9, $11), raw readings at the edges.
WITH map AS MATERIALIZED (
    SELECT * FROM unnest($2::integer[], $3::uuid[], $4::integer[], $5::boolean[])
                  AS m(field_num, profile_id, pos, numeric)
),
series AS MATERIALIZED (
    SELECT d.num AS device_num, m.field_num, m.numeric
      FROM devices d JOIN map m ON m.profile_id = d.profile_id OR m.profile_id IS NULL
     WHERE d.num = ANY ($1::integer[])
)
SELECT COALESCE(sum(n), 0)::bigint FROM (
    SELECT r.n FROM series s CROSS JOIN LATERAL (
        SELECT count(*) AS n FROM readings_num r
         WHERE r.device_num = s.device_num AND r.field_num = s.field_num
           AND ((r.time >= $6 AND r.time < $10) OR (r.time >= $11 AND r.time < $7))
    ) r WHERE s.numeric
    UNION ALL
    SELECT r.n FROM series s CROSS JOIN LATERAL (
        SELECT count(*) AS n FROM readings_other r
         WHERE r.device_num = s.device_num AND r.field_num = s.field_num
           AND ((r.time >= $6 AND r.time < $10) OR (r.time >= $11 AND r.time < $7))
    ) r WHERE NOT s.numeric
    UNION ALL
    SELECT sum(h.n) FROM series s JOIN rollup_hour_num h
        ON h.device_num = s.device_num AND h.field_num = s.field_num
     WHERE s.numeric AND ((h.bucket >= $10 AND h.bucket < $8) OR (h.bucket >= $9 AND h.bucket < $11))
    UNION ALL
    SELECT sum(h.n) FROM series s JOIN rollup_hour_other h
        ON h.device_num = s.device_num AND h.field_num = s.field_num
     WHERE NOT s.numeric AND ((h.bucket >= $10 AND h.bucket < $8) OR (h.bucket >= $9 AND h.bucket < $11))
    UNION ALL
    SELECT sum(x.n) FROM series s JOIN rollup_day_num x
        ON x.device_num = s.device_num AND x.field_num = s.field_num
     WHERE s.numeric AND x.bucket >= $8 AND x.bucket < $9
    UNION ALL
    SELECT sum(x.n) FROM series s JOIN rollup_day_other x
        ON x.device_num = s.device_num AND x.field_num = s.field_num
     WHERE NOT s.numeric AND x.bucket >= $8 AND x.bucket < $9
) parts

-- name: long_rows
-- Template: one row per reading of devices $1 (field map $2..$5) in [$6, $7), by device id, time, field position; {columns} filled by app/export/query.py.
WITH map AS MATERIALIZED (
    SELECT * FROM unnest($2::integer[], $3::uuid[], $4::integer[], $5::boolean[])
                  AS m(field_num, profile_id, pos, numeric)
),
dev AS (
    SELECT d.num, d.id, d.dev_eui, d.profile_id, o.ord
      FROM unnest($1::integer[]) WITH ORDINALITY AS o(num, ord)
      JOIN devices d ON d.num = o.num
)
SELECT {columns}
  FROM dev d
 CROSS JOIN LATERAL (
    SELECT r.time, m.pos, r.value AS num, NULL::jsonb AS other
      FROM map m JOIN readings_num r ON r.field_num = m.field_num
     WHERE m.numeric AND (m.profile_id = d.profile_id OR m.profile_id IS NULL)
       AND r.device_num = d.num AND r.time >= $6 AND r.time < $7
    UNION ALL
    SELECT r.time, m.pos, NULL, r.value
      FROM map m JOIN readings_other r ON r.field_num = m.field_num
     WHERE NOT m.numeric AND (m.profile_id = d.profile_id OR m.profile_id IS NULL)
       AND r.device_num = d.num AND r.time >= $6 AND r.time < $7
 ) x
 ORDER BY d.ord, x.time, x.pos

-- name: wide_rows
-- Template: one row per reading time of devices $1 (more when a field has several readings at one time), by device id and time; {arrays}, {unnest} and {columns} filled by app/export/query.py.
WITH map AS MATERIALIZED (
    SELECT * FROM unnest($2::integer[], $3::uuid[], $4::integer[], $5::boolean[])
                  AS m(field_num, profile_id, pos, numeric)
),
dev AS (
    SELECT d.num, d.id, d.dev_eui, d.profile_id, o.ord
      FROM unnest($1::integer[]) WITH ORDINALITY AS o(num, ord)
      JOIN devices d ON d.num = o.num
)
SELECT {columns}
  FROM dev d
 CROSS JOIN LATERAL (
    -- Several set-returning functions in one select list run in step (the shorter padded
    -- with NULL), which turns a time with two readings of a field into two rows.
    SELECT g.time, {unnest}
      FROM (
        SELECT x.time, {arrays}
          FROM (
            SELECT r.time, m.pos, r.value AS num, NULL::jsonb AS other
              FROM map m JOIN readings_num r ON r.field_num = m.field_num
             WHERE m.numeric AND (m.profile_id = d.profile_id OR m.profile_id IS NULL)
               AND r.device_num = d.num AND r.time >= $6 AND r.time < $7
            UNION ALL
            SELECT r.time, m.pos, NULL, r.value
              FROM map m JOIN readings_other r ON r.field_num = m.field_num
             WHERE NOT m.numeric AND (m.profile_id = d.profile_id OR m.profile_id IS NULL)
               AND r.device_num = d.num AND r.time >= $6 AND r.time < $7
          ) x
         GROUP BY x.time
      ) g
 ) u
 ORDER BY d.ord, u.time
