-- Rollup chunk intervals, measured (revises part 3 of 020-history-layout.sql; new chunks
-- only). A daily-over-a-year query planned 1.7 ms with 30-day daily chunks (13 chunks to
-- expand) against 0.6 ms with 365-day ones (2), while a year of one series' daily rows
-- is only 365 rows even when scattered. Daily rollups go back to 365 days; hourly ones
-- take 30 days, so a 30-day hourly query expands two chunks and the not yet compacted
-- tail stays within a month.
SELECT set_chunk_time_interval('rollup_hour_num', INTERVAL '30 days');
SELECT set_chunk_time_interval('rollup_hour_other', INTERVAL '30 days');
SELECT set_chunk_time_interval('rollup_day_num', INTERVAL '365 days');
SELECT set_chunk_time_interval('rollup_day_other', INTERVAL '365 days');
