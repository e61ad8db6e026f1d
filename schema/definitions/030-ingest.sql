-- The ingest write path (api-spec 2.3, 2.4; decisions D11, D15, D17, D18): the one SQL
-- function family behind every stored uplink, live (app/telemetry/batch.py), one by one
-- (the batch fallback), replayed from a world file or loaded by the benchmarks. Python
-- (app/telemetry/pipeline.py) matches, coerces, calibrates and computes formula and
-- mapping values; everything else happens here, in the caller's transaction, so a batch
-- of live uplinks costs one round trip. Re-runnable: applied on every migrate.
--
-- Lock order of every ingest path: device (share), dedup row, device state, and last the
-- gateway rows (touch_gateways, in num order), so concurrent batches never deadlock.

-- Step "admit", the checks every ingest event starts with: the integration token still
-- belongs to the partner (the one token check of the transaction; NULL on the world-file
-- path), the device is the partner's and assigned, and the event was not stored before.
-- The device row is share-locked so that a concurrent move to inventory (D16) either
-- waits for this event or makes it a 404. outcome: 'stored', 'duplicate', 'not_found' or
-- 'unauthorized'; device_id and site_num (0 = none) when admitted.
CREATE OR REPLACE FUNCTION ingest_admit(
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
CREATE OR REPLACE FUNCTION lock_device_state(p_device_num integer) RETURNS device_state
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

-- Step "alerts" of uplink p_uplink of a batch (the rule arrays are flat, with the index
-- of their uplink in p_rule_uplink). Alerts follow the newest reading of their field: only
-- a reading at least as new as the stored one of that field (p_field_state, before this
-- uplink) may raise or clear them. Returns the rules it raised and cleared (NULL: none),
-- which step "events" announces.
CREATE OR REPLACE FUNCTION ingest_uplink_alerts(
    p_uplink        integer,
    p_device_num    integer,
    p_time          timestamptz,
    p_field_state   jsonb,
    p_rule_uplink   integer[],
    p_rule_ids      integer[],
    p_rule_fields   text[],
    p_rule_breaks   boolean[],
    p_rule_levels   text[],
    OUT raised      integer[],
    OUT cleared     integer[]
)
LANGUAGE plpgsql
AS $$
BEGIN
    WITH gone AS (
    DELETE FROM device_alerts a
     USING unnest(p_rule_uplink, p_rule_ids, p_rule_fields, p_rule_breaks) AS r (u, id, f, b)
     WHERE r.u = p_uplink AND a.device_num = p_device_num AND a.rule_id = r.id AND NOT r.b
       AND (p_field_state -> r.f IS NULL OR (p_field_state -> r.f ->> 't')::timestamptz <= p_time)
    RETURNING a.rule_id)
    SELECT array_agg(rule_id) INTO cleared FROM gone;
    WITH added AS (
    INSERT INTO device_alerts (device_num, rule_id, level, since)
    SELECT p_device_num, r.id, r.l, p_time
      FROM unnest(p_rule_uplink, p_rule_ids, p_rule_fields, p_rule_breaks, p_rule_levels)
           AS r (u, id, f, b, l)
     WHERE r.u = p_uplink AND r.b
       AND (p_field_state -> r.f IS NULL OR (p_field_state -> r.f ->> 't')::timestamptz <= p_time)
    ON CONFLICT DO NOTHING
    RETURNING rule_id)
    SELECT array_agg(rule_id) INTO raised FROM added;
END;
$$;

-- Step "state" of one admitted uplink: field state, signal quality, battery and the
-- stored /latest body and ETag (latest_body, schema/definitions/020-latest.sql), on the
-- device_state row st (locked by the caller, as read before this uplink). Arguments as
-- computed by app/telemetry/pipeline.py (UplinkRecord):
--   p_values         identifier -> stored value of this uplink (decoded after calibration,
--                    formula and mapping outputs); p_derived (a JSON array) names the
--                    derived ones
--   p_static         static values and formulas over them (shown before any uplink);
--                    p_static_derived (a JSON array) names the derived ones
--   p_has_derived    whether /latest carries `derived` at all (D10, api-spec 2.4)
--   p_signal         D15 signal quality of the best gateway, or NULL without rxInfo
--   p_battery        the battery_pct field's value (rounded, clamped), or NULL
CREATE OR REPLACE FUNCTION ingest_uplink_state(
    st                  device_state,
    p_device_id         uuid,
    p_time              timestamptz,
    p_values            jsonb,
    p_derived           jsonb,
    p_static            jsonb,
    p_static_derived    jsonb,
    p_has_derived       boolean,
    p_retain            boolean,
    p_signal            integer,
    p_battery           integer
) RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
    old_fs      jsonb := st.field_state;
    fs          jsonb;
    fresh       jsonb;
    newest      timestamptz := GREATEST(st.last_uplink_at, p_time);
    time_text   text := rfc3339(p_time);
    sq          integer;
    vals        jsonb;
    retained    jsonb;
    derived     jsonb;
    v_battery   jsonb := st.battery;
    body        bytea;
BEGIN
    -- Per field, the newest stored value and the time it was reported: what retain last
    -- value carries. A late uplink only fills in fields whose stored value is older.
    SELECT COALESCE(jsonb_object_agg(n.key, jsonb_build_object(
               'v', n.value, 't', time_text, 'd', p_derived ? n.key)), '{}')
      INTO fresh
      FROM jsonb_each(p_values) AS n
     WHERE old_fs -> n.key IS NULL OR (old_fs -> n.key ->> 't')::timestamptz <= p_time;
    fs := old_fs || fresh;

    sq := CASE WHEN p_signal IS NOT NULL AND p_time >= COALESCE(st.last_uplink_at, p_time)
               THEN p_signal ELSE st.signal_quality END;

    -- /latest shows the fields of the newest uplink, or with retain last value every
    -- field with the times of those older than the newest uplink.
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
    derived := COALESCE((SELECT jsonb_object_agg(k, p_static -> k)
                           FROM jsonb_array_elements_text(p_static_derived) AS k
                          WHERE p_static ? k), '{}')
               || COALESCE(derived, '{}');
    body := latest_body(p_device_id, newest, p_static || COALESCE(vals, '{}'), sq, retained,
                        CASE WHEN p_has_derived THEN derived END);

    -- Battery: the newest reading of either source wins; on equal times the status source.
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
           latest_body = body,
           latest_etag = latest_etag(body)
     WHERE device_num = st.device_num;
END;
$$;

-- Step "readings": the raw rows of many uplinks, one statement per kind (numbers, other
-- values). p_sites[u] is the site num of uplink u (0 = none), NULL for an uplink that was
-- not admitted (its readings are skipped); readings are flat arrays with the index of
-- their uplink. Nothing else is written per reading: the daily rollups are materialised by
-- the packing job when it packs a closed week (schema/definitions/035-packing.sql), and
-- reads take the raw rows of the open week as they are.
-- Generated: one INSERT per kind from one template, in static PL/pgSQL (planned once per
-- session like any other).
DO $generate$
DECLARE
    readings constant text := $t$
    IF cardinality(p_%1$s_fields) > 0 THEN
        INSERT INTO readings_%1$s (device_num, field_num, time, value, site_num)
        SELECT p_device_num[y.u], y.f, p_time[y.u], y.v, p_sites[y.u]
          FROM unnest(p_%1$s_uplink, p_%1$s_fields, p_%1$s_values) AS y (u, f, v)
         WHERE p_sites[y.u] IS NOT NULL;
    END IF;$t$;
BEGIN
    EXECUTE format($f$
CREATE OR REPLACE FUNCTION record_readings(
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
AS $body$
BEGIN%s%s
END;
$body$;$f$, format(readings, 'num'), format(readings, 'other'));
END;
$generate$;

-- The readings of one uplink at one site (tests and tools that write readings directly):
-- the batch function above with a batch of one.
CREATE OR REPLACE FUNCTION record_readings(
    p_device_num    integer,
    p_site_num      integer,
    p_time          timestamptz,
    p_num_fields    integer[],
    p_num_values    double precision[],
    p_other_fields  integer[],
    p_other_values  jsonb[]
) RETURNS void
LANGUAGE sql
AS $$
    SELECT record_readings(ARRAY[p_device_num], ARRAY[p_site_num], ARRAY[p_time],
                           array_fill(1, ARRAY[cardinality(p_num_fields)]), p_num_fields,
                           p_num_values, array_fill(1, ARRAY[cardinality(p_other_fields)]),
                           p_other_fields, p_other_values)
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

-- THE write path of uplinks: stores a batch of uplinks in the caller's transaction and
-- returns the outcome of each, in order. Live ingest groups the uplinks that arrive while a
-- previous batch commits (app/telemetry/batch.py); the fallback, world replay and bulk
-- loads pass a batch of one. Uplinks come sorted by device and time, so locks are taken in
-- one global order. Every argument is one column of app/telemetry/pipeline.py's
-- UplinkRecord (`record_columns` builds them): per-uplink arrays indexed 1..n (p_derived,
-- p_static_derived and p_gateways are JSON arrays of string arrays, p_meta a JSON array
-- of {fPort, fCnt}); rules and readings are flat, with the index of their uplink.
--
-- The steps of an uplink, in order:
--   1. admit      ingest_admit: token, device, de-duplication ('stored' or why not)
--   2. state      lock_device_state, ingest_uplink_alerts, ingest_uplink_state: alerts,
--                 field state, signal, battery, the stored /latest body and ETag
--   3. events     webhook_uplink (schema/definitions/080-webhooks.sql): device.uplink and
--                 device.alert.raised/.cleared into the webhook outbox, in this
--                 transaction (one index probe when the partner has no endpoint). The
--                 NOTIFY that wakes the dispatcher is deferred past the commit, since one
--                 inside the transaction serialises the commits of concurrent batches: live
--                 ingest sends it after its commit (app/telemetry/batch.py, through
--                 app/webhooks/nudge.py); otherwise the dispatcher's tick (1 s) finds them
--   4. readings   record_readings: the raw readings of every admitted uplink
--   5. gateways   touch_gateways: lastSeenAt of the relaying gateways, last (lock order)
CREATE OR REPLACE FUNCTION ingest_uplinks(
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
    p_meta              jsonb,
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
    p_other_values      jsonb[]
) RETURNS text[]
LANGUAGE plpgsql
AS $$
DECLARE
    n           integer := cardinality(p_device_num);
    outcomes    text[] := '{}';
    sites       integer[] := '{}';
    adm         record;
    st          device_state;
    raised      integer[];
    cleared     integer[];
    has_rules   boolean := cardinality(p_rule_ids) > 0;
    gw          text[];
    gw_partner  uuid[] := '{}';
    gw_eui      text[] := '{}';
    gw_time     timestamptz[] := '{}';
BEGIN
    -- The network server is answered only after this is durable, whatever the session says.
    SET LOCAL synchronous_commit = on;
    PERFORM set_config('telemetry.webhooks_defer_notify', 'on', true);
    FOR i IN 1..n LOOP
        -- 1. admit
        SELECT * INTO adm
          FROM ingest_admit(p_token_hash[i], p_partner_id[i], p_device_num[i], p_dedup_key[i]);
        outcomes := outcomes || adm.outcome;
        sites := sites || CASE WHEN adm.outcome = 'stored' THEN adm.site_num END;
        CONTINUE WHEN adm.outcome <> 'stored';

        -- 2. state
        st := lock_device_state(p_device_num[i]);
        raised := NULL;
        cleared := NULL;
        IF has_rules THEN
            SELECT a.raised, a.cleared INTO raised, cleared
              FROM ingest_uplink_alerts(i, p_device_num[i], p_time[i], st.field_state,
                                        p_rule_uplink, p_rule_ids, p_rule_fields,
                                        p_rule_breaks, p_rule_levels) AS a;
        END IF;
        PERFORM ingest_uplink_state(st, adm.device_id, p_time[i], p_values[i],
                                    p_derived -> (i - 1), p_static[i], p_static_derived -> (i - 1),
                                    p_has_derived[i], p_retain[i], p_signal[i], p_battery[i]);

        -- 3. events
        PERFORM webhook_uplink(p_partner_id[i], p_device_num[i], p_time[i], p_meta -> (i - 1),
                               p_values[i], raised, cleared);

        IF jsonb_array_length(p_gateways -> (i - 1)) > 0 THEN
            gw := ARRAY(SELECT jsonb_array_elements_text(p_gateways -> (i - 1)));
            gw_eui := gw_eui || gw;
            gw_partner := gw_partner || array_fill(p_partner_id[i], ARRAY[cardinality(gw)]);
            gw_time := gw_time || array_fill(p_time[i], ARRAY[cardinality(gw)]);
        END IF;
    END LOOP;
    -- 4. readings
    PERFORM record_readings(p_device_num, sites, p_time, p_num_uplink, p_num_fields,
                            p_num_values, p_other_uplink, p_other_fields, p_other_values);
    -- 5. gateways
    PERFORM touch_gateways(gw_partner, gw_eui, gw_time);
    RETURN outcomes;
END;
$$;

-- A status, join or location message (p_kind). Moves lastSeenAt; a status message may
-- carry a battery reading (p_battery: {state, value}), a location message a location.
CREATE OR REPLACE FUNCTION ingest_event(
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
    adm         record;
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
    -- Events out (schema/definitions/080-webhooks.sql), in this transaction.
    PERFORM webhook_ingest_event(
        p_partner_id, p_device_num, p_kind, p_time, st.battery, v_battery,
        CASE WHEN st.reported_location_at IS NULL OR st.reported_location_at <= p_time
             THEN p_location END);
    RETURN 'stored';
END;
$$;
