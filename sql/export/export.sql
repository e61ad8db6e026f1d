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
-- scans and the packed weeks unnested, per field; the wide layout reads a week of a device
-- at a time).
-- The cost is PostgreSQL's work per reading (scan, sort, text output), a few microseconds;
-- benchmarks/bench_export.py measures it. In the wide layout, grouping by time cost more
-- than reading: a group, an array per field and an unnest per row, ~2.5 us per row of four
-- fields (bench S, backend CPU time); so when every field of a device was read at the same
-- times, the usual case, a row is each field's time-ordered array zipped, and only the
-- other device-slices are grouped by time.

-- name: fleet_devices
-- Assigned devices the key sees ($1 partner, $2 key sub-account) matching the GET /devices filters (fleet_devices), in id order, at most $13 rows, with whether multi-site is on for each (POST /query shows raw points' sites).
SELECT d.num, d.id, d.dev_eui, d.profile_id,
       COALESCE((SELECT af.multi_site FROM sub_account_features af
                  WHERE af.sub_account_id = d.sub_account_id), false) AS multi_site
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
-- Template: one row per reading time of devices $1 (more when a field has several readings at one time), by device id and time, read a week of a device at a time; {slices}, {times}, {arrays}, {first}, {cells}, {uniform}, {unnest}, {names} and {columns} filled by app/export/query.py.
SELECT {columns}
  FROM export_devices($1::integer[]) d
 -- A device's readings a week at a time at most (the whole range when it is no longer;
 -- else the packed weeks), so that the arrays below hold that much of one device
 -- whatever the range.
 CROSS JOIN LATERAL (
    {slices}
 ) w
 -- Each field's times and cells in time order, one array each: a handful of aggregate
 -- steps per reading, where grouping by time costs a group per row.
 CROSS JOIN LATERAL (
    SELECT {times}, {arrays}
      FROM (SELECT * FROM export_readings(d.num, d.profile_id, $2::integer[], $3::uuid[],
                                          $4::integer[], $5::boolean[], w.start, w.stop) x
             ORDER BY x.time) x
 ) s
 CROSS JOIN LATERAL (
    -- When every field with readings was read at the same times (fields sent in one
    -- uplink, the usual case), a row is the arrays' elements side by side.
    SELECT r.*
      FROM unnest({first}, {cells}) AS r
     WHERE {uniform}
    UNION ALL
    -- Otherwise rows are grouped by time. Several set-returning functions in one select
    -- list run in step (the shorter padded with NULL), which turns a time with two
    -- readings of a field into two rows.
    SELECT g.time, {unnest}
      FROM (
        SELECT x.time, {arrays}
          FROM export_readings(d.num, d.profile_id, $2::integer[], $3::uuid[],
                               $4::integer[], $5::boolean[], w.start, w.stop) x
         GROUP BY x.time
      ) g
     WHERE NOT {uniform}
 ) u (time, {names})
 ORDER BY d.ord, u.time
