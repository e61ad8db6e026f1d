-- The write side of the ingest pipeline (api-spec 2.3, 2.4; decisions D11, D15, D17, D18).
-- Python matches, coerces, calibrates and computes formula and mapping values; each event
-- is then stored by ONE call of one of these functions, in one implicit transaction, so a
-- live uplink costs one database round trip. Re-runnable: applied on every migrate.

-- Timestamps exactly as msgspec writes them (RFC 3339 UTC with Z; a fraction only when
-- there is one), so stored bodies and API responses look alike.
CREATE OR REPLACE FUNCTION rfc3339(p_time timestamptz) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT CASE WHEN date_part('microseconds', p_time)::bigint % 1000000 = 0
                THEN to_char(p_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
                ELSE to_char(p_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') END
$$;

-- The checks every ingest event starts with: the integration token still belongs to the
-- partner (NULL on the world-file path), the device is the partner's and assigned, and the
-- event was not stored before. The device row is share-locked so that a concurrent move
-- to inventory (D16) either waits for this event or makes it a 404.
-- Returns the device's site num (0 = none), or NULL with the outcome in p_outcome.
DROP FUNCTION IF EXISTS ingest_admit(bytea, uuid, integer, text);
CREATE FUNCTION ingest_admit(
    p_token_hash    bytea,
    p_partner_id    uuid,
    p_device_num    integer,
    p_dedup_key     text,
    OUT outcome     text,
    OUT device_id   uuid,
    OUT site_num    integer
)
LANGUAGE plpgsql
AS $$
DECLARE
    v_status text;
BEGIN
    IF p_token_hash IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM integrations i
         WHERE i.token_hash = p_token_hash AND i.partner_id = p_partner_id) THEN
        outcome := 'unauthorized';
        RETURN;
    END IF;
    SELECT d.id, d.status, COALESCE(s.num, 0) INTO device_id, v_status, site_num
      FROM devices d LEFT JOIN sites s ON s.id = d.site_id
     WHERE d.num = p_device_num AND d.partner_id = p_partner_id
       FOR SHARE OF d;
    IF NOT FOUND OR v_status <> 'assigned' THEN
        outcome := 'not_found';
        RETURN;
    END IF;
    IF p_dedup_key IS NOT NULL THEN
        INSERT INTO ingest_dedup (partner_id, deduplication_id)
        VALUES (p_partner_id, p_dedup_key)
        ON CONFLICT DO NOTHING;
        IF NOT FOUND THEN
            outcome := 'duplicate';
            RETURN;
        END IF;
    END IF;
    outcome := 'stored';
END;
$$;

-- The device_state row of a device, locked for this transaction, created when missing.
DROP FUNCTION IF EXISTS lock_device_state(integer);
CREATE FUNCTION lock_device_state(p_device_num integer) RETURNS device_state
LANGUAGE plpgsql
AS $$
DECLARE
    st device_state;
BEGIN
    SELECT * INTO st FROM device_state WHERE device_num = p_device_num FOR UPDATE;
    IF NOT FOUND THEN
        INSERT INTO device_state (device_num) VALUES (p_device_num) ON CONFLICT DO NOTHING;
        SELECT * INTO st FROM device_state WHERE device_num = p_device_num FOR UPDATE;
    END IF;
    RETURN st;
END;
$$;

-- Everything of one uplink except its readings. Arguments computed by
-- app/telemetry/pipeline.py:
--   p_values         identifier -> stored value of this uplink (decoded after calibration,
--                    formula and mapping outputs); p_derived names the derived ones
--   p_static         static values and formulas over them (shown before any uplink);
--                    p_static_derived names the derived ones
--   p_has_derived    whether /latest carries `derived` at all (D10, api-spec 2.4)
--   p_signal         D15 signal quality of the best gateway, or NULL without rxInfo
--   p_battery        the battery_pct field's value (rounded, clamped), or NULL
--   p_rule_*         the alert rules whose field is in this uplink, and whether it breaks them
-- outcome: 'stored', 'duplicate', 'not_found' or 'unauthorized'; site_num: where the
-- device is (0 = none), for the readings. The gateways that relayed the uplink are moved
-- by the caller, last (touch_gateways).
DROP FUNCTION IF EXISTS ingest_uplink_state(bytea, uuid, integer, text, timestamptz, jsonb,
    text[], jsonb, text[], boolean, boolean, integer, integer, text[], integer[], text[],
    boolean[], text[]);
DROP FUNCTION IF EXISTS ingest_uplink_state(bytea, uuid, integer, text, timestamptz, jsonb,
    text[], jsonb, text[], boolean, boolean, integer, integer, integer[], text[],
    boolean[], text[]);
DROP FUNCTION IF EXISTS ingest_uplink_state(bytea, uuid, integer, text, timestamptz, jsonb,
    text[], jsonb, text[], boolean, boolean, integer, integer, integer[], text[],
    boolean[], text[], jsonb);
CREATE FUNCTION ingest_uplink_state(
    p_token_hash        bytea,
    p_partner_id        uuid,
    p_device_num        integer,
    p_dedup_key         text,
    p_time              timestamptz,
    p_values            jsonb,
    p_derived           text[],
    p_static            jsonb,
    p_static_derived    text[],
    p_has_derived       boolean,
    p_retain            boolean,
    p_signal            integer,
    p_battery           integer,
    p_rule_ids          integer[],
    p_rule_fields       text[],
    p_rule_breaks       boolean[],
    p_rule_levels       text[],
    p_meta              jsonb,
    OUT outcome         text,
    OUT site_num        integer
)
LANGUAGE plpgsql
AS $$
DECLARE
    adm         record;
    st          device_state;
    old_fs      jsonb;
    fs          jsonb;
    fresh       jsonb;
    newest      timestamptz;
    time_text   text := rfc3339(p_time);
    sq          integer;
    vals        jsonb;
    retained    jsonb;
    derived     jsonb;
    v_battery   jsonb;
    body        text;
    body_bytes  bytea;
    raised      integer[];
    cleared     integer[];
BEGIN
    -- The network server is answered only after this is durable, whatever the session says.
    SET LOCAL synchronous_commit = on;
    SELECT * INTO adm FROM ingest_admit(p_token_hash, p_partner_id, p_device_num, p_dedup_key);
    outcome := adm.outcome;
    site_num := adm.site_num;
    IF adm.outcome <> 'stored' THEN
        RETURN;
    END IF;

    -- Lock order of every ingest path: device (share), dedup row, device state, then the
    -- device's rollup rows (written by the caller), and last the gateway rows
    -- (touch_gateways, in num order), so concurrent batches never deadlock.
    st := lock_device_state(p_device_num);
    old_fs := st.field_state;

    -- Alerts follow the newest reading of their field: only a reading at least as new as
    -- the stored one of that field may raise or clear them.
    IF cardinality(p_rule_ids) > 0 THEN
        WITH gone AS (
        DELETE FROM device_alerts a
         USING unnest(p_rule_ids, p_rule_fields, p_rule_breaks) AS r (id, f, b)
         WHERE a.device_num = p_device_num AND a.rule_id = r.id AND NOT r.b
           AND (old_fs -> r.f IS NULL OR (old_fs -> r.f ->> 't')::timestamptz <= p_time)
        RETURNING a.rule_id)
        SELECT array_agg(rule_id) INTO cleared FROM gone;
        WITH added AS (
        INSERT INTO device_alerts (device_num, rule_id, level, since)
        SELECT p_device_num, r.id, r.l, p_time
          FROM unnest(p_rule_ids, p_rule_fields, p_rule_breaks, p_rule_levels) AS r (id, f, b, l)
         WHERE r.b AND (old_fs -> r.f IS NULL OR (old_fs -> r.f ->> 't')::timestamptz <= p_time)
        ON CONFLICT DO NOTHING
        RETURNING rule_id)
        SELECT array_agg(rule_id) INTO raised FROM added;
    END IF;

    -- Per field, the newest stored value and the time it was reported: what retain last
    -- value carries. A late uplink only fills in fields whose stored value is older.
    SELECT COALESCE(jsonb_object_agg(n.key, jsonb_build_object(
               'v', n.value, 't', time_text, 'd', n.key = ANY (p_derived))), '{}')
      INTO fresh
      FROM jsonb_each(p_values) AS n
     WHERE old_fs -> n.key IS NULL OR (old_fs -> n.key ->> 't')::timestamptz <= p_time;
    fs := old_fs || fresh;

    newest := GREATEST(st.last_uplink_at, p_time);
    sq := CASE WHEN p_signal IS NOT NULL AND p_time >= COALESCE(st.last_uplink_at, p_time)
               THEN p_signal ELSE st.signal_quality END;

    IF p_retain THEN
        SELECT jsonb_object_agg(e.key, e.value -> 'v'),
               jsonb_object_agg(e.key, e.value -> 't')
                   FILTER (WHERE (e.value ->> 't')::timestamptz < newest),
               jsonb_object_agg(e.key, e.value -> 'v') FILTER (WHERE (e.value ->> 'd')::boolean)
          INTO vals, retained, derived
          FROM jsonb_each(fs) AS e;
    ELSE
        SELECT jsonb_object_agg(e.key, e.value -> 'v'),
               jsonb_object_agg(e.key, e.value -> 'v') FILTER (WHERE (e.value ->> 'd')::boolean)
          INTO vals, derived
          FROM jsonb_each(fs) AS e
         WHERE (e.value ->> 't')::timestamptz = newest;
    END IF;
    vals := p_static || COALESCE(vals, '{}');
    derived := COALESCE((SELECT jsonb_object_agg(k, p_static -> k)
                           FROM unnest(p_static_derived) AS k WHERE p_static ? k), '{}')
               || COALESCE(derived, '{}');

    body := '{"deviceId":"' || adm.device_id::text || '","time":"' || rfc3339(newest)
            || '","values":' || vals::text || ',"signalQuality":' || COALESCE(sq::text, 'null')
            || CASE WHEN retained IS NOT NULL THEN ',"retained":' || retained::text ELSE '' END
            || CASE WHEN p_has_derived THEN ',"derived":' || derived::text ELSE '' END
            || '}';
    body_bytes := convert_to(body, 'UTF8');

    -- Battery: the newest reading of either source wins; on equal times the status source.
    v_battery := st.battery;
    IF p_battery IS NOT NULL AND (v_battery IS NULL
            OR (v_battery ->> 'at')::timestamptz < p_time
            OR ((v_battery ->> 'at')::timestamptz = p_time AND v_battery ->> 'source' = 'field')) THEN
        v_battery := jsonb_build_object('state', 'pct', 'value', p_battery, 'at', time_text,
                                        'source', 'field');
    END IF;

    UPDATE device_state
       SET last_seen_at = GREATEST(last_seen_at, p_time),
           last_uplink_at = newest,
           signal_quality = sq,
           battery = v_battery,
           field_state = fs,
           latest_body = body_bytes,
           latest_etag = '"' || md5(body_bytes) || '"'
     WHERE device_num = p_device_num;

    -- Events out (schema/definitions/080-webhooks.sql); one index probe without endpoints.
    PERFORM webhook_uplink(p_partner_id, p_device_num, p_time, vals, retained,
                           CASE WHEN p_has_derived THEN derived END, sq, v_battery, p_meta,
                           p_values, raised, cleared);
END;
$$;

-- lastSeenAt of the gateways that relayed admitted uplinks (D17: its newest stats message
-- or relayed uplink): per gateway the newest time of (p_partner_id[i], p_gateway_eui[i],
-- p_time[i]), moved forward only (GREATEST semantics: a late uplink never moves it back).
-- It waits for a gateway row held by a concurrent transaction instead of skipping it (a
-- skipped newer uplink left lastSeenAt behind). No deadlock: every ingest transaction
-- calls this as its last statement, so a transaction holding a gateway row takes no other
-- lock afterwards, and the gateway rows are locked in one global order (num). A row is
-- held only from here to commit, and once per batch, not once per uplink. (A world-file
-- load replays its events in one transaction and so calls this mid-transaction; should it
-- ever deadlock with live ingest, PostgreSQL aborts one side, and app/telemetry/batch.py
-- retries a failed batch uplink by uplink.)
CREATE OR REPLACE FUNCTION touch_gateways(
    p_partner_id    uuid[],
    p_gateway_eui   text[],
    p_time          timestamptz[]
) RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
    v_nums  integer[];
    v_times timestamptz[];
BEGIN
    IF cardinality(p_gateway_eui) = 0 THEN
        RETURN;
    END IF;
    SELECT array_agg(s.num ORDER BY s.num), array_agg(s.t ORDER BY s.num)
      INTO v_nums, v_times
      FROM (SELECT x.num, max(y.t) AS t
              FROM unnest(p_partner_id, p_gateway_eui, p_time) AS y (p, e, t)
              JOIN gateways x ON x.partner_id = y.p AND x.gateway_eui = y.e
             GROUP BY x.num) s
     WHERE s.t IS NOT NULL;
    IF v_nums IS NULL THEN
        RETURN;
    END IF;
    -- Lock in num order (rows already newer are neither locked nor written; after a wait
    -- the condition is checked again against the committed row).
    PERFORM 1
       FROM gateways g JOIN unnest(v_nums, v_times) AS z (num, t) ON g.num = z.num
      WHERE g.last_seen_at IS NULL OR g.last_seen_at < z.t
      ORDER BY g.num
        FOR UPDATE OF g;
    UPDATE gateways g SET last_seen_at = GREATEST(g.last_seen_at, z.t)
      FROM unnest(v_nums, v_times) AS z (num, t)
     WHERE g.num = z.num AND (g.last_seen_at IS NULL OR g.last_seen_at < z.t);
END;
$$;

-- One uplink: its state, then its readings and rollups (record_readings). Used by the
-- world-file replay; returns the outcome.
DROP FUNCTION IF EXISTS ingest_uplink(bytea, uuid, integer, text, timestamptz, integer[],
    double precision[], integer[], jsonb[], jsonb, text[], jsonb, text[], boolean, boolean,
    integer, integer, text[], integer[], text[], boolean[], text[]);
DROP FUNCTION IF EXISTS ingest_uplink(bytea, uuid, integer, text, timestamptz, integer[],
    double precision[], integer[], jsonb[], jsonb, text[], jsonb, text[], boolean, boolean,
    integer, integer, text[], integer[], text[], boolean[], text[], jsonb);
CREATE FUNCTION ingest_uplink(
    p_token_hash        bytea,
    p_partner_id        uuid,
    p_device_num        integer,
    p_dedup_key         text,
    p_time              timestamptz,
    p_num_fields        integer[],
    p_num_values        double precision[],
    p_other_fields      integer[],
    p_other_values      jsonb[],
    p_values            jsonb,
    p_derived           text[],
    p_static            jsonb,
    p_static_derived    text[],
    p_has_derived       boolean,
    p_retain            boolean,
    p_signal            integer,
    p_battery           integer,
    p_gateways          text[],
    p_rule_ids          integer[],
    p_rule_fields       text[],
    p_rule_breaks       boolean[],
    p_rule_levels       text[],
    p_meta              jsonb
) RETURNS text
LANGUAGE plpgsql
AS $$
DECLARE
    r record;
BEGIN
    SELECT * INTO r FROM ingest_uplink_state(
        p_token_hash, p_partner_id, p_device_num, p_dedup_key, p_time, p_values, p_derived,
        p_static, p_static_derived, p_has_derived, p_retain, p_signal, p_battery,
        p_rule_ids, p_rule_fields, p_rule_breaks, p_rule_levels, p_meta);
    IF r.outcome = 'stored' THEN
        PERFORM record_readings(p_device_num, r.site_num, p_time, p_num_fields, p_num_values,
                                p_other_fields, p_other_values);
        IF cardinality(p_gateways) > 0 THEN
            PERFORM touch_gateways(array_fill(p_partner_id, ARRAY[cardinality(p_gateways)]),
                                   p_gateways,
                                   array_fill(p_time, ARRAY[cardinality(p_gateways)]));
        END IF;
    END IF;
    RETURN r.outcome;
END;
$$;

-- Many uplinks in one transaction and one round trip (app/telemetry/batch.py groups the
-- uplinks that arrive while a previous batch is being committed). Per uplink the same
-- state logic as one uplink alone; the readings of all admitted uplinks are then written
-- with one statement per table, which is what makes a batch cheaper than its uplinks one
-- by one. Uplinks come sorted by device and time, so locks are taken in one global order.
-- Per-uplink arrays are indexed 1..n; p_derived, p_static_derived and p_gateways are JSON
-- arrays (one array of strings per uplink); rules and readings are flat, with the index of
-- their uplink.
-- Returns the outcome of every uplink, in order.
-- (The first signature, with jsonb[] where JSON arrays are now passed, is dropped too.)
DROP FUNCTION IF EXISTS ingest_uplinks(bytea[], uuid[], integer[], text[], timestamptz[],
    jsonb[], jsonb[], jsonb[], jsonb[], boolean[], boolean[], integer[], integer[], jsonb[],
    integer[], integer[], text[], boolean[], text[], integer[], integer[], double precision[],
    integer[], integer[], jsonb[]);
DROP FUNCTION IF EXISTS ingest_uplinks(bytea[], uuid[], integer[], text[], timestamptz[],
    jsonb[], jsonb, jsonb[], jsonb, boolean[], boolean[], integer[], integer[], jsonb,
    integer[], integer[], text[], boolean[], text[], integer[], integer[], double precision[],
    integer[], integer[], jsonb[]);
DROP FUNCTION IF EXISTS ingest_uplinks(bytea[], uuid[], integer[], text[], timestamptz[],
    jsonb[], jsonb, jsonb[], jsonb, boolean[], boolean[], integer[], integer[], jsonb,
    integer[], integer[], text[], boolean[], text[], integer[], integer[], double precision[],
    integer[], integer[], jsonb[], jsonb);
CREATE FUNCTION ingest_uplinks(
    p_token_hash        bytea[],
    p_partner_id        uuid[],
    p_device_num        integer[],
    p_dedup_key         text[],
    p_time              timestamptz[],
    p_values            jsonb[],
    p_derived           jsonb,
    p_static            jsonb[],
    p_static_derived    jsonb,
    p_has_derived       boolean[],
    p_retain            boolean[],
    p_signal            integer[],
    p_battery           integer[],
    p_gateways          jsonb,
    p_rule_uplink       integer[],
    p_rule_ids          integer[],
    p_rule_fields       text[],
    p_rule_breaks       boolean[],
    p_rule_levels       text[],
    p_num_uplink        integer[],
    p_num_fields        integer[],
    p_num_values        double precision[],
    p_other_uplink      integer[],
    p_other_fields      integer[],
    p_other_values      jsonb[],
    p_meta              jsonb
) RETURNS text[]
LANGUAGE plpgsql
AS $$
DECLARE
    n           integer := cardinality(p_device_num);
    outcomes    text[] := '{}';
    sites       integer[] := '{}';
    r           record;
    has_rules   boolean := cardinality(p_rule_ids) > 0;
    gw          text[];
    gw_partner  uuid[] := '{}';
    gw_eui      text[] := '{}';
    gw_time     timestamptz[] := '{}';
BEGIN
    -- The caller wakes the webhook dispatcher after commit (app/webhooks/nudge.py).
    PERFORM set_config('telemetry.webhooks_defer_notify', 'on', true);
    FOR i IN 1..n LOOP
        SELECT * INTO r FROM ingest_uplink_state(
            p_token_hash[i], p_partner_id[i], p_device_num[i], p_dedup_key[i], p_time[i],
            p_values[i],
            ARRAY(SELECT jsonb_array_elements_text(p_derived -> (i - 1))),
            p_static[i],
            ARRAY(SELECT jsonb_array_elements_text(p_static_derived -> (i - 1))),
            p_has_derived[i], p_retain[i], p_signal[i], p_battery[i],
            CASE WHEN has_rules THEN ARRAY(SELECT x.v FROM unnest(p_rule_uplink, p_rule_ids) AS x (u, v) WHERE x.u = i) ELSE '{}' END,
            CASE WHEN has_rules THEN ARRAY(SELECT x.v FROM unnest(p_rule_uplink, p_rule_fields) AS x (u, v) WHERE x.u = i) ELSE '{}' END,
            CASE WHEN has_rules THEN ARRAY(SELECT x.v FROM unnest(p_rule_uplink, p_rule_breaks) AS x (u, v) WHERE x.u = i) ELSE '{}' END,
            CASE WHEN has_rules THEN ARRAY(SELECT x.v FROM unnest(p_rule_uplink, p_rule_levels) AS x (u, v) WHERE x.u = i) ELSE '{}' END,
            p_meta -> (i - 1));
        outcomes := outcomes || r.outcome;
        sites := sites || CASE WHEN r.outcome = 'stored' THEN r.site_num END;
        IF r.outcome = 'stored' AND jsonb_array_length(p_gateways -> (i - 1)) > 0 THEN
            gw := ARRAY(SELECT jsonb_array_elements_text(p_gateways -> (i - 1)));
            gw_eui := gw_eui || gw;
            gw_partner := gw_partner || array_fill(p_partner_id[i], ARRAY[cardinality(gw)]);
            gw_time := gw_time || array_fill(p_time[i], ARRAY[cardinality(gw)]);
        END IF;
    END LOOP;
    PERFORM record_readings_many(p_device_num, sites, p_time, p_num_uplink, p_num_fields,
                                 p_num_values, p_other_uplink, p_other_fields, p_other_values);
    -- Last: the gateway rows are locked after every other lock (touch_gateways).
    PERFORM touch_gateways(gw_partner, gw_eui, gw_time);
    RETURN outcomes;
END;
$$;

-- The readings of many uplinks with their rollups: the same rows and the same rollup
-- rules as record_readings (schema/definitions/020-readings.sql: mergeable partials, the
-- last value is the greatest (time, value)), one statement per table. p_sites[u] is NULL
-- for an uplink that was not admitted; its readings are skipped.
CREATE OR REPLACE FUNCTION record_readings_many(
    p_device_num    integer[],
    p_sites         integer[],
    p_time          timestamptz[],
    p_num_uplink    integer[],
    p_num_fields    integer[],
    p_num_values    double precision[],
    p_other_uplink  integer[],
    p_other_fields  integer[],
    p_other_values  jsonb[]
) RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
    IF cardinality(p_num_fields) > 0 THEN
        WITH x (d, f, t, v, s) AS MATERIALIZED (
        SELECT p_device_num[y.u], y.f, p_time[y.u], y.v, p_sites[y.u]
          FROM unnest(p_num_uplink, p_num_fields, p_num_values) AS y (u, f, v)
         WHERE p_sites[y.u] IS NOT NULL),
        raw AS (
        INSERT INTO readings_num (device_num, field_num, time, value, site_num)
        SELECT d, f, t, v, s FROM x),
        hourly AS (
        INSERT INTO rollup_hour_num AS r
               (device_num, field_num, site_num, bucket, n, sum, min, max, last_time, last_value)
        SELECT d, f, s, time_bucket('1 hour', t), count(*), sum(v), min(v), max(v), max(t),
               (array_agg(v ORDER BY t DESC, v DESC))[1]
          FROM x GROUP BY d, f, s, time_bucket('1 hour', t)
         ORDER BY d, f, time_bucket('1 hour', t), s
        ON CONFLICT (device_num, field_num, bucket, site_num) DO UPDATE
           SET n = r.n + excluded.n, sum = r.sum + excluded.sum,
               min = LEAST(r.min, excluded.min), max = GREATEST(r.max, excluded.max),
               last_value = CASE WHEN (excluded.last_time, excluded.last_value)
                                      > (r.last_time, r.last_value)
                                 THEN excluded.last_value ELSE r.last_value END,
               last_time = GREATEST(r.last_time, excluded.last_time))

        INSERT INTO rollup_day_num AS r
               (device_num, field_num, site_num, bucket, n, sum, min, max, last_time, last_value)
        SELECT d, f, s, time_bucket('1 day', t), count(*), sum(v), min(v), max(v), max(t),
               (array_agg(v ORDER BY t DESC, v DESC))[1]
          FROM x GROUP BY d, f, s, time_bucket('1 day', t)
         ORDER BY d, f, time_bucket('1 day', t), s
        ON CONFLICT (device_num, field_num, bucket, site_num) DO UPDATE
           SET n = r.n + excluded.n, sum = r.sum + excluded.sum,
               min = LEAST(r.min, excluded.min), max = GREATEST(r.max, excluded.max),
               last_value = CASE WHEN (excluded.last_time, excluded.last_value)
                                      > (r.last_time, r.last_value)
                                 THEN excluded.last_value ELSE r.last_value END,
               last_time = GREATEST(r.last_time, excluded.last_time);
    END IF;

    IF cardinality(p_other_fields) > 0 THEN
        WITH x (d, f, t, v, s) AS MATERIALIZED (
        SELECT p_device_num[y.u], y.f, p_time[y.u], y.v, p_sites[y.u]
          FROM unnest(p_other_uplink, p_other_fields, p_other_values) AS y (u, f, v)
         WHERE p_sites[y.u] IS NOT NULL),
        raw AS (
        INSERT INTO readings_other (device_num, field_num, time, value, site_num)
        SELECT d, f, t, v, s FROM x),
        hourly AS (
        INSERT INTO rollup_hour_other AS r
               (device_num, field_num, site_num, bucket, n, last_time, last_value)
        SELECT d, f, s, time_bucket('1 hour', t), count(*), max(t),
               (array_agg(v ORDER BY t DESC, v DESC))[1]
          FROM x GROUP BY d, f, s, time_bucket('1 hour', t)
         ORDER BY d, f, time_bucket('1 hour', t), s
        ON CONFLICT (device_num, field_num, bucket, site_num) DO UPDATE
           SET n = r.n + excluded.n,
               last_value = CASE WHEN (excluded.last_time, excluded.last_value)
                                      > (r.last_time, r.last_value)
                                 THEN excluded.last_value ELSE r.last_value END,
               last_time = GREATEST(r.last_time, excluded.last_time))

        INSERT INTO rollup_day_other AS r
               (device_num, field_num, site_num, bucket, n, last_time, last_value)
        SELECT d, f, s, time_bucket('1 day', t), count(*), max(t),
               (array_agg(v ORDER BY t DESC, v DESC))[1]
          FROM x GROUP BY d, f, s, time_bucket('1 day', t)
         ORDER BY d, f, time_bucket('1 day', t), s
        ON CONFLICT (device_num, field_num, bucket, site_num) DO UPDATE
           SET n = r.n + excluded.n,
               last_value = CASE WHEN (excluded.last_time, excluded.last_value)
                                      > (r.last_time, r.last_value)
                                 THEN excluded.last_value ELSE r.last_value END,
               last_time = GREATEST(r.last_time, excluded.last_time);
    END IF;
END;
$$;

-- A status, join or location message (p_kind). Moves lastSeenAt; a status message may
-- carry a battery reading (p_battery: {state, value}), a location message a location.
DROP FUNCTION IF EXISTS ingest_event(bytea, uuid, integer, text, timestamptz, text, jsonb, jsonb);
CREATE FUNCTION ingest_event(
    p_token_hash    bytea,
    p_partner_id    uuid,
    p_device_num    integer,
    p_dedup_key     text,
    p_time          timestamptz,
    p_kind          text,
    p_battery       jsonb,
    p_location      jsonb
) RETURNS text
LANGUAGE plpgsql
AS $$
DECLARE
    adm     record;
    st          device_state;
    v_battery   jsonb;
BEGIN
    SET LOCAL synchronous_commit = on;
    SELECT * INTO adm FROM ingest_admit(p_token_hash, p_partner_id, p_device_num, p_dedup_key);
    IF adm.outcome <> 'stored' THEN
        RETURN adm.outcome;
    END IF;
    st := lock_device_state(p_device_num);
    v_battery := st.battery;
    IF p_battery IS NOT NULL
       AND (v_battery IS NULL OR (v_battery ->> 'at')::timestamptz <= p_time) THEN
        v_battery := p_battery || jsonb_build_object('at', rfc3339(p_time), 'source', 'status');
    END IF;
    UPDATE device_state
       SET last_seen_at = GREATEST(last_seen_at, p_time),
           battery = v_battery,
           reported_location = CASE WHEN p_location IS NOT NULL
                                     AND (reported_location_at IS NULL OR reported_location_at <= p_time)
                                    THEN p_location ELSE reported_location END,
           reported_location_at = CASE WHEN p_location IS NOT NULL
                                     AND (reported_location_at IS NULL OR reported_location_at <= p_time)
                                    THEN p_time ELSE reported_location_at END
     WHERE device_num = p_device_num;
    -- Events out (schema/definitions/080-webhooks.sql); one index probe without endpoints.
    PERFORM webhook_ingest_event(
        p_partner_id, p_device_num, p_kind, p_time, st.battery, v_battery,
        CASE WHEN st.reported_location_at IS NULL OR st.reported_location_at <= p_time
             THEN p_location END);
    RETURN 'stored';
END;
$$;

-- GET /devices/{id}/latest in one round trip: api_authenticate (401, 429), then, for an
-- accepted key with the scope, the device by id or DevEUI in the key's scope with its
-- stored body. Inside a function each statement keeps a simple cached plan; the caller
-- checks scope and status in the order of D3.
DROP FUNCTION IF EXISTS api_latest(bytea, uuid, text);
CREATE FUNCTION api_latest(p_key_hash bytea, p_device_id uuid, p_dev_eui text)
RETURNS TABLE (
    outcome             text,
    key_id              uuid,
    partner_id          uuid,
    sub_account_id      uuid,
    scopes              text[],
    api_write           boolean,
    retention_days      integer,
    networks_enabled    boolean,
    multi_site_enabled  boolean,
    rate_limit          integer,
    remaining           integer,
    retry_after         integer,
    device_num          integer,
    status              text,
    latest_body         bytea,
    latest_etag         text
)
LANGUAGE plpgsql
AS $$
DECLARE
    a           record;
    v_num       integer;
    v_status    text;
BEGIN
    SELECT * INTO a FROM api_authenticate(p_key_hash);
    IF a.outcome = 'ok' AND 'telemetry:read' = ANY (a.scopes) THEN
        IF p_device_id IS NOT NULL THEN
            SELECT d.num, d.status INTO v_num, v_status FROM devices d
             WHERE d.id = p_device_id AND d.partner_id = a.partner_id
               AND (a.sub_account_id IS NULL
                    OR (d.sub_account_id = a.sub_account_id AND d.status = 'assigned'));
        ELSIF p_dev_eui IS NOT NULL THEN
            SELECT d.num, d.status INTO v_num, v_status FROM devices d
             WHERE d.dev_eui = p_dev_eui AND d.partner_id = a.partner_id
               AND (a.sub_account_id IS NULL
                    OR (d.sub_account_id = a.sub_account_id AND d.status = 'assigned'));
        END IF;
    END IF;
    outcome := a.outcome; key_id := a.key_id; partner_id := a.partner_id;
    sub_account_id := a.sub_account_id; scopes := a.scopes; api_write := a.api_write;
    retention_days := a.retention_days; networks_enabled := a.networks_enabled;
    multi_site_enabled := a.multi_site_enabled; rate_limit := a.rate_limit;
    remaining := a.remaining; retry_after := a.retry_after;
    IF v_num IS NOT NULL THEN
        device_num := v_num;
        status := v_status;
        SELECT s.latest_body, s.latest_etag INTO latest_body, latest_etag
          FROM device_state s WHERE s.device_num = v_num;
    END IF;
    RETURN NEXT;
END;
$$;
