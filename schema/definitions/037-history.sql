-- What GET /devices/{id}/history reads (sql/history/history.sql), each part written once
-- for the statements that share it. LANGUAGE sql set-returning functions with a plain
-- body: PostgreSQL inlines them into the calling statement, so each statement is planned
-- as if the body were written in it (its parameters folding in custom plans, the indexes
-- driven by the series of a LATERAL join). Re-runnable.

-- The device by id (p_device_id) or DevEUI (p_dev_eui) as the key of partner p_partner
-- and sub-account p_sub_account (NULL for a partner key) sees it (tenant_device), with
-- its field by identifier (p_field) or id (p_field_id), whether multi-site is on for its
-- sub-account, and the site num of p_site in the key's scope with the feature on; no row
-- when the key sees no such device.
CREATE OR REPLACE FUNCTION history_device_context(
    p_partner       uuid,
    p_sub_account   uuid,
    p_device_id     uuid,
    p_dev_eui       text,
    p_field         text,
    p_field_id      uuid,
    p_site          uuid
) RETURNS TABLE (
    id              uuid,
    num             integer,
    status          text,
    profile_id      uuid,
    field_num       integer,
    identifier      text,
    data_type       text,
    kind            text,
    measurement     text,
    multi_site      boolean,
    site_num        integer
)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT d.id, d.num, d.status, d.profile_id,
           f.num, f.identifier, f.data_type, f.kind, f.measurement,
           COALESCE((SELECT af.multi_site FROM sub_account_features af
                      WHERE af.sub_account_id = d.sub_account_id), false),
           (SELECT s.num
              FROM sites s
              JOIN sub_account_features af ON af.sub_account_id = s.sub_account_id
             WHERE s.id = p_site AND af.partner_id = p_partner
               AND (p_sub_account IS NULL OR af.sub_account_id = p_sub_account)
               AND af.multi_site)
      FROM tenant_device(p_partner, p_sub_account, p_device_id, p_dev_eui) d
      LEFT JOIN LATERAL (
           SELECT f.num, f.identifier, f.data_type, f.kind, f.measurement
             FROM profile_fields f
            WHERE f.profile_id = d.profile_id AND (f.identifier = p_field OR f.id = p_field_id)
            ORDER BY (f.identifier = p_field) DESC
            LIMIT 1) f ON true
     LIMIT 1
$$;

-- The buckets of one numeric series (p_device, p_field) per p_width-bucket (local to zone
-- p_tz, or UTC when NULL) over [p_from, p_to), one row per non-empty bucket in no order:
-- the merged partials of the parts app/history/planner.py chose (hourly partials for
-- [p_hour_lo, p_day_lo) and [p_day_hi, p_hour_hi), daily rollups for [p_day_lo,
-- p_day_hi), raw and packed readings for the rest), site p_site or NULL, aggregate p_agg.
-- Why the parts and the aggregates are read as they are: sql/history/history.sql, at
-- bucketed_num.
CREATE OR REPLACE FUNCTION bucketed_num_series(
    p_device        integer,
    p_field         integer,
    p_from          timestamptz,
    p_to            timestamptz,
    p_width         text,
    p_hour_lo       timestamptz,
    p_day_lo        timestamptz,
    p_day_hi        timestamptz,
    p_hour_hi       timestamptz,
    p_site          integer,
    p_agg           text,
    p_tz            text
) RETURNS TABLE (bucket timestamptz, value double precision)
LANGUAGE sql STABLE
AS $$
    WITH parts AS (
        SELECT r.time AS t, 1::bigint AS n, r.value AS sum, r.value AS min, r.value AS max,
               r.time AS last_time, r.value AS last_value
          FROM readings_num_in(p_device, p_field, p_from, p_to, p_site, p_hour_lo, p_hour_hi) r
        UNION ALL
        SELECT h.bucket, h.n, h.sum, h.min, h.max, h.last_time, h.last_value
          FROM packed_hours_num_in(p_device, p_field, p_hour_lo, p_hour_hi, p_site, p_day_lo, p_day_hi) h
        UNION ALL
        SELECT d.bucket, d.n, d.sum, d.min, d.max, d.last_time, d.last_value
          FROM rollup_day_num d
         WHERE d.device_num = p_device AND d.field_num = p_field
           AND d.bucket >= p_day_lo AND d.bucket < p_day_hi
           AND (p_site IS NULL OR d.site_num = p_site)
    )
    SELECT CASE WHEN p_tz IS NULL THEN time_bucket((SELECT p_width::interval), t)
                ELSE time_bucket((SELECT p_width::interval), t, p_tz) END,
           CASE p_agg
                -- float8_avg (avg's final function) divides as C does: a subnormal sum
                -- over n rounds (to 0 at worst), where the / operator raises underflow.
                WHEN 'avg' THEN float8_avg(ARRAY[
                                    sum(n) FILTER (WHERE p_agg = 'avg')::double precision,
                                    sum(sum) FILTER (WHERE p_agg = 'avg'), 0])
                WHEN 'sum' THEN sum(sum) FILTER (WHERE p_agg = 'sum')
                WHEN 'min' THEN min(min) FILTER (WHERE p_agg = 'min')
                WHEN 'max' THEN max(max) FILTER (WHERE p_agg = 'max')
                WHEN 'count' THEN sum(n) FILTER (WHERE p_agg = 'count')::double precision
                ELSE (max(ARRAY[(extract(epoch FROM last_time) * 1000000)::double precision, last_value])
                          FILTER (WHERE p_agg = 'last'))[2]
           END
      FROM parts
     GROUP BY 1
$$;

-- The newest p_limit numeric readings of a series in [p_from, p_to), site p_site or NULL,
-- newest first (ties: greatest value, then site), as one row: their times (a JSON array,
-- decoded by the client straight to datetimes), values, site nums (0 = none) and the ids
-- of those sites (a JSON object, num to id); NULLs when none.
CREATE OR REPLACE FUNCTION newest_num_series(
    p_device        integer,
    p_field         integer,
    p_from          timestamptz,
    p_to            timestamptz,
    p_site          integer,
    p_limit         integer
) RETURNS TABLE (times text, "values" double precision[], sites integer[], site_ids text)
LANGUAGE sql STABLE
AS $$
    SELECT to_json(n.times)::text, n.values, n.sites,
           (SELECT json_object_agg(s.num, s.id) FROM sites s WHERE s.num = ANY (n.sites))::text
      FROM readings_num_newest(p_device, p_field, p_from, p_to, p_site, p_limit) n
$$;
