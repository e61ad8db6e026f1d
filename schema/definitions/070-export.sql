-- Export (integrations.md section 4, sql/export/export.sql): the readings of one device
-- for an export, with the column position of their field. Re-runnable.

-- Every reading of device p_device (profile p_profile) in [p_from, p_to) for the field map
-- (parallel arrays: field num, profile or NULL for signal_quality, column position,
-- numeric or not): numbers in `num`, other values in `other`. Inlined into the export
-- queries, where it runs once per device of the export in device order.
CREATE OR REPLACE FUNCTION export_readings(
    p_device integer, p_profile uuid, p_fields integer[], p_profiles uuid[],
    p_positions integer[], p_numeric boolean[], p_from timestamptz, p_to timestamptz
) RETURNS TABLE ("time" timestamptz, pos integer, num double precision, other jsonb)
LANGUAGE sql STABLE
AS $$
    WITH map AS (
        SELECT * FROM unnest(p_fields, p_profiles, p_positions, p_numeric)
                      AS m (field_num, profile_id, pos, numeric)
         WHERE m.profile_id = p_profile OR m.profile_id IS NULL
    )
    SELECT r.time, m.pos, r.value, NULL::jsonb
      FROM map m CROSS JOIN LATERAL readings_num_in(p_device, m.field_num, p_from, p_to) r
     WHERE m.numeric
    UNION ALL
    SELECT r.time, m.pos, NULL, r.value
      FROM map m CROSS JOIN LATERAL readings_other_in(p_device, m.field_num, p_from, p_to) r
     WHERE NOT m.numeric
$$;

-- The devices of an export (nums p_nums), with their position in the export order.
CREATE OR REPLACE FUNCTION export_devices(p_nums integer[])
RETURNS TABLE (num integer, id uuid, dev_eui text, profile_id uuid, ord bigint)
LANGUAGE sql STABLE
AS $$
    SELECT d.num, d.id, d.dev_eui, d.profile_id, o.ord
      FROM unnest(p_nums) WITH ORDINALITY AS o (num, ord)
      JOIN devices d ON d.num = o.num
$$;
