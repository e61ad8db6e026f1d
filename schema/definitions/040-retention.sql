-- Retention of our own (issue 4). The Apache edition has no retention policies, so a
-- periodic job (app/history/maintenance.py: a task in every app worker, and
-- `telemetry retention run`) calls this function. It drops whole chunks of readings,
-- packed weeks and daily rollups that no plan may read any more: older than the longest
-- plan retention plus a margin, so that a daily rollup bucket straddling a cutoff is never
-- lost; a packed chunk waits until its weeks end before the cutoff's own week (a week's
-- readings reach one period past its start). Per-plan cutoffs are enforced by the history queries;
-- this only gives the disk back.
-- Only one runner at a time: the others find the lock taken and return NULL.
CREATE OR REPLACE FUNCTION history_retention_run(p_margin interval DEFAULT interval '2 days')
RETURNS integer
LANGUAGE plpgsql
AS $$
DECLARE
    longest     integer;
    cutoff      timestamptz;
    dropped     integer := 0;
    hypertable  text;
BEGIN
    IF NOT pg_try_advisory_xact_lock(7301994212) THEN
        RETURN NULL;
    END IF;
    DELETE FROM ingest_dedup WHERE received_at < now() - interval '7 days';
    SELECT max(retention_days) INTO longest FROM partners;
    IF longest IS NULL THEN
        RETURN 0;
    END IF;
    cutoff := now() - make_interval(days => longest) - p_margin;
    FOREACH hypertable IN ARRAY ARRAY['readings_num', 'readings_other', 'rollup_day_num',
                                      'rollup_day_other', 'packed_num', 'packed_other',
                                      'packed_hours_num', 'packed_hours_other']
    LOOP
        dropped := dropped + (SELECT count(*) FROM drop_chunks(
            hypertable::regclass,
            older_than => CASE WHEN hypertable LIKE 'packed%' THEN packed_period(cutoff)
                               ELSE cutoff END));
    END LOOP;
    RETURN dropped;
END;
$$;

-- Compacts the oldest closed chunk not compacted yet (see schema/020-history-layout.sql):
-- CLUSTER on its primary key (packed weeks, their hourly partials, daily rollups; raw
-- chunks are packed and dropped instead), at fillfactor 100 because a closed chunk
-- receives almost no inserts. One chunk per call and per transaction, so the ACCESS
-- EXCLUSIVE lock of CLUSTER is held for one chunk only.
-- Returns the chunk compacted, or NULL when there is none (or another runner is busy).
CREATE OR REPLACE FUNCTION history_compact_next(p_closed_for interval DEFAULT interval '1 day')
RETURNS text
LANGUAGE plpgsql
AS $$
DECLARE
    target  text;
    idx     text;
BEGIN
    IF NOT pg_try_advisory_xact_lock(7301994212) THEN
        RETURN NULL;
    END IF;
    SELECT format('%I.%I', c.chunk_schema, c.chunk_name) INTO target
      FROM timescaledb_information.chunks c
     WHERE c.hypertable_name IN ('packed_num', 'packed_other', 'packed_hours_num',
                                 'packed_hours_other', 'rollup_day_num', 'rollup_day_other')
       AND c.range_end < now() - p_closed_for
       AND NOT EXISTS (SELECT 1 FROM history_compacted_chunks h
                        WHERE h.chunk = format('%I.%I', c.chunk_schema, c.chunk_name))
     ORDER BY c.range_end, c.chunk_name
     LIMIT 1;
    IF target IS NULL THEN
        RETURN NULL;
    END IF;
    SELECT quote_ident(ic.relname) INTO idx
      FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
     WHERE i.indrelid = target::regclass
     ORDER BY i.indisprimary DESC, ic.relname
     LIMIT 1;
    IF idx IS NOT NULL THEN
        EXECUTE format('ALTER INDEX %s.%s SET (fillfactor = 100)',
                       split_part(target, '.', 1), idx);
        EXECUTE format('CLUSTER %s USING %s', target, idx);
    END IF;
    INSERT INTO history_compacted_chunks (chunk) VALUES (target) ON CONFLICT DO NOTHING;
    RETURN target;
END;
$$;
