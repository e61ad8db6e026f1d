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
--   $5 boolean[]  field map: numeric (readings_num_in) or not (readings_other_in)
--   $6, $7        the range [from, to)
--   $8 text[]     the field identifiers, by position (long layout and NDJSON keys)
-- Each device's readings are read by export_readings (schema/definitions/070-export.sql:
-- raw rows and packed weeks through readings_<kind>_in), one (device, field) range at a
-- time, and sorted per device; the devices are walked in id order by a nested loop, so
-- the first rows leave as soon as the first device is read and memory holds one device's
-- readings at most (EXPLAIN: Incremental Sort, presorted key the device order, over a
-- Nested Loop; per device a Sort of its readings over an Append of the raw rows' index
-- scans and the packed weeks unnested, per field).
-- The cost is PostgreSQL's work per reading (scan, sort, text output), a few microseconds;
-- benchmarks/bench_export.py measures it. In the wide layout, grouping by time into an
-- array per field, unnested, cost more than reading: ~2.5 us per row of four fields (bench
-- S, backend CPU time); a time's cell is now one aggregate of one input, and only a time
-- with two readings of a field is grouped into arrays.

-- name: fleet_devices
-- Assigned devices the key sees ($1 partner, $2 key sub-account) matching the GET /devices filters (fleet_devices), in id order, at most $13 rows, with whether multi-site is on for each (POST /query shows raw points' sites).
SELECT d.num, d.id, d.dev_eui, d.profile_id,
       COALESCE((SELECT af.multi_site FROM sub_account_features af
                  WHERE af.sub_account_id = d.sub_account_id), false) AS multi_site
  FROM fleet_devices($1, $2, $3, $4, $5, $6, ARRAY['assigned'], $10, $11, $12, $7, $8, $9) d
 ORDER BY d.id
 LIMIT $13

-- name: profile_fields
-- The fields with history (every kind but static) of the profiles $1, in catalog order, with their measurement (the aggregates each takes).
SELECT f.profile_id, f.num, f.identifier, f.data_type, f.kind, f.measurement
  FROM profile_fields f
 WHERE f.profile_id = ANY ($1::uuid[])
 ORDER BY f.position, f.identifier, f.profile_id

-- name: count_readings
-- Exact number of readings of the field map ($2..$5 as the row queries) of devices $1 in [$6, $7): readings_<kind>_count over every (device, field) of each kind at once.
WITH series AS MATERIALIZED (
    SELECT d.num AS device_num, m.field_num, m.numeric
      FROM devices d
      JOIN unnest($2::integer[], $3::uuid[], $4::integer[], $5::boolean[])
           AS m (field_num, profile_id, pos, numeric)
        ON m.profile_id = d.profile_id OR m.profile_id IS NULL
     WHERE d.num = ANY ($1::integer[])
)
SELECT (SELECT readings_num_count(array_agg(device_num), array_agg(field_num), $6, $7)
          FROM series WHERE numeric)
     + (SELECT readings_other_count(array_agg(device_num), array_agg(field_num), $6, $7)
          FROM series WHERE NOT numeric)

-- name: long_rows
-- Template: one row per reading of devices $1 (field map $2..$5) in [$6, $7), by device id, time, field position; {columns} filled by app/export/query.py.
SELECT {columns}
  FROM export_devices($1::integer[]) d
 CROSS JOIN LATERAL export_readings(d.num, d.profile_id, $2::integer[], $3::uuid[],
                                    $4::integer[], $5::boolean[], $6, $7) x
 ORDER BY d.ord, x.time, x.pos

-- name: wide_rows
-- Template: one row per reading time of devices $1 (more when a field has several readings at one time), by device id and time; {firsts}, {present}, {arrays}, {unnest} and {columns} filled by app/export/query.py.
SELECT {columns}
  FROM export_devices($1::integer[]) d
 -- Each time's cell per field: one value taken by an aggregate of one input (min), where
 -- an array per field and time, unnested, cost more than reading the readings.
 CROSS JOIN LATERAL (
    SELECT x.time, count(*) AS readings, {firsts}
      FROM export_readings(d.num, d.profile_id, $2::integer[], $3::uuid[],
                           $4::integer[], $5::boolean[], $6, $7) x
     GROUP BY x.time
 ) g
 CROSS JOIN LATERAL (
    SELECT g.*
     WHERE g.readings = {present}
    UNION ALL
    -- A time with more readings than cells (two readings of a field at one time, rare)
    -- is read again on its own. Several set-returning functions in one select list run
    -- in step (the shorter padded with NULL), which turns it into two rows.
    SELECT t.time, t.readings, {unnest}
      FROM (
        SELECT x.time, g.readings, {arrays}
          FROM export_readings(d.num, d.profile_id, $2::integer[], $3::uuid[],
                               $4::integer[], $5::boolean[], g.time,
                               g.time + interval '1 microsecond') x
         GROUP BY x.time
      ) t
     WHERE g.readings <> {present}
 ) u
 ORDER BY d.ord, u.time

-- The raw wide export without a time zone is read as stored (app/export/wide.py): the
-- packed weeks as they are, their runs of times expanded and the rows pivoted and written
-- by the service, since unpacking, sorting, grouping and writing them here cost ~5 us per
-- row (bench S, backend CPU time). Two queries, with the same input as the row queries
-- ($1 device nums, $2..$5 the field map, $6 and $7 the range):

-- name: wide_counts
-- How many readings each device of $1 holds for the field map $2..$5 in [$6, $7), in parts: per series its raw rows counted, then its packed weeks that overlap the range, a row each, with their count `n` when the week lies wholly inside and their runs of times (period in epoch microseconds, offsets, steps, counts) when it does not, so that the caller counts the readings inside. `ord` is the device's position in $1 (1-based).
WITH series AS MATERIALIZED (
    SELECT o.ord::integer AS ord, d.num AS device_num, m.field_num, m.numeric
      FROM unnest($1::integer[]) WITH ORDINALITY AS o (num, ord)
      JOIN devices d ON d.num = o.num
      JOIN unnest($2::integer[], $3::uuid[], $4::integer[], $5::boolean[])
           AS m (field_num, profile_id, pos, numeric)
        ON m.profile_id = d.profile_id OR m.profile_id IS NULL
)
SELECT s.ord, r.n, NULL::bigint AS period, NULL::bigint[] AS offsets, NULL::bigint[] AS steps,
       NULL::integer[] AS counts
  FROM series s
 CROSS JOIN LATERAL (SELECT count(*) AS n FROM readings_num x
                      WHERE x.device_num = s.device_num AND x.field_num = s.field_num
                        AND x.time >= $6 AND x.time < $7) r
 WHERE s.numeric AND r.n > 0
UNION ALL
SELECT s.ord, r.n, NULL, NULL, NULL, NULL
  FROM series s
 CROSS JOIN LATERAL (SELECT count(*) AS n FROM readings_other x
                      WHERE x.device_num = s.device_num AND x.field_num = s.field_num
                        AND x.time >= $6 AND x.time < $7) r
 WHERE NOT s.numeric AND r.n > 0
UNION ALL
-- A week lies wholly inside when it starts at or after $6 and before the week of $7
-- (weeks are aligned, so it then ends by $7); only the others' runs are read.
SELECT s.ord, k.n, round(date_part('epoch', k.period) * 1000000)::bigint, k.offsets, k.steps,
       k.counts
  FROM series s
  JOIN packed_num k ON k.device_num = s.device_num AND k.field_num = s.field_num
 WHERE s.numeric AND k.period >= packed_period($6) AND k.period < $7
   AND (k.period < $6 OR k.period >= packed_period($7))
UNION ALL
SELECT s.ord, k.n, NULL, NULL, NULL, NULL
  FROM series s
  JOIN packed_num k ON k.device_num = s.device_num AND k.field_num = s.field_num
 WHERE s.numeric AND k.period >= $6 AND k.period < packed_period($7)
UNION ALL
SELECT s.ord, k.n, round(date_part('epoch', k.period) * 1000000)::bigint, k.offsets, k.steps,
       k.counts
  FROM series s
  JOIN packed_other k ON k.device_num = s.device_num AND k.field_num = s.field_num
 WHERE NOT s.numeric AND k.period >= packed_period($6) AND k.period < $7
   AND (k.period < $6 OR k.period >= packed_period($7))
UNION ALL
SELECT s.ord, k.n, NULL, NULL, NULL, NULL
  FROM series s
  JOIN packed_other k ON k.device_num = s.device_num AND k.field_num = s.field_num
 WHERE NOT s.numeric AND k.period >= $6 AND k.period < packed_period($7)

-- name: wide_parts
-- The readings of devices $1 for the field map $2..$5 in [$6, $7) as stored, a row per part of `n` readings: per series its raw rows as arrays (times, numbers in `nums`, other values in `texts`), then its packed weeks that overlap the range as they are (period in epoch microseconds, the runs of times, the values); `ord` is the device's position in $1 (1-based), `pos` the field's column. Times and numbers in PostgreSQL's binary form of an array (array_send), other values as their JSON texts joined by the unit separator (U+001F, which JSON text escapes), so that the caller reads them as arrays without a Python object per reading. The caller expands the runs, keeps the times inside the range and orders the readings.
WITH series AS MATERIALIZED (
    SELECT o.ord::integer AS ord, d.num AS device_num, m.field_num, m.pos, m.numeric
      FROM unnest($1::integer[]) WITH ORDINALITY AS o (num, ord)
      JOIN devices d ON d.num = o.num
      JOIN unnest($2::integer[], $3::uuid[], $4::integer[], $5::boolean[])
           AS m (field_num, profile_id, pos, numeric)
        ON m.profile_id = d.profile_id OR m.profile_id IS NULL
)
SELECT s.ord, s.pos, r.n, NULL::bigint AS period, NULL::bigint[] AS offsets,
       NULL::bigint[] AS steps, NULL::integer[] AS counts, r.times, r.nums,
       NULL::text AS texts
  FROM series s
 CROSS JOIN LATERAL (
    SELECT count(*)::integer AS n, array_send(array_agg(x.time)) AS times,
           array_send(array_agg(x.value)) AS nums
      FROM readings_num x
     WHERE x.device_num = s.device_num AND x.field_num = s.field_num
       AND x.time >= $6 AND x.time < $7) r
 WHERE s.numeric AND r.n > 0
UNION ALL
SELECT s.ord, s.pos, r.n, NULL, NULL, NULL, NULL, r.times, NULL, r.texts
  FROM series s
 CROSS JOIN LATERAL (
    SELECT count(*)::integer AS n, array_send(array_agg(x.time)) AS times,
           string_agg(x.value::text, E'\x1f') AS texts
      FROM readings_other x
     WHERE x.device_num = s.device_num AND x.field_num = s.field_num
       AND x.time >= $6 AND x.time < $7) r
 WHERE NOT s.numeric AND r.n > 0
UNION ALL
SELECT s.ord, s.pos, k.n, round(date_part('epoch', k.period) * 1000000)::bigint, k.offsets,
       k.steps, k.counts, NULL, array_send(k.values), NULL
  FROM series s
  JOIN packed_num k ON k.device_num = s.device_num AND k.field_num = s.field_num
 WHERE s.numeric AND k.period >= packed_period($6) AND k.period < $7
UNION ALL
SELECT s.ord, s.pos, k.n, round(date_part('epoch', k.period) * 1000000)::bigint, k.offsets,
       k.steps, k.counts, NULL, NULL, array_to_string(k.values::text[], E'\x1f')
  FROM series s
  JOIN packed_other k ON k.device_num = s.device_num AND k.field_num = s.field_num
 WHERE NOT s.numeric AND k.period >= packed_period($6) AND k.period < $7
