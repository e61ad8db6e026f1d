-- The directory (api-spec 2.2, 2.6, 2.10, 4.3, 4.4, 4.8, decisions D9, D17, D18): the
-- rules of the device, gateway and network lists and of the fleet export, each written
-- once, and the triggers that keep the directory's summary tables. Re-runnable.
--
-- The functions are LANGUAGE sql, so PostgreSQL inlines them into the calling query: with
-- the filter values known at planning (custom plans) the clauses of absent filters fold
-- away, and the indexes on partner, network, site and name drive the plans as if the
-- rules were written out in each query.

-- Online, the rule written once: a device is online until its last uplink plus its own
-- offline threshold (minutes). device_online below, device_presence.online_until (kept by
-- the triggers at the end of this file) and the webhook events device.online and
-- device.offline (080-webhooks.sql) all read it from these two functions.
CREATE OR REPLACE FUNCTION offline_threshold(p_offline_minutes integer) RETURNS interval
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT make_interval(mins => p_offline_minutes)
$$;

-- STABLE, not IMMUTABLE, as timestamptz + interval is: PostgreSQL inlines a function only
-- when its body is no more volatile than it is declared.
CREATE OR REPLACE FUNCTION device_online_until(p_last_uplink_at timestamptz,
                                               p_offline_minutes integer)
RETURNS timestamptz
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT p_last_uplink_at + offline_threshold(p_offline_minutes)
$$;

-- Online now, for a device online until p_online_until (device_presence keeps it): NULL
-- when it is unknown (never reported), as a test in a WHERE clause reads it. Inlined, it
-- is the plain comparison the (scope, online_until) indexes of device_presence serve.
CREATE OR REPLACE FUNCTION online_now(p_online_until timestamptz) RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT p_online_until >= now()
$$;

-- Online now, for a device with its last uplink and threshold: false when it never sent one.
CREATE OR REPLACE FUNCTION device_online(p_last_uplink_at timestamptz, p_offline_minutes integer)
RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT COALESCE(online_now(device_online_until(p_last_uplink_at, p_offline_minutes)), false)
$$;

-- Online, for a gateway: assigned and seen (stats or a relayed uplink) within 30 minutes.
CREATE OR REPLACE FUNCTION gateway_online(p_status text, p_last_seen_at timestamptz)
RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT COALESCE(p_status = 'assigned' AND p_last_seen_at >= now() - interval '30 minutes',
                    false)
$$;

-- A device as the directory shows it: live fields only while it is assigned; networkId and
-- siteId only where the feature is on for its sub-account (account_features); the newer
-- of the reported and the manually set location.
CREATE OR REPLACE VIEW device_directory AS
SELECT d.id, d.dev_eui, d.name, d.serial_number, d.status, d.sub_account_id, d.profile_id,
       CASE WHEN f.networks THEN d.network_id END AS network_id,
       CASE WHEN f.multi_site THEN d.site_id END AS site_id,
       d.status = 'assigned'
           AND device_online(ds.last_uplink_at, d.offline_threshold_minutes) AS online,
       CASE WHEN d.status = 'assigned' THEN ds.signal_quality END AS signal_quality,
       CASE WHEN d.status = 'assigned' THEN ds.battery END AS battery,
       CASE WHEN d.status = 'assigned' THEN ds.last_seen_at END AS last_seen_at,
       CASE WHEN d.status = 'assigned' THEN ds.last_uplink_at END AS last_uplink_at,
       CASE WHEN d.status <> 'assigned' THEN NULL
            WHEN ds.reported_location IS NULL THEN d.manual_location
            WHEN d.manual_location IS NULL THEN ds.reported_location
            WHEN COALESCE(ds.reported_location_at, '-infinity')
                 >= COALESCE(d.manual_location_at, '-infinity') THEN ds.reported_location
            ELSE d.manual_location END AS location
  FROM devices d
 CROSS JOIN LATERAL account_features(d.partner_id, d.sub_account_id) f
  LEFT JOIN device_state ds ON ds.device_num = d.num;

