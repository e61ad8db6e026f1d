-- The write path of readings: raw rows plus the hourly and daily rollups, in the caller's
-- transaction. One call stores one uplink's readings (all at the same time and site).
-- Rollups hold mergeable partials; `last_*` keeps the greatest (time, value), so late and
-- out-of-order readings are summarised correctly and a tie on time goes to the greatest
-- value whatever the arrival order (the rule of sql/history/history.sql).

CREATE OR REPLACE FUNCTION record_readings(
    p_device_num    integer,
    p_site_num      integer,
    p_time          timestamptz,
    p_num_fields    integer[],
    p_num_values    double precision[],
    p_other_fields  integer[],
    p_other_values  jsonb[]
) RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
    IF cardinality(p_num_fields) > 0 THEN
        INSERT INTO readings_num (device_num, field_num, time, value, site_num)
        SELECT p_device_num, f, p_time, v, p_site_num
          FROM unnest(p_num_fields, p_num_values) AS r (f, v);

        INSERT INTO rollup_hour_num AS r
               (device_num, field_num, site_num, bucket, n, sum, min, max, last_time, last_value)
        SELECT p_device_num, f, p_site_num, time_bucket('1 hour', p_time), 1, v, v, v, p_time, v
          FROM unnest(p_num_fields, p_num_values) AS x (f, v)
        ON CONFLICT (device_num, field_num, bucket, site_num) DO UPDATE
           SET n = r.n + 1, sum = r.sum + excluded.sum,
               min = LEAST(r.min, excluded.min), max = GREATEST(r.max, excluded.max),
               last_value = CASE WHEN (excluded.last_time, excluded.last_value)
                                      > (r.last_time, r.last_value)
                                 THEN excluded.last_value ELSE r.last_value END,
               last_time = GREATEST(r.last_time, excluded.last_time);

        INSERT INTO rollup_day_num AS r
               (device_num, field_num, site_num, bucket, n, sum, min, max, last_time, last_value)
        SELECT p_device_num, f, p_site_num, time_bucket('1 day', p_time), 1, v, v, v, p_time, v
          FROM unnest(p_num_fields, p_num_values) AS x (f, v)
        ON CONFLICT (device_num, field_num, bucket, site_num) DO UPDATE
           SET n = r.n + 1, sum = r.sum + excluded.sum,
               min = LEAST(r.min, excluded.min), max = GREATEST(r.max, excluded.max),
               last_value = CASE WHEN (excluded.last_time, excluded.last_value)
                                      > (r.last_time, r.last_value)
                                 THEN excluded.last_value ELSE r.last_value END,
               last_time = GREATEST(r.last_time, excluded.last_time);
    END IF;

    IF cardinality(p_other_fields) > 0 THEN
        INSERT INTO readings_other (device_num, field_num, time, value, site_num)
        SELECT p_device_num, f, p_time, v, p_site_num
          FROM unnest(p_other_fields, p_other_values) AS r (f, v);

        INSERT INTO rollup_hour_other AS r
               (device_num, field_num, site_num, bucket, n, last_time, last_value)
        SELECT p_device_num, f, p_site_num, time_bucket('1 hour', p_time), 1, p_time, v
          FROM unnest(p_other_fields, p_other_values) AS x (f, v)
        ON CONFLICT (device_num, field_num, bucket, site_num) DO UPDATE
           SET n = r.n + 1,
               last_value = CASE WHEN (excluded.last_time, excluded.last_value)
                                      > (r.last_time, r.last_value)
                                 THEN excluded.last_value ELSE r.last_value END,
               last_time = GREATEST(r.last_time, excluded.last_time);

        INSERT INTO rollup_day_other AS r
               (device_num, field_num, site_num, bucket, n, last_time, last_value)
        SELECT p_device_num, f, p_site_num, time_bucket('1 day', p_time), 1, p_time, v
          FROM unnest(p_other_fields, p_other_values) AS x (f, v)
        ON CONFLICT (device_num, field_num, bucket, site_num) DO UPDATE
           SET n = r.n + 1,
               last_value = CASE WHEN (excluded.last_time, excluded.last_value)
                                      > (r.last_time, r.last_value)
                                 THEN excluded.last_value ELSE r.last_value END,
               last_time = GREATEST(r.last_time, excluded.last_time);
    END IF;
END;
$$;

