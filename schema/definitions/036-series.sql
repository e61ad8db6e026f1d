-- The series of a read of several series at once (sql/history/history.sql bucketed_*,
-- app/history/series.py). Re-runnable.

-- The series (p_devices[i], p_fields[i]) numbered by position, from 1. PL/pgSQL, so that
-- the planner keeps its estimate of one row instead of inlining an unnest of a parameter
-- (ten rows, by default): a generic plan of the bucketed statements then costs what one
-- series costs, the plan cache settles on it as it did for the former single-series
-- statements, and /history stops paying a custom plan's planning (~8 ms at bench M for a
-- year of daily buckets, against ~1 ms of execution) on every call. The plan is the same
-- shape for any number of series: a LATERAL read per series.
CREATE OR REPLACE FUNCTION series_list(p_devices integer[], p_fields integer[])
RETURNS TABLE (device_num integer, field_num integer, ord bigint)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE ROWS 1
AS $$
BEGIN
    RETURN QUERY
    SELECT s.device_num, s.field_num, s.ord
      FROM unnest(p_devices, p_fields) WITH ORDINALITY AS s (device_num, field_num, ord);
END;
$$;