-- A gateway as the directory shows it: inventory and archived gateways show no live
-- fields but keep a manually set location; the reported one wins while assigned.
CREATE OR REPLACE VIEW gateway_directory AS
SELECT g.id, g.gateway_eui, g.name, g.status, g.sub_account_id,
       CASE WHEN f.networks THEN g.network_id END AS network_id,
       CASE WHEN f.multi_site THEN g.site_id END AS site_id,
       gateway_online(g.status, g.last_seen_at) AS online,
       CASE WHEN g.status = 'assigned' THEN g.last_seen_at END AS last_seen_at,
       CASE WHEN g.status = 'assigned' THEN g.last_stats_at END AS last_stats_at,
       CASE WHEN g.status = 'assigned' THEN COALESCE(g.reported_location, g.manual_location)
            ELSE g.manual_location END AS location,
       g.partner_id
  FROM gateways g
 CROSS JOIN LATERAL account_features(g.partner_id, g.sub_account_id) f;

-- The health rollups of a network: its members are the assigned devices and gateways in
-- it (inventory items have no network; archived ones are not live). A device is alerting
-- with at least one active alert of any level. The device counts read device_presence
-- (schema/034): one row per assigned device with online_until = last uplink + its
-- threshold, so members, online count and alert probe are one index-only scan of
-- device_presence_network (network_id, online_until) INCLUDE (device_num); device_alerts
-- holds active alerts only, so it is hashed once per query rather than probed per member.
CREATE OR REPLACE FUNCTION network_health(p_network_id uuid)
RETURNS TABLE (
    device_count            bigint,
    device_online_count     bigint,
    device_alerting_count   bigint,
    gateway_count           bigint,
    gateway_online_count    bigint
)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT dev.device_count, dev.device_online_count, dev.device_alerting_count,
           gw.gateway_count, gw.gateway_online_count
      FROM (SELECT count(*) AS device_count,
                   count(*) FILTER (WHERE online_now(p.online_until)) AS device_online_count,
                   count(*) FILTER (
                       WHERE p.device_num IN (SELECT a.device_num FROM device_alerts a)
                   ) AS device_alerting_count
              FROM device_presence p
             WHERE p.network_id = p_network_id) dev,
           (SELECT count(*) AS gateway_count,
                   count(*) FILTER (WHERE gateway_online(g.status, g.last_seen_at))
                       AS gateway_online_count
              FROM gateways g
             WHERE g.network_id = p_network_id AND g.status = 'assigned') gw
$$;

-- A network as the directory shows it, with its rollups: siteId only where multi-site is
-- on for its sub-account.
CREATE OR REPLACE VIEW network_directory AS
SELECT n.id, n.name, n.sub_account_id,
       CASE WHEN f.multi_site THEN n.site_id END AS site_id,
       h.device_count, h.device_online_count, h.device_alerting_count,
       h.gateway_count, h.gateway_online_count
  FROM networks n
  JOIN sub_account_features f ON f.sub_account_id = n.sub_account_id
 CROSS JOIN LATERAL network_health(n.id) h;

-- A multicast group as the directory shows it: deviceCount counts every member, whatever
-- its status (inventory members stay listed).
CREATE OR REPLACE VIEW multicast_group_directory AS
SELECT g.id, g.name, g.sub_account_id,
       (SELECT count(*) FROM multicast_members m WHERE m.group_id = g.id) AS device_count
  FROM multicast_groups g;

-- A device profile as the directory shows it, with the size of its field catalog.
CREATE OR REPLACE VIEW profile_directory AS
SELECT dp.id, dp.name, dp.retain_last_value,
       (SELECT count(*) FROM profile_fields f WHERE f.profile_id = dp.id) AS field_count,
       dp.partner_id
  FROM device_profiles dp;

-- The profiles a key sees (D10): every profile of a partner key's partner; for a
-- sub-account key only those its own assigned devices use.
CREATE OR REPLACE FUNCTION visible_profiles(p_partner_id uuid, p_key_sub_account_id uuid)
RETURNS SETOF profile_directory
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT dp.*
      FROM profile_directory dp
     WHERE dp.partner_id = p_partner_id
       AND (p_key_sub_account_id IS NULL
            OR EXISTS (SELECT 1 FROM devices d
                        WHERE d.sub_account_id = p_key_sub_account_id
                          AND d.status = 'assigned' AND d.profile_id = dp.id))
$$;

