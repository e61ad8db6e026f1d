-- readings_<kind>_in and packed_hours_<kind>_in take the range a bucketed read covers with
-- partials (schema/definitions/035-packing.sql), so one call of each serves every part of
-- the read. A new signature is a new function: the old ones go, or calls with five
-- arguments would match both.
DROP FUNCTION IF EXISTS readings_num_in(integer, integer, timestamptz, timestamptz, integer);
DROP FUNCTION IF EXISTS readings_other_in(integer, integer, timestamptz, timestamptz, integer);
DROP FUNCTION IF EXISTS packed_hours_num_in(integer, integer, timestamptz, timestamptz, integer);
DROP FUNCTION IF EXISTS packed_hours_other_in(integer, integer, timestamptz, timestamptz,
    integer);
