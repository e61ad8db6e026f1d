-- The raw history read became one function per kind, readings_<kind>_newest
-- (schema/definitions/035-packing.sql), which computes its own bound; the separate bound
-- function it replaces goes.
DROP FUNCTION IF EXISTS readings_num_newest_since(integer, integer, timestamptz, timestamptz,
    integer, integer);
DROP FUNCTION IF EXISTS readings_other_newest_since(integer, integer, timestamptz, timestamptz,
    integer, integer);