-- The network of a networkId filter: p_network_id if it is partner p_partner_id's and the
-- Networks feature is on for its sub-account (the sub-account of its members), else none.
CREATE OR REPLACE FUNCTION filter_network(p_partner_id uuid, p_network_id uuid)
RETURNS SETOF uuid
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT n.id
      FROM networks n
      JOIN sub_account_features f ON f.sub_account_id = n.sub_account_id
     WHERE n.id = p_network_id AND f.partner_id = p_partner_id AND f.networks
$$;

-- The sites of a siteId filter: p_site_id if it is partner p_partner_id's and multi-site
-- is on for its sub-account; with p_descendants (includeDescendants) its whole subtree,
-- which is at most 3 levels (D18).
CREATE OR REPLACE FUNCTION filter_sites(p_partner_id uuid, p_site_id uuid, p_descendants boolean)
RETURNS SETOF uuid
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    WITH root AS MATERIALIZED (
        SELECT s.id
          FROM sites s
          JOIN sub_account_features f ON f.sub_account_id = s.sub_account_id
         WHERE s.id = p_site_id AND f.partner_id = p_partner_id AND f.multi_site
    )
    SELECT id FROM root
    UNION ALL
    SELECT c.id FROM sites c WHERE p_descendants AND c.parent_site_id IN (SELECT id FROM root)
    UNION ALL
    SELECT g.id FROM sites c JOIN sites g ON g.parent_site_id = c.id
     WHERE p_descendants AND c.parent_site_id IN (SELECT id FROM root)
$$;

-- The accounts of partner p_partner_id where the feature p_feature ('networks' or
-- 'multi_site') is on: its sub-accounts, and the nil UUID for the partner itself (for its
-- inventory, which has no sub-account). Gathered once per query into an array (an
-- InitPlan), then probed per row, which is cheaper than resolving each row's features by
-- a join.
CREATE OR REPLACE FUNCTION feature_accounts(p_partner_id uuid, p_feature text)
RETURNS SETOF uuid
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT COALESCE(a.id, '00000000-0000-0000-0000-000000000000')
      FROM (SELECT sa.id FROM sub_accounts sa WHERE sa.partner_id = p_partner_id
            UNION ALL
            SELECT NULL::uuid) a
     CROSS JOIN LATERAL account_features(p_partner_id, a.id) f
     WHERE CASE p_feature WHEN 'networks' THEN f.networks WHEN 'multi_site' THEN f.multi_site END
$$;

