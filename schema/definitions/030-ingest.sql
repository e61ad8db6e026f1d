-- The ingest write path (api-spec 2.3, 2.4; decisions D11, D15, D17, D18): the one SQL
-- function family behind every stored uplink, live (app/ingest/batch.py), one by one
-- (the batch fallback), replayed from a world file or loaded by the benchmarks. Python
-- (app/ingest/pipeline.py) matches, coerces, calibrates and computes formula and
-- mapping values into one `uplink_record` per uplink (the type, declared once:
-- schema/190-uplink-record.sql); everything else happens here, in the caller's
-- transaction, so a batch of live uplinks costs one round trip. Re-runnable: applied on
-- every migrate.
--
-- Lock order of every ingest path: device (share), dedup row, device state, and last the
-- gateway rows (touch_gateways, in num order), so concurrent batches never deadlock. A
-- batch takes each kind for all its uplinks at once, in num (dedup: key) order.

-- Step "alerts" of one uplink r. Alerts follow the newest reading of their field: only a
-- reading at least as new as the stored one of that field (p_field_state, before this
-- uplink) may raise or clear them. Returns the rules it raised and cleared (NULL: none),
-- which step "events" announces.
CREATE OR REPLACE FUNCTION ingest_uplink_alerts(
    r               uplink_record,
    p_field_state   jsonb,
    OUT raised      integer[],
    OUT cleared     integer[]
)
LANGUAGE plpgsql
AS $$
BEGIN
    WITH gone AS (
    DELETE FROM device_alerts a
     USING unnest(r.rule_ids, r.rule_fields, r.rule_breaks) AS x (id, f, b)
     WHERE a.device_num = r.device_num AND a.rule_id = x.id AND NOT x.b
       AND (p_field_state -> x.f IS NULL OR (p_field_state -> x.f ->> 't')::timestamptz <= r.time)
    RETURNING a.rule_id)
    SELECT array_agg(rule_id) INTO cleared FROM gone;
    WITH added AS (
    INSERT INTO device_alerts (device_num, rule_id, level, since)
    SELECT r.device_num, x.id, x.l, r.time
      FROM unnest(r.rule_ids, r.rule_fields, r.rule_breaks, r.rule_levels) AS x (id, f, b, l)
     WHERE x.b
       AND (p_field_state -> x.f IS NULL OR (p_field_state -> x.f ->> 't')::timestamptz <= r.time)
    ON CONFLICT DO NOTHING
    RETURNING rule_id)
    SELECT array_agg(rule_id) INTO raised FROM added;
END;
$$;

