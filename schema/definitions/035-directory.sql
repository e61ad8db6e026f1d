-- Keeps device_counts (schema/032-device-counts.sql) in step with `devices`. Statement-level
-- triggers with transition tables, so a bulk load costs one upsert per (partner,
-- sub-account, status) rather than one per row; an update that moves nothing (a renamed
-- device, a new location) writes nothing. Re-runnable.

CREATE OR REPLACE FUNCTION device_counts_apply() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO device_counts AS c (partner_id, sub_account_id, status, n)
        SELECT partner_id, COALESCE(sub_account_id, '00000000-0000-0000-0000-000000000000'),
               status, count(*)
          FROM new_rows GROUP BY 1, 2, 3
        ON CONFLICT (partner_id, sub_account_id, status) DO UPDATE SET n = c.n + EXCLUDED.n;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO device_counts AS c (partner_id, sub_account_id, status, n)
        SELECT partner_id, COALESCE(sub_account_id, '00000000-0000-0000-0000-000000000000'),
               status, -count(*)
          FROM old_rows GROUP BY 1, 2, 3
        ON CONFLICT (partner_id, sub_account_id, status) DO UPDATE SET n = c.n + EXCLUDED.n;
    ELSE
        INSERT INTO device_counts AS c (partner_id, sub_account_id, status, n)
        SELECT partner_id, sub_account_id, status, sum(delta)
          FROM (SELECT partner_id,
                       COALESCE(sub_account_id, '00000000-0000-0000-0000-000000000000') AS sub_account_id,
                       status, 1 AS delta
                  FROM new_rows
                UNION ALL
                SELECT partner_id,
                       COALESCE(sub_account_id, '00000000-0000-0000-0000-000000000000'),
                       status, -1
                  FROM old_rows) moves
         GROUP BY 1, 2, 3
        HAVING sum(delta) <> 0
        ON CONFLICT (partner_id, sub_account_id, status) DO UPDATE SET n = c.n + EXCLUDED.n;
    END IF;
    RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER device_counts_insert AFTER INSERT ON devices
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION device_counts_apply();
CREATE OR REPLACE TRIGGER device_counts_update AFTER UPDATE ON devices
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION device_counts_apply();
CREATE OR REPLACE TRIGGER device_counts_delete AFTER DELETE ON devices
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION device_counts_apply();