-- The placement filters, for a device or gateway at p_network_id and p_site_id in
-- sub-account p_sub_account_id: networkId p_network (with p_in_network, whether the row's
-- network is filter_network's), networkId=none (p_no_network), siteId p_site (with
-- p_in_sites, whether the row's site is among filter_sites) and siteId=none (p_no_site).
-- "None" matches only in the accounts where the feature is on (p_network_accounts,
-- p_site_accounts: feature_accounts): elsewhere the field is hidden, not empty. The sets are
-- the caller's subqueries, evaluated only when their filter is given.
CREATE OR REPLACE FUNCTION placement_matches(
    p_network_id            uuid,
    p_site_id               uuid,
    p_sub_account_id        uuid,
    p_network               uuid,
    p_in_network            boolean,
    p_no_network            boolean,
    p_network_accounts      uuid[],
    p_site                  uuid,
    p_in_sites              boolean,
    p_no_site               boolean,
    p_site_accounts         uuid[]
) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT (p_network IS NULL OR (p_network_id = p_network AND p_in_network))
       AND (NOT p_no_network
            OR (p_network_id IS NULL
                AND COALESCE(p_sub_account_id, '00000000-0000-0000-0000-000000000000')
                    = ANY (p_network_accounts)))
       AND (p_site IS NULL OR p_in_sites)
       AND (NOT p_no_site
            OR (p_site_id IS NULL
                AND COALESCE(p_sub_account_id, '00000000-0000-0000-0000-000000000000')
                    = ANY (p_site_accounts)))
$$;

-- The search filter of the device list and export: p_pattern, a case-insensitive LIKE
-- pattern, on the name or the serial number; p_eui_pattern, the same search in the form
-- of a stored DevEUI (NULL when it cannot be part of one).
CREATE OR REPLACE FUNCTION device_search_matches(
    p_name text, p_serial_number text, p_dev_eui text, p_pattern text, p_eui_pattern text
) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT p_pattern IS NULL
        OR p_name ILIKE p_pattern
        OR p_serial_number ILIKE p_pattern
        OR (p_eui_pattern IS NOT NULL AND p_dev_eui LIKE p_eui_pattern)
$$;

-- The devices a key sees (tenant_sees; p_partner_id, p_key_sub_account_id) that match the
-- GET /devices filters, in the order of that route's parameters (sql/devices/devices.sql
-- list_devices); the export asks for its assigned devices with the same filters.
-- p_statuses NULL is every status; p_online is a probe of device_presence (schema/034: a
-- row per assigned device, online_until = last uplink + offline threshold), not a join of
-- the wide device_state.
CREATE OR REPLACE FUNCTION fleet_devices(
    p_partner_id            uuid,
    p_key_sub_account_id    uuid,
    p_sub_account_id        uuid,
    p_profile_id            uuid,
    p_network_id            uuid,
    p_no_network            boolean,
    p_statuses              text[],
    p_online                boolean,
    p_search                text,
    p_eui_search            text,
    p_site_id               uuid,
    p_no_site               boolean,
    p_descendants           boolean
) RETURNS SETOF devices
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT d.*
      FROM devices d
     WHERE tenant_sees(d.partner_id, d.sub_account_id, d.status, p_partner_id,
                       p_key_sub_account_id)
       AND (p_sub_account_id IS NULL OR d.sub_account_id = p_sub_account_id)
       AND (p_profile_id IS NULL OR d.profile_id = p_profile_id)
       AND (p_statuses IS NULL OR d.status = ANY (p_statuses))
       AND placement_matches(d.network_id, d.site_id, d.sub_account_id,
               p_network_id,
               d.network_id IN (SELECT n FROM filter_network(p_partner_id, p_network_id) n),
               p_no_network, ARRAY(SELECT a FROM feature_accounts(p_partner_id, 'networks') a),
               p_site_id,
               d.site_id IN (SELECT s
                               FROM filter_sites(p_partner_id, p_site_id, p_descendants) s),
               p_no_site, ARRAY(SELECT a FROM feature_accounts(p_partner_id, 'multi_site') a))
       AND (p_online IS NULL
            OR EXISTS (SELECT 1 FROM device_presence p
                        WHERE p.device_num = d.num AND online_now(p.online_until)) = p_online)
       AND device_search_matches(d.name, d.serial_number, d.dev_eui, p_search, p_eui_search)
$$;

-- device_counts (schema/032-device-counts.sql) kept in step with `devices`. Statement-level
-- triggers with transition tables, so a bulk load costs one upsert per (partner,
-- sub-account, status) rather than one per row; an update that moves nothing (a renamed
-- device, a new location) writes nothing.
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
           device_online_until(ds.last_uplink_at, n.offline_threshold_minutes)
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
-- is not assigned has no row, so the update finds nothing. A batch of live uplinks
-- (ingest_uplinks, schema/definitions/030-ingest.sql) updates the presence of all its
-- devices in one statement instead (the trigger was a third of the batch's writes) and
-- says so in telemetry.presence_by_batch, local to its transaction, while it writes the
-- rows; the condition reads it without calling the trigger.
CREATE OR REPLACE FUNCTION device_presence_uplink() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        UPDATE device_presence SET online_until = NULL
         WHERE device_num = OLD.device_num AND online_until IS NOT NULL;
    ELSE
        UPDATE device_presence
           SET online_until = device_online_until(NEW.last_uplink_at, offline_minutes)
         WHERE device_num = NEW.device_num
           AND online_until IS DISTINCT FROM
               device_online_until(NEW.last_uplink_at, offline_minutes);
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
    FOR EACH ROW WHEN (OLD.last_uplink_at IS DISTINCT FROM NEW.last_uplink_at
                       AND current_setting('telemetry.presence_by_batch', true)
                           IS DISTINCT FROM 'on')
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
    DELETE FROM packed_hours_num WHERE device_num = p_device_num;
    DELETE FROM packed_hours_other WHERE device_num = p_device_num;
    DELETE FROM rollup_day_num WHERE device_num = p_device_num;
    DELETE FROM rollup_day_other WHERE device_num = p_device_num;
    DELETE FROM device_state WHERE device_num = p_device_num;
    DELETE FROM device_alerts WHERE device_num = p_device_num;
    DELETE FROM downlink_queue WHERE device_num = p_device_num;
END;
$$;