-- Step "state" of one admitted uplink r: its device's device_state row st (locked, as it
-- is before this uplink) as it is after it (`next`): field state, signal quality, battery
-- and the stored /latest body and ETag (latest_body, schema/definitions/020-latest.sql).
-- Writes nothing: ingest_uplinks writes the row once per device and batch. With p_event,
-- also what the device.uplink event shows of the state (`shown`: values, signalQuality,
-- retained, derived, as the body shows them), built from the same values as the body
-- rather than parsed back from it; otherwise `shown` is NULL.
-- One SELECT in a set-returning LANGUAGE sql function, so that PostgreSQL inlines it into
-- the query that calls it: ingest_uplinks computes the states of a whole batch in one
-- statement (a PL/pgSQL function called per uplink cost 150 us each, mostly the call).
-- `next` is built positionally in device_state's column order; a column added to
-- device_state makes the cast fail on every ingest rather than go unset.
CREATE OR REPLACE FUNCTION ingest_next_state(
    st          device_state,
    p_device_id uuid,
    r           uplink_record,
    p_event     boolean
) RETURNS TABLE (next device_state, shown jsonb)
LANGUAGE sql STABLE
AS $$
    SELECT ROW(st.device_num, GREATEST(st.last_seen_at, r.time), t.newest, w.signal, b.battery,
               st.reported_location, st.reported_location_at, f.fs, o.body,
               latest_etag(o.body))::device_state,
           CASE WHEN p_event THEN
               jsonb_build_object('values', w.vals, 'signalQuality', w.signal)
               || CASE WHEN v.retained IS NOT NULL
                       THEN jsonb_build_object('retained', v.retained) ELSE '{}' END
               || CASE WHEN w.derived IS NOT NULL
                       THEN jsonb_build_object('derived', w.derived) ELSE '{}' END
           END
      FROM (SELECT GREATEST(st.last_uplink_at, r.time) AS newest,
                   rfc3339(r.time) AS time_text,
                   -- In order (the common case) every field of the uplink is the newest of
                   -- its field.
                   st.last_uplink_at IS NULL OR st.last_uplink_at <= r.time AS in_order) AS t,
           LATERAL (SELECT CASE WHEN t.newest = r.time THEN t.time_text
                                ELSE rfc3339(t.newest) END AS newest_text) AS n,
           -- Per field, the newest stored value and the time it was reported: what retain
           -- last value carries. A late uplink only fills in fields whose stored value is
           -- older. /latest shows the fields of the newest uplink, or with retain last
           -- value every field with the times of those older than the newest uplink. A
           -- field's time is always rfc3339 text, so equal times are equal texts.
           LATERAL (SELECT st.field_state || COALESCE(jsonb_object_agg(e.key, jsonb_build_object(
                               'v', e.value, 't', t.time_text, 'd', e.key = ANY (r.derived))),
                           '{}') AS fs
                      FROM jsonb_each(r.shown_values) AS e
                     WHERE t.in_order OR st.field_state -> e.key IS NULL
                        OR (st.field_state -> e.key ->> 't')::timestamptz <= r.time) AS f,
           LATERAL (SELECT jsonb_object_agg(e.key, e.value -> 'v')
                               FILTER (WHERE r.retain OR e.value ->> 't' = n.newest_text) AS vals,
                           jsonb_object_agg(e.key, e.value -> 't')
                               FILTER (WHERE r.retain AND e.value ->> 't' <> n.newest_text
                                             AND (e.value ->> 't')::timestamptz < t.newest)
                               AS retained,
                           COALESCE((SELECT jsonb_object_agg(k, r.static_values -> k)
                                       FROM unnest(r.static_derived) AS k
                                      WHERE r.static_values ? k), '{}')
                           || COALESCE(jsonb_object_agg(e.key, e.value -> 'v')
                                           FILTER (WHERE (r.retain OR e.value ->> 't' = n.newest_text)
                                                         AND (e.value ->> 'd')::boolean), '{}')
                               AS derived
                      FROM jsonb_each(f.fs) AS e) AS v,
           LATERAL (SELECT r.static_values || COALESCE(v.vals, '{}') AS vals,
                           CASE WHEN r.has_derived THEN v.derived END AS derived,
                           CASE WHEN r.signal IS NOT NULL
                                     AND r.time >= COALESCE(st.last_uplink_at, r.time)
                                THEN r.signal::smallint ELSE st.signal_quality END AS signal) AS w,
           LATERAL (SELECT latest_body(p_device_id, t.newest, w.vals, w.signal, v.retained,
                                       w.derived) AS body) AS o,
           -- Battery: the newest reading of either source wins; on equal times the status
           -- source.
           LATERAL (SELECT CASE WHEN r.battery IS NOT NULL
                                     AND (st.battery IS NULL
                                          OR (st.battery ->> 'at')::timestamptz < r.time
                                          OR ((st.battery ->> 'at')::timestamptz = r.time
                                              AND st.battery ->> 'source' = 'field'))
                                THEN jsonb_build_object('state', 'pct', 'value', r.battery,
                                                        'at', t.time_text, 'source', 'field')
                                ELSE st.battery END AS battery) AS b
