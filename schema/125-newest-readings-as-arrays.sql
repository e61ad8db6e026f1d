-- readings_<kind>_newest returns the newest readings as one row of arrays instead of a row
-- per reading (schema/definitions/035-packing.sql); a function's result type cannot be
-- replaced in place, so the old ones go first.
DROP FUNCTION IF EXISTS readings_num_newest(integer, integer, timestamptz, timestamptz,
    integer, integer);
DROP FUNCTION IF EXISTS readings_other_newest(integer, integer, timestamptz, timestamptz,
    integer, integer);