-- Deletes every trace of a device's telemetry (decisions D16), in the caller's transaction.
CREATE OR REPLACE FUNCTION delete_device_telemetry(p_device_num integer) RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
    DELETE FROM readings_num WHERE device_num = p_device_num;
    DELETE FROM readings_other WHERE device_num = p_device_num;
    DELETE FROM rollup_hour_num WHERE device_num = p_device_num;
    DELETE FROM rollup_day_num WHERE device_num = p_device_num;
    DELETE FROM rollup_hour_other WHERE device_num = p_device_num;
    DELETE FROM rollup_day_other WHERE device_num = p_device_num;
    DELETE FROM device_state WHERE device_num = p_device_num;
    DELETE FROM device_alerts WHERE device_num = p_device_num;
    DELETE FROM downlink_queue WHERE device_num = p_device_num;
END;
$$;

-- Recomputes the rollups of the buckets that overlap [p_from, p_to) from the raw readings,
-- for the given devices (all when NULL). Used after bulk loads that bypass record_readings.
-- Rows go in in key order, so a series' rollups share pages and the primary keys are
-- built by appending (denser, and a year of one series is a few pages, not hundreds).
CREATE OR REPLACE FUNCTION rebuild_rollups(
    p_from timestamptz, p_to timestamptz, p_device_nums integer[] DEFAULT NULL
) RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
    hour_from timestamptz := time_bucket('1 hour', p_from);
    day_from  timestamptz := time_bucket('1 day', p_from);
    day_to    timestamptz := time_bucket('1 day', p_to - interval '1 microsecond') + interval '1 day';
    hour_to   timestamptz := time_bucket('1 hour', p_to - interval '1 microsecond') + interval '1 hour';
BEGIN
    DELETE FROM rollup_hour_num WHERE bucket >= hour_from AND bucket < hour_to
       AND (p_device_nums IS NULL OR device_num = ANY (p_device_nums));
    INSERT INTO rollup_hour_num (device_num, field_num, site_num, bucket, n, sum, min, max, last_time, last_value)
    SELECT device_num, field_num, site_num, time_bucket('1 hour', time), count(*), sum(value),
           min(value), max(value), max(time),
           (max(ARRAY[(extract(epoch FROM time) * 1000000)::double precision, value]))[2]
      FROM readings_num
     WHERE time >= hour_from AND time < hour_to
       AND (p_device_nums IS NULL OR device_num = ANY (p_device_nums))
     GROUP BY 1, 2, 3, 4
     ORDER BY 1, 2, 4, 3;

    DELETE FROM rollup_day_num WHERE bucket >= day_from AND bucket < day_to
       AND (p_device_nums IS NULL OR device_num = ANY (p_device_nums));
    INSERT INTO rollup_day_num (device_num, field_num, site_num, bucket, n, sum, min, max, last_time, last_value)
    SELECT device_num, field_num, site_num, time_bucket('1 day', bucket), sum(n), sum(sum),
           min(min), max(max), max(last_time),
           (max(ARRAY[(extract(epoch FROM last_time) * 1000000)::double precision, last_value]))[2]
      FROM rollup_hour_num
     WHERE bucket >= day_from AND bucket < day_to
       AND (p_device_nums IS NULL OR device_num = ANY (p_device_nums))
     GROUP BY 1, 2, 3, 4
     ORDER BY 1, 2, 4, 3;

    DELETE FROM rollup_hour_other WHERE bucket >= hour_from AND bucket < hour_to
       AND (p_device_nums IS NULL OR device_num = ANY (p_device_nums));
    INSERT INTO rollup_hour_other (device_num, field_num, site_num, bucket, n, last_time, last_value)
    SELECT device_num, field_num, site_num, time_bucket('1 hour', time), count(*), max(time),
           (array_agg(value ORDER BY time DESC, value DESC))[1]
      FROM readings_other
     WHERE time >= hour_from AND time < hour_to
       AND (p_device_nums IS NULL OR device_num = ANY (p_device_nums))
     GROUP BY 1, 2, 3, 4
     ORDER BY 1, 2, 4, 3;

    DELETE FROM rollup_day_other WHERE bucket >= day_from AND bucket < day_to
       AND (p_device_nums IS NULL OR device_num = ANY (p_device_nums));
    INSERT INTO rollup_day_other (device_num, field_num, site_num, bucket, n, last_time, last_value)
    SELECT device_num, field_num, site_num, time_bucket('1 day', bucket), sum(n), max(last_time),
           (array_agg(last_value ORDER BY last_time DESC, last_value DESC))[1]
      FROM rollup_hour_other
     WHERE bucket >= day_from AND bucket < day_to
       AND (p_device_nums IS NULL OR device_num = ANY (p_device_nums))
     GROUP BY 1, 2, 3, 4
     ORDER BY 1, 2, 4, 3;
END;
$$;
