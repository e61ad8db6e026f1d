-- Partials that compose across buckets for duration (issue 26, item 2; analytics.md
-- section 3), beside those of numbers (schema/180-composable-partials.sql): each hour of a
-- packed week of a state (or any non-numeric) field and each day of its daily rollups
-- also keeps when its first reading is and, as a JSON object from each value held (its
-- JSON text) to microseconds, how long each value held between its first reading and its
-- last. An hour whose readings all hold one value keeps NULL (that value held from its
-- first reading to its last), which is most hours of a door or a mode. Existing packed
-- weeks get them from the definitions (fill_packed_hours_other), as in 180.
SET LOCAL statement_timeout = 0;

ALTER TABLE packed_hours_other
    ADD COLUMN first_time bigint[],
    ADD COLUMN durations  jsonb[];
ALTER TABLE packed_hours_other
    ALTER COLUMN first_time SET STORAGE MAIN, ALTER COLUMN first_time SET COMPRESSION lz4,
    ALTER COLUMN durations SET STORAGE MAIN, ALTER COLUMN durations SET COMPRESSION lz4;

ALTER TABLE rollup_day_other
    ADD COLUMN first_time timestamptz,
    ADD COLUMN durations  jsonb;
