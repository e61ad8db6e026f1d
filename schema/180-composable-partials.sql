-- Partials that compose across buckets for increase, twa and integral (issue 26, item 2;
-- analytics.md section 3), the model being the Toolkit's counter_agg and time_weight: a
-- bucket's answer is the merge of its partials plus the boundary terms from the readings
-- around them. Each partial (an hour of a packed week, a day of the daily rollups)
-- therefore also keeps:
--
-- * when its first reading is (the value held before it covers the bucket up to there);
-- * its time-weighted integral from its first reading to its last, each reading holding
--   its value until the next (value x microseconds);
-- * its increase (reset-aware growth summed over its readings).
--
-- Hours (one array element per hour of the week, beside n, sum, min, max and last) keep
-- them so that a regular, reset-free week costs almost nothing: `integral` is NULL where
-- the hour's times are evenly spaced (it is then step x (sum - last value)), `increase`
-- holds the growth of each of the hour's readings over the reading before it in the week
-- (the week's first reading adds nothing) and is NULL where none of them is a reset (it is
-- then the hour's last value less the last value before it in the week, `first_value`
-- for the week's first hour); the whole `increase` array is NULL for fields that are not
-- counters when the week is packed (their increase is read from the readings). Days (one
-- row each) keep their first value and their own increase (growth after their first
-- reading) outright.
--
-- Existing packed weeks get them from the definitions (fill_packed_hours_<kind> rewrites
-- the partials of every week whose hours have none), on the migrate that installs this.
SET LOCAL statement_timeout = 0;

ALTER TABLE packed_hours_num
    ADD COLUMN first_time  bigint[],
    ADD COLUMN first_value double precision,
    ADD COLUMN increase    double precision[],
    ADD COLUMN integral    double precision[];
ALTER TABLE packed_hours_num
    ALTER COLUMN first_time SET STORAGE MAIN, ALTER COLUMN first_time SET COMPRESSION lz4,
    ALTER COLUMN increase SET STORAGE MAIN, ALTER COLUMN increase SET COMPRESSION lz4,
    ALTER COLUMN integral SET STORAGE MAIN, ALTER COLUMN integral SET COMPRESSION lz4;

ALTER TABLE rollup_day_num
    ADD COLUMN first_time  timestamptz,
    ADD COLUMN first_value double precision,
    ADD COLUMN increase    double precision,
    ADD COLUMN integral    double precision;
