-- History layout (issue 4), measured on 50 devices x 5 series x 365 days at 15 minutes.
--
-- 1. The series indexes of the readings go ascending in time. Readings arrive roughly in
--    time order, so each new entry lands right after the newest entry of its series, in
--    the middle of the index; btree splits such a page after the new item when the last
--    key column increases under equal leading columns, but not when it decreases. Bytes
--    of index per reading under time-ordered inserts: 54.5 (time DESC) -> 45.2 (time ASC).
--    Newest-first reads scan the index backwards at the same cost.
-- 2. Closed chunks are compacted once by the maintenance job (history_compact_next in
--    schema/definitions/040-history.sql): CLUSTER on the series index with fillfactor 100
--    puts a series' readings on adjacent pages (a year of daily rollups of one series: 293
--    heap pages -> 4) and packs the index (raw: 55 -> 28.5 bytes per reading). This table
--    remembers which chunks are done.
-- Rebuilding the indexes of a loaded database takes longer than the default timeout.
SET LOCAL statement_timeout = 0;
DROP INDEX readings_num_series;
CREATE INDEX readings_num_series ON readings_num (device_num, field_num, time);
DROP INDEX readings_other_series;
CREATE INDEX readings_other_series ON readings_other (device_num, field_num, time);

CREATE TABLE history_compacted_chunks (
    chunk           text PRIMARY KEY,       -- schema-qualified chunk table name
    compacted_at    timestamptz NOT NULL DEFAULT now()
);

-- 3. Shorter chunks for the rollups (new chunks only). Rows maintained at ingest land in
--    time order, one per series and bucket, so an open chunk scatters a series over as
--    many pages as it has buckets until compaction. Closing hourly chunks weekly and daily
--    ones monthly bounds that scattered tail to the last week / month, while a year of
--    daily rollups still spans only 13 chunks.
SELECT set_chunk_time_interval('rollup_hour_num', INTERVAL '7 days');
SELECT set_chunk_time_interval('rollup_hour_other', INTERVAL '7 days');
SELECT set_chunk_time_interval('rollup_day_num', INTERVAL '30 days');
SELECT set_chunk_time_interval('rollup_day_other', INTERVAL '30 days');
