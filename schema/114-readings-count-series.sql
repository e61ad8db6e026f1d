-- readings_<kind>_count counts the readings of many series in one call (an export's), so
-- its arguments are arrays now (schema/definitions/035-packing.sql); the per-series
-- signature goes.
DROP FUNCTION IF EXISTS readings_num_count(integer, integer, timestamptz, timestamptz);
DROP FUNCTION IF EXISTS readings_other_count(integer, integer, timestamptz, timestamptz);