$$;
DROP FUNCTION IF EXISTS ingest_uplink_next_state(device_state, uuid, uplink_record, boolean);

-- Writes device_state rows computed by ingest_next_state (already locked).
-- PL/pgSQL, not SQL: its plan is then kept for the session instead of made per call.
CREATE OR REPLACE FUNCTION write_device_states(p_rows device_state[]) RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
    UPDATE device_state s
       SET last_seen_at = r.last_seen_at,
           last_uplink_at = r.last_uplink_at,
           signal_quality = r.signal_quality,
           battery = r.battery,
           field_state = r.field_state,
           latest_body = r.latest_body,
           latest_etag = r.latest_etag
      FROM unnest(p_rows) AS r
     WHERE s.device_num = r.device_num;
END;
$$;

-- Step "readings": the raw rows of many uplinks, one statement per kind (numbers, other
-- values). p_sites[u] is the site num of uplink u (0 = none), NULL for an uplink that was
-- not admitted (its readings are skipped). Nothing else is written per reading: the daily
-- rollups are materialised by the packing job when it packs a closed week
-- (schema/definitions/035-packing.sql), and reads take the raw rows of the open week as
-- they are.
-- Generated: one INSERT per kind from one template, in static PL/pgSQL (planned once per
-- session like any other). The function the block creates, by its template (the text
-- constant below; checked against a migrated database by
-- tests/integration/test_schema_upgrade.py):
-- generated from readings: record_readings
DO $generate$
DECLARE
    readings constant text := $t$
    INSERT INTO readings_%1$s (device_num, field_num, time, value, site_num)
    SELECT u.device_num, y.f, u.time, y.v, p_sites[u.ordinality]
      FROM unnest(p_uplinks) WITH ORDINALITY AS u,
           unnest(u.%1$s_fields, u.%1$s_values) AS y (f, v)
     WHERE p_sites[u.ordinality] IS NOT NULL;$t$;
