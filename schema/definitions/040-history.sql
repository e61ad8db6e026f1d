-- Retention of our own (issue 4). The Apache edition has no retention policies, so a
-- periodic job (app/history/retention.py: a task in every app worker, and
-- `telemetry retention run`) calls this function. It drops whole chunks of readings and
-- rollups that no plan may read any more: older than the longest plan retention plus a
-- margin, so that a daily rollup bucket straddling a cutoff is never lost. Per-plan
-- cutoffs are enforced by the history queries; this only gives the disk back.
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
    SELECT max(retention_days) INTO longest FROM partners;
    IF longest IS NULL THEN
        RETURN 0;
    END IF;
    cutoff := now() - make_interval(days => longest) - p_margin;
    FOREACH hypertable IN ARRAY ARRAY['readings_num', 'readings_other', 'rollup_hour_num',
                                      'rollup_hour_other', 'rollup_day_num', 'rollup_day_other']
    LOOP
        dropped := dropped + (SELECT count(*) FROM drop_chunks(hypertable::regclass,
                                                               older_than => cutoff));
    END LOOP;
    RETURN dropped;
END;
$$;
