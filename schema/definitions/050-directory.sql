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

-- Keeps device_presence (schema/034-device-presence.sql): a row per assigned device with
-- online_until = last_uplink_at + its offline threshold. Re-runnable.
--
-- A deleted device loses its row by the foreign key (ON DELETE CASCADE).
-- devices: statement-level with transition tables (bulk loads and moves cost a few
-- set-based statements). A device that stops being assigned loses its row; an assigned one
-- is upserted with its state's last uplink, and an update that changes nothing presence
-- cares about writes nothing. The device_state rows are share-locked first, so an uplink
-- committing concurrently is either seen here or finds the row this statement writes
-- (the ingest trigger below updates it after its own device_state update).
CREATE OR REPLACE FUNCTION device_presence_devices() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        DELETE FROM device_presence p USING new_rows n
         WHERE p.device_num = n.num AND n.status <> 'assigned';
    END IF;
    PERFORM 1 FROM device_state ds JOIN new_rows n ON n.num = ds.device_num
     WHERE n.status = 'assigned'
     ORDER BY ds.device_num
       FOR SHARE OF ds;
    INSERT INTO device_presence AS p (device_num, id, partner_id, sub_account_id, network_id,
                                      site_id, name, offline_minutes, online_until)
    SELECT n.num, n.id, n.partner_id, n.sub_account_id, n.network_id, n.site_id, n.name,
           n.offline_threshold_minutes,
           ds.last_uplink_at + make_interval(mins => n.offline_threshold_minutes)
      FROM new_rows n
      LEFT JOIN device_state ds ON ds.device_num = n.num
     WHERE n.status = 'assigned'
    ON CONFLICT (device_num) DO UPDATE
       SET id = EXCLUDED.id, partner_id = EXCLUDED.partner_id,
           sub_account_id = EXCLUDED.sub_account_id, network_id = EXCLUDED.network_id,
           site_id = EXCLUDED.site_id, name = EXCLUDED.name,
           offline_minutes = EXCLUDED.offline_minutes, online_until = EXCLUDED.online_until
     WHERE (p.id, p.partner_id, p.sub_account_id, p.network_id, p.site_id, p.name,
            p.offline_minutes, p.online_until)
           IS DISTINCT FROM
           (EXCLUDED.id, EXCLUDED.partner_id, EXCLUDED.sub_account_id, EXCLUDED.network_id,
            EXCLUDED.site_id, EXCLUDED.name, EXCLUDED.offline_minutes, EXCLUDED.online_until);
    RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER device_presence_insert AFTER INSERT ON devices
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION device_presence_devices();
CREATE OR REPLACE TRIGGER device_presence_update AFTER UPDATE ON devices
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION device_presence_devices();

-- device_state, the ingest path: row-level, and only when last_uplink_at moves (a status
-- message, a gateway's lastSeenAt or a new /latest body alone fire nothing). A device that
-- is not assigned has no row, so the update finds nothing.
CREATE OR REPLACE FUNCTION device_presence_uplink() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        UPDATE device_presence SET online_until = NULL
         WHERE device_num = OLD.device_num AND online_until IS NOT NULL;
    ELSE
        UPDATE device_presence
           SET online_until = NEW.last_uplink_at + make_interval(mins => offline_minutes)
         WHERE device_num = NEW.device_num
           AND online_until IS DISTINCT FROM
               NEW.last_uplink_at + make_interval(mins => offline_minutes);
    END IF;
    RETURN NULL;
END;
$$;

CREATE OR REPLACE FUNCTION device_presence_state_truncated() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE device_presence SET online_until = NULL WHERE online_until IS NOT NULL;
    RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER device_presence_state_insert AFTER INSERT ON device_state
    FOR EACH ROW WHEN (NEW.last_uplink_at IS NOT NULL)
    EXECUTE FUNCTION device_presence_uplink();
CREATE OR REPLACE TRIGGER device_presence_state_update AFTER UPDATE OF last_uplink_at
    ON device_state
    FOR EACH ROW WHEN (OLD.last_uplink_at IS DISTINCT FROM NEW.last_uplink_at)
    EXECUTE FUNCTION device_presence_uplink();
CREATE OR REPLACE TRIGGER device_presence_state_delete AFTER DELETE ON device_state
    FOR EACH ROW EXECUTE FUNCTION device_presence_uplink();
CREATE OR REPLACE TRIGGER device_presence_state_truncated AFTER TRUNCATE ON device_state
    FOR EACH STATEMENT EXECUTE FUNCTION device_presence_state_truncated();
-- Deletes every trace of a device's telemetry (decisions D16), in the caller's transaction.
CREATE OR REPLACE FUNCTION delete_device_telemetry(p_device_num integer) RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
    DELETE FROM readings_num WHERE device_num = p_device_num;
    DELETE FROM readings_other WHERE device_num = p_device_num;
    DELETE FROM packed_num WHERE device_num = p_device_num;
    DELETE FROM packed_other WHERE device_num = p_device_num;
    DELETE FROM rollup_day_num WHERE device_num = p_device_num;
    DELETE FROM rollup_day_other WHERE device_num = p_device_num;
    DELETE FROM device_state WHERE device_num = p_device_num;
    DELETE FROM device_alerts WHERE device_num = p_device_num;
    DELETE FROM downlink_queue WHERE device_num = p_device_num;
END;
$$;