BEGIN
    EXECUTE format($f$
CREATE OR REPLACE FUNCTION record_readings(
    p_uplinks       uplink_record[],
    p_sites         integer[]
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
LANGUAGE plpgsql
AS $$
DECLARE
    r   uplink_record;
BEGIN
    r.device_num := p_device_num;
    r.time := p_time;
    r.num_fields := p_num_fields;
    r.num_values := p_num_values;
    r.other_fields := p_other_fields;
    r.other_values := p_other_values;
    PERFORM record_readings(ARRAY[r], ARRAY[p_site_num]);
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
-- ever deadlock with live ingest, PostgreSQL aborts one side, and app/ingest/batch.py
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
    -- Gateways already seen later (as committed; lastSeenAt only moves forward) are left
    -- alone without taking their lock: a late uplink waits for no other batch here.
    SELECT array_agg(s.num ORDER BY s.num), array_agg(s.t ORDER BY s.num)
      INTO v_nums, v_times
      FROM (SELECT x.num, max(y.t) AS t, x.last_seen_at
              FROM unnest(p_partner_id, p_gateway_eui, p_time) AS y (p, e, t)
              JOIN gateways x ON x.partner_id = y.p AND x.gateway_eui = y.e
             GROUP BY x.num, x.last_seen_at) s
     WHERE s.t IS NOT NULL AND (s.last_seen_at IS NULL OR s.last_seen_at < s.t);
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

-- Step "admit", the checks every ingest event starts with, for a whole batch, set-based
-- (one statement per kind of check instead of three per event): the integration token
-- of each event still belongs to its partner (the one token check of the transaction;
-- NULL on the world-file path), its device is the partner's and assigned, and its dedup
-- key was not stored before. Devices are share-locked, in num order, so that a concurrent
-- move to inventory (D16) either waits for this event or makes it a 404. Dedup keys are
-- inserted in key order, so two batches racing on duplicates wait for each other instead
-- of deadlocking; within a batch the first event with a key is the stored one.
-- outcomes[i]: 'stored', 'duplicate', 'not_found' or 'unauthorized'; device_ids[i] and
-- sites[i] (site num, 0 = none) for an admitted event, else NULL. Single events
-- (ingest_event) pass a batch of one.
CREATE OR REPLACE FUNCTION ingest_admit_batch(
    p_token_hash    bytea[],
    p_partner_id    uuid[],
    p_device_num    integer[],
    p_dedup_key     text[],
    OUT outcomes    text[],
    OUT device_ids  uuid[],
    OUT sites       integer[]
)
LANGUAGE plpgsql
AS $$
DECLARE
    fresh   integer[];
BEGIN
    WITH u AS MATERIALIZED (
        SELECT u.i, u.partner, u.num,
               u.token IS NULL OR EXISTS (
                   SELECT 1 FROM integrations x
                    WHERE x.token_hash = u.token AND x.partner_id = u.partner) AS authorized
          FROM unnest(p_token_hash, p_partner_id, p_device_num)
               WITH ORDINALITY AS u (token, partner, num, i)),
    d AS (
        SELECT d.num, d.partner_id, d.id, d.status, COALESCE(s.num, 0) AS site_num
          FROM devices d LEFT JOIN sites s ON s.id = d.site_id
         WHERE (d.num, d.partner_id) IN (SELECT u.num, u.partner FROM u WHERE u.authorized)
         ORDER BY d.num
           FOR SHARE OF d)
    SELECT array_agg(CASE WHEN NOT u.authorized THEN 'unauthorized'
                          WHEN d.num IS NULL OR d.status <> 'assigned' THEN 'not_found'
                          ELSE 'stored' END ORDER BY u.i),
           array_agg(CASE WHEN d.status = 'assigned' THEN d.id END ORDER BY u.i),
           array_agg(CASE WHEN d.status = 'assigned' THEN d.site_num END ORDER BY u.i)
      INTO outcomes, device_ids, sites
      FROM u LEFT JOIN d ON u.authorized AND d.num = u.num AND d.partner_id = u.partner;

    IF NOT EXISTS (SELECT 1 FROM generate_subscripts(p_dedup_key, 1) AS i
                    WHERE outcomes[i] = 'stored' AND p_dedup_key[i] IS NOT NULL) THEN
        RETURN;
    END IF;
    WITH c AS MATERIALIZED (
        SELECT i, p_partner_id[i] AS partner, p_dedup_key[i] AS key
          FROM generate_subscripts(p_dedup_key, 1) AS i
         WHERE outcomes[i] = 'stored' AND p_dedup_key[i] IS NOT NULL),
    added AS (
        INSERT INTO ingest_dedup (partner_id, deduplication_id)
        SELECT DISTINCT c.partner, c.key FROM c ORDER BY c.key, c.partner
        ON CONFLICT DO NOTHING
        RETURNING partner_id, deduplication_id)
    SELECT array_agg(f.i) INTO fresh
      FROM (SELECT min(c.i) AS i
              FROM c JOIN added a ON a.partner_id = c.partner AND a.deduplication_id = c.key
             GROUP BY c.partner, c.key) f;
    FOR i IN 1..cardinality(p_dedup_key) LOOP
        IF outcomes[i] = 'stored' AND p_dedup_key[i] IS NOT NULL
           AND NOT (i = ANY (COALESCE(fresh, '{}'))) THEN
            outcomes[i] := 'duplicate';
            device_ids[i] := NULL;
            sites[i] := NULL;
        END IF;
    END LOOP;
END;
$$;

-- The device_state rows of the devices p_device_num, created when missing, locked for
-- this transaction in num order (the lock order of every ingest path) and returned in
-- that order.
CREATE OR REPLACE FUNCTION lock_device_states(p_device_num integer[]) RETURNS device_state[]
LANGUAGE plpgsql
AS $$
DECLARE
    rows    device_state[];
BEGIN
    SELECT array_agg(l.r ORDER BY (l.r).device_num) INTO rows
      FROM (SELECT s AS r FROM device_state s
             WHERE s.device_num = ANY (p_device_num)
             ORDER BY s.device_num
               FOR UPDATE) AS l;
    IF COALESCE(cardinality(rows), 0) < (SELECT count(DISTINCT n) FROM unnest(p_device_num) AS n) THEN
        INSERT INTO device_state (device_num)
        SELECT DISTINCT n FROM unnest(p_device_num) AS n ORDER BY n
        ON CONFLICT DO NOTHING;
        SELECT array_agg(l.r ORDER BY (l.r).device_num) INTO rows
          FROM (SELECT s AS r FROM device_state s
                 WHERE s.device_num = ANY (p_device_num)
                 ORDER BY s.device_num
                   FOR UPDATE) AS l;
    END IF;
    RETURN rows;
END;
$$;

-- THE write path of uplinks: stores a batch of uplinks (one uplink_record each) in the
-- caller's transaction; returns the outcome of each, in order, and whether a partner of
-- the batch takes webhook events (`webhooks`: the caller then wakes the dispatcher after
-- its commit). Live ingest groups the uplinks that arrive while a previous batch commits
-- (app/ingest/batch.py); the fallback, world replay and bulk loads pass a batch of one.
-- Uplinks come sorted by device and time, so locks are taken in one global order.
--
-- The steps, each over the whole batch where it can be (per-uplink statements were most
-- of the database's time per uplink):
--   1. admit      ingest_admit_batch: token, device, de-duplication ('stored' or why not)
--   2. readings   record_readings: the raw readings of every admitted uplink. Before the
--                 device states are locked: they lock no row, and every statement moved
--                 out of the locked part shortens the time a concurrent batch of the same
--                 devices waits for this one
--   3. state      lock_device_states (every admitted device's row, in num order), then
--                 the states after each uplink (ingest_next_state: field state, signal,
--                 battery, the stored /latest body and ETag). Without alert rules in one
--                 statement for the whole batch: a device's k-th uplink of the batch
--                 starts from the state after its (k-1)-th (a recursive query, one step
--                 per uplink of the busiest device); each row written once per batch
--                 (write_device_states; for a device with webhook events, its state
--                 after its first uplink before the events, so that its device.online
--                 comes first), and device_presence once per batch, before, in the same
--                 statement for every device (its row trigger stands aside meanwhile:
--                 telemetry.presence_by_batch). With alert rules uplink by uplink:
--                 ingest_uplink_alerts before each state, the row and the events written
--                 per uplink
--   4. events     webhook_uplinks for the batch, or with alert rules webhook_uplink per
--                 uplink (schema/definitions/080-webhooks.sql), only for uplinks of
--                 a partner with an endpoint taking events (webhook_wanted, once per
--                 uplink in one statement): device.uplink and device.alert.raised/.cleared
--                 into the webhook outbox, in this transaction, from the values step 3
--                 computed. The NOTIFY that wakes the dispatcher is deferred past the
--                 commit, since one inside the transaction serialises the commits of
--                 concurrent batches: live ingest sends it after its commit
--                 (app/ingest/batch.py, through app/webhooks/nudge.py); otherwise the
--                 dispatcher's tick (1 s) finds them
--   5. gateways   touch_gateways: lastSeenAt of the relaying gateways, last (lock order)
CREATE OR REPLACE FUNCTION ingest_uplinks(
    p_uplinks       uplink_record[],
    OUT outcomes    text[],
    OUT webhooks    boolean
)
LANGUAGE plpgsql
-- Generic plans for every statement it runs, nested ones included: with array arguments
-- the planner otherwise prefers a custom plan, made anew on every call (planning was a
-- fifth of a small batch's time; the generic plans execute as fast).
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    adm         record;
    wanted      boolean[];
    has_rules   boolean;
    states      device_state[];
    firsts      device_state[];
    finals      device_state[];
    unwritten   device_state[];
    takers      uplink_record[];
    shown       jsonb[];
    batteries   jsonb[];
    -- Uplink by uplink (alert rules).
    u           integer;
    r           uplink_record;
    k           integer := 0;
    st          device_state;
    next        record;
    pending     device_state[] := '{}';
    raised      integer[];
    cleared     integer[];
    changed     boolean := false;
    gw_partner  uuid[];
    gw_eui      text[];
    gw_time     timestamptz[];
BEGIN
    -- The network server is answered only after this is durable, whatever the session says.
    SET LOCAL synchronous_commit = on;
    PERFORM set_config('telemetry.webhooks_defer_notify', 'on', true);
    webhooks := false;
    -- 1. admit
    SELECT * INTO adm
      FROM ingest_admit_batch(ARRAY(SELECT x.token_hash FROM unnest(p_uplinks) AS x),
                              ARRAY(SELECT x.partner_id FROM unnest(p_uplinks) AS x),
                              ARRAY(SELECT x.device_num FROM unnest(p_uplinks) AS x),
                              ARRAY(SELECT x.dedup_key FROM unnest(p_uplinks) AS x));
    outcomes := adm.outcomes;
    IF NOT ('stored' = ANY (outcomes)) THEN
        RETURN;
    END IF;
    -- 2. readings
    PERFORM record_readings(p_uplinks, adm.sites);

    -- 3. state (every row locked first), 4. events.
    SELECT lock_device_states(array_agg(x.device_num) FILTER (WHERE outcomes[x.ordinality] = 'stored')),
           -- webhook_wanted's test over the inlined webhook_receivers: that scalar SQL
           -- function has a subquery, so it is never inlined and is planned anew per call.
           array_agg(EXISTS (SELECT 1 FROM webhook_receivers() e
                              WHERE e.partner_id = x.partner_id) ORDER BY x.ordinality),
           bool_or(x.rule_ids <> '{}')
      INTO states, wanted, has_rules
      FROM unnest(p_uplinks) WITH ORDINALITY AS x;
    webhooks := true = ANY (wanted);
    IF NOT has_rules THEN
        -- Every state of the batch in one statement: step k of a device applies its k-th
        -- uplink (by time) to the state after step k-1, step 0 being its locked row.
        WITH RECURSIVE up AS MATERIALIZED (
            SELECT (p_uplinks[x.j]).device_num AS device_num, p_uplinks[x.j] AS r,
                   adm.device_ids[x.j] AS device_id, wanted[x.j] AS event,
                   row_number() OVER (PARTITION BY (p_uplinks[x.j]).device_num
                                      ORDER BY (p_uplinks[x.j]).time, x.j) AS step,
                   count(*) OVER (PARTITION BY (p_uplinks[x.j]).device_num) AS steps
              FROM generate_subscripts(p_uplinks, 1) AS x (j)
             WHERE outcomes[x.j] = 'stored'),
        applied (device_num, step, steps, st, r, event, shown) AS (
            SELECT s.device_num, 0::bigint, 0::bigint, s, NULL::uplink_record, false, NULL::jsonb
              FROM unnest(states) AS s
            UNION ALL
            SELECT a.device_num, u.step, u.steps, n.next, u.r, u.event, n.shown
              FROM applied a
              JOIN up u ON u.device_num = a.device_num AND u.step = a.step + 1
             CROSS JOIN LATERAL ingest_next_state(a.st, u.device_id, u.r, u.event) AS n)
        SELECT array_agg(a.st ORDER BY a.device_num) FILTER (WHERE a.step = 1 AND a.event),
               array_agg(a.st ORDER BY a.device_num) FILTER (WHERE a.step = a.steps),
               array_agg(a.st ORDER BY a.device_num)
                   FILTER (WHERE a.step = a.steps AND NOT (a.event AND a.step = 1)),
               array_agg(a.r ORDER BY a.device_num, a.step) FILTER (WHERE a.event),
               array_agg(a.shown ORDER BY a.device_num, a.step) FILTER (WHERE a.event),
               array_agg((a.st).battery ORDER BY a.device_num, a.step) FILTER (WHERE a.event)
          INTO firsts, finals, unwritten, takers, shown, batteries
          FROM applied a
         WHERE a.step > 0;
        -- Presence before the rows: the row trigger of device.online (080-webhooks.sql)
        -- relies on the device's presence row being locked by then.
        UPDATE device_presence p
           SET online_until = device_online_until(x.last_uplink_at, p.offline_minutes)
          FROM unnest(finals) AS x
         WHERE p.device_num = x.device_num
           AND p.online_until IS DISTINCT FROM
               device_online_until(x.last_uplink_at, p.offline_minutes);
        PERFORM set_config('telemetry.presence_by_batch', 'on', true);
        IF takers IS NOT NULL THEN
            -- The events of the batch are written together, once the state after each
            -- device's first uplink is written (its device.online first).
            PERFORM write_device_states(firsts);
            PERFORM webhook_uplinks(takers, shown, batteries);
        END IF;
        IF unwritten IS NOT NULL THEN
            PERFORM write_device_states(unwritten);
        END IF;
        PERFORM set_config('telemetry.presence_by_batch', 'off', true);
    ELSE
        -- Each uplink's alerts follow its event: uplink by uplink, the state written
        -- first, so that the device.online its trigger may emit comes before both.
        FOR u IN SELECT j FROM generate_subscripts(p_uplinks, 1) AS j
                  WHERE outcomes[j] = 'stored'
                  ORDER BY (p_uplinks[j]).device_num, (p_uplinks[j]).time, j LOOP
            r := p_uplinks[u];
            IF st.device_num IS DISTINCT FROM r.device_num THEN
                IF changed THEN
                    pending := pending || st;
                END IF;
                LOOP
                    k := k + 1;
                    EXIT WHEN states[k].device_num = r.device_num;
                END LOOP;
                st := states[k];
                changed := false;
            END IF;
            SELECT a.raised, a.cleared INTO raised, cleared
              FROM ingest_uplink_alerts(r, st.field_state) AS a;
            SELECT * INTO next FROM ingest_next_state(st, adm.device_ids[u], r, wanted[u]);
            st := next.next;
            IF wanted[u] THEN
                PERFORM write_device_states(ARRAY[st]);
                changed := false;
                PERFORM webhook_uplink(r, next.shown, st.battery, raised, cleared);
            ELSE
                changed := true;
            END IF;
        END LOOP;
        IF changed THEN
            pending := pending || st;
        END IF;
        IF cardinality(pending) > 0 THEN
            PERFORM write_device_states(pending);
        END IF;
    END IF;
    -- 5. gateways
    SELECT COALESCE(array_agg(x.partner_id), '{}'), COALESCE(array_agg(g.eui), '{}'),
           COALESCE(array_agg(x.time), '{}')
      INTO gw_partner, gw_eui, gw_time
      FROM unnest(p_uplinks) WITH ORDINALITY AS x,
           unnest(x.gateways) AS g (eui)
     WHERE outcomes[x.ordinality] = 'stored';
    PERFORM touch_gateways(gw_partner, gw_eui, gw_time);
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
    SELECT * INTO adm FROM ingest_admit_batch(ARRAY[p_token_hash], ARRAY[p_partner_id],
                                              ARRAY[p_device_num], ARRAY[p_dedup_key]);
    IF adm.outcomes[1] <> 'stored' THEN
        RETURN adm.outcomes[1];
    END IF;
    st := (lock_device_states(ARRAY[p_device_num]))[1];
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
