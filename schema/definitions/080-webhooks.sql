-- Webhooks (integrations.md section 1): emission into the outbox, in the transaction of
-- the change, and the dispatcher's side of delivery. Tables: schema/080-webhooks.sql.
-- Re-runnable: applied on every migrate.
--
-- Where events come from:
--   device.uplink, device.alert.*   webhook_uplinks (a batch without alert rules) or
--                                   webhook_uplink, step "events" of ingest_uplinks
--   device.status/.joined/.location webhook_ingest_event, one step of ingest_event
--   device.online                   trigger on device_state (last_uplink_at moves)
--   device.offline                  webhook_offline_tick (the dispatcher's ticker), or the
--                                   ingest trigger when an uplink beats the ticker to it
--   downlink.*                      triggers on downlink_queue (insert, status changes)
--   webhook.test                    `telemetry webhooks test`
-- Every path goes through webhook_emit (webhook_uplinks: its steps over a batch), which
-- does nothing but one index probe when the partner has no endpoint that takes events.

-- msg_ + 26 characters: 12 hex of the millisecond (ids sort by creation), 14 random hex.
CREATE OR REPLACE FUNCTION webhook_message_id() RETURNS text
LANGUAGE sql VOLATILE
AS $$
    SELECT 'msg_' || lpad(to_hex((extract(epoch FROM clock_timestamp()) * 1000)::bigint), 12, '0')
           || substr(replace(gen_random_uuid()::text, '-', ''), 18, 14)
$$;

-- The endpoints that take new events, the rule written once: every endpoint but one
-- disabled by hand. Set-returning LANGUAGE sql with a plain body, so PostgreSQL inlines it
-- into the calling query like a view (the partner index still serves a partner's probe);
-- a scalar function holding this subquery would never be inlined.
CREATE OR REPLACE FUNCTION webhook_receivers() RETURNS SETOF webhook_endpoints
LANGUAGE sql STABLE
AS $$
    SELECT * FROM webhook_endpoints WHERE state <> 'disabled'
$$;

-- The cheap check: does the partner have an endpoint that takes new events?
CREATE OR REPLACE FUNCTION webhook_wanted(p_partner_id uuid) RETURNS boolean
LANGUAGE sql STABLE
AS $$
    SELECT EXISTS (SELECT 1 FROM webhook_receivers() e WHERE e.partner_id = p_partner_id)
$$;

-- The endpoints an event of type p_type about device p_device_id (NULL: none) goes to: a
-- partner endpoint, or the sub-account's own; type filter; device filter; one that takes
-- new events (webhook_receivers). One row per endpoint, from a plain SELECT in a
-- set-returning LANGUAGE sql function, so that PostgreSQL inlines it into the calling
-- query: webhook_uplinks finds the targets of a whole batch in its own statement (a
-- scalar function holding this query ran, and was planned again, once per uplink).
CREATE OR REPLACE FUNCTION webhook_target_ids(
    p_type              text,
    p_partner_id        uuid,
    p_sub_account_id    uuid,
    p_device_id         uuid
) RETURNS SETOF uuid
LANGUAGE sql STABLE
AS $$
    SELECT e.id
      FROM webhook_receivers() e
     WHERE e.partner_id = p_partner_id
       AND (e.sub_account_id IS NULL OR e.sub_account_id = p_sub_account_id)
       AND (e.event_types IS NULL OR p_type = ANY (e.event_types))
       AND (e.device_ids IS NULL OR p_device_id = ANY (e.device_ids))
$$;

-- The same endpoints as an array; NULL when none takes the event.
CREATE OR REPLACE FUNCTION webhook_targets(
    p_type              text,
    p_partner_id        uuid,
    p_sub_account_id    uuid,
    p_device_id         uuid
) RETURNS uuid[]
LANGUAGE sql STABLE
AS $$
    SELECT array_agg(t.id)
      FROM webhook_target_ids(p_type, p_partner_id, p_sub_account_id, p_device_id) AS t (id)
$$;

-- Writes one event and its messages to every endpoint that takes it (webhook_targets), and
-- moves the device's sequence. p_endpoint
-- names one endpoint instead (webhook.test). Returns the event id, or NULL when no
-- endpoint takes it (nothing is written, the device's sequence does not move).
CREATE OR REPLACE FUNCTION webhook_emit(
    p_type              text,
    p_partner_id        uuid,
    p_sub_account_id    uuid,
    p_device_num        integer,
    p_device_id         uuid,
    p_time              timestamptz,
    p_data              jsonb,
    p_endpoint          uuid DEFAULT NULL
) RETURNS text
LANGUAGE plpgsql
AS $$
DECLARE
    targets     uuid[];
    seq         bigint;
    v_id        text;
    v_num       bigint;
BEGIN
    IF p_endpoint IS NOT NULL THEN
        targets := ARRAY[p_endpoint];
    ELSE
        targets := webhook_targets(p_type, p_partner_id, p_sub_account_id, p_device_id);
        IF targets IS NULL THEN
            RETURN NULL;
        END IF;
    END IF;
    IF p_device_num IS NOT NULL THEN
        INSERT INTO webhook_sequences AS s (device_num, last) VALUES (p_device_num, 1)
        ON CONFLICT (device_num) DO UPDATE SET last = s.last + 1
        RETURNING s.last INTO seq;
    END IF;
    v_id := webhook_message_id();
    INSERT INTO webhook_events (id, type, partner_id, device_num, body)
    VALUES (v_id, p_type, p_partner_id, p_device_num,
            jsonb_build_object('id', v_id, 'type', p_type, 'timestamp', rfc3339(p_time),
                               'partnerId', p_partner_id, 'subAccountId', p_sub_account_id,
                               'deviceId', p_device_id, 'sequence', seq,
                               'data', p_data)::text)
    RETURNING num INTO v_num;
    INSERT INTO webhook_messages (event_num, endpoint_id)
    SELECT v_num, t FROM unnest(targets) AS t;
    -- One wake-up per transaction: identical notifications of a transaction are folded.
    -- Batched ingest defers it to after its commit (app/webhooks/nudge.py).
    IF current_setting('telemetry.webhooks_defer_notify', true) IS DISTINCT FROM 'on' THEN
        PERFORM pg_notify('webhooks', '');
    END IF;
    RETURN v_id;
END;
$$;

-- device.uplink, then device.alert.raised / .cleared for the rules this uplink started
-- or stopped breaking (p_raised, p_cleared): step "events" of ingest_uplinks, for an
-- uplink r of a partner that takes webhook events. The event shows what /latest shows now
-- (p_shown: values, signalQuality, retained, derived, built by ingest_next_state
-- from the values it built the stored body from) with the battery after this uplink
-- (p_battery), the uplink's time, fPort and fCnt; an alert's value is the uplink's own.
CREATE OR REPLACE FUNCTION webhook_uplink(
    r           uplink_record,
    p_shown     jsonb,
    p_battery   jsonb,
    p_raised    integer[],
    p_cleared   integer[]
) RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
    d       record;
    a       record;
BEGIN
    SELECT id, sub_account_id, dev_eui, site_id INTO d FROM devices WHERE num = r.device_num;
    PERFORM webhook_emit('device.uplink', r.partner_id, d.sub_account_id, r.device_num, d.id,
                         r.time,
                         jsonb_build_object('devEui', d.dev_eui, 'time', rfc3339(r.time),
                                            'battery', p_battery, 'siteId', d.site_id,
                                            'fPort', r.f_port, 'fCnt', r.f_cnt) || p_shown);
    IF p_raised IS NULL AND p_cleared IS NULL THEN
        RETURN;
    END IF;
    FOR a IN SELECT 'device.alert.raised' AS type, x.* FROM alert_rules x
              WHERE x.id = ANY (p_raised)
             UNION ALL
             SELECT 'device.alert.cleared', x.* FROM alert_rules x
              WHERE x.id = ANY (p_cleared)
             ORDER BY 1 DESC, 2 LOOP
        PERFORM webhook_emit(a.type, r.partner_id, d.sub_account_id, r.device_num, d.id, r.time,
                             jsonb_build_object('devEui', d.dev_eui, 'field', a.field, 'op', a.op,
                                                'threshold', a.value, 'level', a.level,
                                                'value', r.shown_values -> a.field,
                                                'time', rfc3339(r.time)));
    END LOOP;
END;
$$;

-- device.uplink for many uplinks at once: step "events" of ingest_uplinks for a batch
-- without alert rules (one with rules goes through webhook_uplink, uplink by uplink, so
-- that each uplink's alerts follow its event). p_uplinks are the uplinks of partners
-- that take webhook events, by device and time; p_shown[i] and p_battery[i] what
-- webhook_uplink takes for p_uplinks[i]. What webhook_emit does per event, set-based:
-- targets, each device's sequence moved once by its number of events (numbered in
-- order), the events and their messages; an uplink no endpoint takes writes nothing.
CREATE OR REPLACE FUNCTION webhook_uplinks(
    p_uplinks   uplink_record[],
    p_shown     jsonb[],
    p_battery   jsonb[]
) RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
    WITH taken AS MATERIALIZED (
        SELECT x.ordinality AS i, x.partner_id, x.device_num, x.time, d.id AS device_id,
               d.sub_account_id, t.targets,
               jsonb_build_object('devEui', d.dev_eui, 'time', rfc3339(x.time),
                                  'battery', p_battery[x.ordinality], 'siteId', d.site_id,
                                  'fPort', x.f_port, 'fCnt', x.f_cnt)
               || p_shown[x.ordinality] AS data
          FROM unnest(p_uplinks) WITH ORDINALITY AS x
          JOIN devices d ON d.num = x.device_num
         CROSS JOIN LATERAL (SELECT array_agg(e.id) AS targets
                               FROM webhook_target_ids('device.uplink', x.partner_id,
                                                       d.sub_account_id, d.id) AS e (id)) t
         WHERE t.targets IS NOT NULL),
    moved AS (
        INSERT INTO webhook_sequences AS s (device_num, last)
        SELECT device_num, count(*) FROM taken GROUP BY device_num ORDER BY device_num
        ON CONFLICT (device_num) DO UPDATE SET last = s.last + EXCLUDED.last
        RETURNING s.device_num, s.last),
    numbered AS (
        SELECT t.*, webhook_message_id() AS id,
               m.last - count(*) OVER (PARTITION BY t.device_num)
               + row_number() OVER (PARTITION BY t.device_num ORDER BY t.i) AS sequence
          FROM taken t JOIN moved m USING (device_num)),
    events AS (
        INSERT INTO webhook_events (id, type, partner_id, device_num, body)
        SELECT n.id, 'device.uplink', n.partner_id, n.device_num,
               jsonb_build_object('id', n.id, 'type', 'device.uplink',
                                  'timestamp', rfc3339(n.time), 'partnerId', n.partner_id,
                                  'subAccountId', n.sub_account_id, 'deviceId', n.device_id,
                                  'sequence', n.sequence, 'data', n.data)::text
          FROM numbered n
         ORDER BY n.i
        RETURNING num, id)
    INSERT INTO webhook_messages (event_num, endpoint_id)
    SELECT e.num, target
      FROM events e JOIN numbered n ON n.id = e.id, unnest(n.targets) AS target;
END;
$$;

-- device.status (the battery changed), device.joined, device.location (a reported
-- location that was stored). Called by ingest_event after the device's state is written.
CREATE OR REPLACE FUNCTION webhook_ingest_event(
    p_partner_id    uuid,
    p_device_num    integer,
    p_kind          text,
    p_time          timestamptz,
    p_old_battery   jsonb,
    p_new_battery   jsonb,
    p_location      jsonb
) RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
    d   record;
BEGIN
    IF NOT webhook_wanted(p_partner_id) THEN
        RETURN;
    END IF;
    SELECT id, sub_account_id, dev_eui INTO d FROM devices WHERE num = p_device_num;
    IF p_kind = 'status' AND p_new_battery IS NOT NULL
       AND (p_old_battery IS NULL
            OR (p_old_battery ->> 'state', p_old_battery -> 'value')
               IS DISTINCT FROM (p_new_battery ->> 'state', p_new_battery -> 'value')) THEN
        PERFORM webhook_emit('device.status', p_partner_id, d.sub_account_id, p_device_num, d.id,
                             p_time, jsonb_build_object('devEui', d.dev_eui,
                                                        'battery', p_new_battery));
    ELSIF p_kind = 'join' THEN
        PERFORM webhook_emit('device.joined', p_partner_id, d.sub_account_id, p_device_num, d.id,
                             p_time, jsonb_build_object('devEui', d.dev_eui,
                                                        'time', rfc3339(p_time)));
    ELSIF p_kind = 'location' AND p_location IS NOT NULL THEN
        PERFORM webhook_emit('device.location', p_partner_id, d.sub_account_id, p_device_num, d.id,
                             p_time, jsonb_build_object('devEui', d.dev_eui, 'location', p_location,
                                                        'time', rfc3339(p_time)));
    END IF;
END;
$$;

-- device.online, from the ingest transaction: an uplink moved last_uplink_at, and the
-- device was offline (or had never sent one) and is online now. The clock, not the
-- transaction's start, decides, so that an uplink that waited for the ticker's lock
-- counts the offline period the ticker just reported. Should the ticker not have
-- reported the offline transition yet (its watermark is before it), it is reported here
-- first; the ticker then no longer finds the device in its window.
-- Fires after device_presence_state_update (trigger names run in order), so the
-- device's presence row is already locked by this transaction (a batch of
-- ingest_uplinks updates the presence of its devices before it writes their rows).
CREATE OR REPLACE FUNCTION webhook_device_online() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    d           record;
    now_ts      timestamptz := clock_timestamp();
    was_until   timestamptz;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM webhook_receivers()) THEN
        RETURN NULL;
    END IF;
    SELECT id, partner_id, sub_account_id, dev_eui, status, offline_threshold_minutes AS mins
      INTO d FROM devices WHERE num = NEW.device_num;
    was_until := device_online_until(OLD.last_uplink_at, d.mins);
    IF was_until >= now_ts OR device_online_until(NEW.last_uplink_at, d.mins) < now_ts THEN
        RETURN NULL;  -- it was online, or this (late) uplink leaves it offline
    END IF;
    -- Checked after the times (the common case, a device still online, needs no query).
    IF d.status <> 'assigned' OR NOT webhook_wanted(d.partner_id) THEN
        RETURN NULL;
    END IF;
    IF was_until IS NOT NULL AND was_until > (SELECT last_tick FROM webhook_ticker) THEN
        PERFORM webhook_emit('device.offline', d.partner_id, d.sub_account_id, NEW.device_num,
                             d.id, was_until,
                             jsonb_build_object('devEui', d.dev_eui,
                                                'lastUplinkAt', rfc3339(OLD.last_uplink_at),
                                                'offlineThresholdMinutes', d.mins));
    END IF;
    PERFORM webhook_emit('device.online', d.partner_id, d.sub_account_id, NEW.device_num, d.id,
                         now_ts, jsonb_build_object('devEui', d.dev_eui,
                                                    'lastUplinkAt', rfc3339(NEW.last_uplink_at),
                                                    'offlineThresholdMinutes', d.mins));
    RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER webhook_device_online AFTER UPDATE OF last_uplink_at ON device_state
    FOR EACH ROW WHEN (OLD.last_uplink_at IS DISTINCT FROM NEW.last_uplink_at)
    EXECUTE FUNCTION webhook_device_online();

-- device.offline without a scan of every device: the devices whose online_until fell in
-- (last tick, now] (a range of device_presence_online_until), at most about p_limit per
-- call (the window is cut at the p_limit-th time). Rows are locked in device order, the
-- order batched ingest locks them in, and a row an uplink moved meanwhile drops out of
-- the window when re-read after the lock. Returns the number of devices found.
CREATE OR REPLACE FUNCTION webhook_offline_tick(p_limit integer DEFAULT 5000) RETURNS integer
LANGUAGE plpgsql
AS $$
DECLARE
    v_from  timestamptz;
    v_to    timestamptz := clock_timestamp();
    v_cut   timestamptz;
    n       integer := 0;
    r       record;
BEGIN
    SELECT last_tick INTO v_from FROM webhook_ticker FOR UPDATE;
    IF NOT EXISTS (SELECT 1 FROM webhook_receivers()) THEN
        UPDATE webhook_ticker SET last_tick = v_to;  -- nobody to tell
        RETURN 0;
    END IF;
    SELECT online_until INTO v_cut FROM device_presence
     WHERE online_until > v_from AND online_until <= v_to
     ORDER BY online_until OFFSET p_limit - 1 LIMIT 1;
    IF v_cut IS NOT NULL THEN
        v_to := v_cut;
    END IF;
    FOR r IN SELECT p.device_num, p.online_until, p.offline_minutes, d.id, d.partner_id,
                    d.sub_account_id, d.dev_eui
               FROM device_presence p JOIN devices d ON d.num = p.device_num
              WHERE p.online_until > v_from AND p.online_until <= v_to
              ORDER BY p.device_num
                FOR UPDATE OF p LOOP
        n := n + 1;
        PERFORM webhook_emit('device.offline', r.partner_id, r.sub_account_id, r.device_num,
                             r.id, r.online_until,
                             jsonb_build_object(
                                 'devEui', r.dev_eui,
                                 'lastUplinkAt',
                                 rfc3339(r.online_until - offline_threshold(r.offline_minutes)),
                                 'offlineThresholdMinutes', r.offline_minutes));
    END LOOP;
    UPDATE webhook_ticker SET last_tick = v_to;
    RETURN n;
END;
$$;

-- downlink.queued when the API queues one, downlink.<status> on every later change of
-- its status (app/downlinks/states.py `transition` is the one place that changes it, in
-- one UPDATE with f_cnt_down and error, so each change is one event). fCntDown and error
-- are present once known (schema/085-network-servers.sql).
CREATE OR REPLACE FUNCTION webhook_downlink() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    d       record;
    data    jsonb;
BEGIN
    SELECT id, partner_id, sub_account_id, dev_eui, status INTO d
      FROM devices WHERE num = NEW.device_num;
    IF d.status <> 'assigned' OR NOT webhook_wanted(d.partner_id) THEN
        RETURN NULL;
    END IF;
    data := jsonb_build_object('devEui', d.dev_eui, 'queueItemId', NEW.id,
                               'status', NEW.status, 'fPort', NEW.f_port);
    IF NEW.f_cnt_down IS NOT NULL THEN
        data := data || jsonb_build_object('fCntDown', NEW.f_cnt_down);
    END IF;
    IF NEW.error IS NOT NULL THEN
        data := data || jsonb_build_object('error', NEW.error);
    END IF;
    PERFORM webhook_emit('downlink.' || NEW.status, d.partner_id, d.sub_account_id,
                         NEW.device_num, d.id, clock_timestamp(), data);
    RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER webhook_downlink_insert AFTER INSERT ON downlink_queue
    FOR EACH ROW EXECUTE FUNCTION webhook_downlink();
CREATE OR REPLACE TRIGGER webhook_downlink_status AFTER UPDATE OF status ON downlink_queue
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status)
    EXECUTE FUNCTION webhook_downlink();

-- Moving a device to inventory ends its events (integrations.md 1.2): what is still
-- undelivered is dropped with the rest of its data, and its sequence starts again.
CREATE OR REPLACE FUNCTION webhook_device_inventory() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM webhook_events e USING new_rows n
     WHERE e.device_num = n.num AND n.status = 'inventory';
    DELETE FROM webhook_sequences s USING new_rows n
     WHERE s.device_num = n.num AND n.status = 'inventory';
    RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER webhook_device_inventory AFTER UPDATE ON devices
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION webhook_device_inventory();

-- ------------------------------------------------------------------ the dispatcher's side

-- Claims due messages of active endpoints, at most p_slots per endpoint (p_busy lists the
-- endpoints with attempts under way and p_busy_slots what each has left), and leases them
-- for p_lease: should the dispatcher die, they come due again then.
CREATE OR REPLACE FUNCTION webhook_claim(
    p_busy          uuid[],
    p_busy_slots    integer[],
    p_slots         integer,
    p_lease         interval
) RETURNS TABLE (event_num bigint, endpoint_id uuid, attempts integer, event_id text,
                 body text, url text, secret text, previous_secret text)
LANGUAGE sql
AS $$
    WITH busy AS (SELECT * FROM unnest(p_busy, p_busy_slots) AS b (id, slots)),
    due AS (
        SELECT m.event_num, m.endpoint_id
          FROM webhook_endpoints e
          LEFT JOIN busy b ON b.id = e.id
          CROSS JOIN LATERAL (
              SELECT m.event_num, m.endpoint_id FROM webhook_messages m
               WHERE m.endpoint_id = e.id AND m.state = 'pending' AND m.next_at <= now()
               ORDER BY m.next_at
               LIMIT COALESCE(b.slots, p_slots)
                 FOR UPDATE OF m SKIP LOCKED) m
         WHERE e.state IN ('enabled', 'failing')),
    claimed AS (
        UPDATE webhook_messages m SET next_at = now() + p_lease
          FROM due
         WHERE m.endpoint_id = due.endpoint_id AND m.event_num = due.event_num
        RETURNING m.event_num, m.endpoint_id, m.attempts)
    SELECT c.event_num, c.endpoint_id, c.attempts, ev.id, ev.body, e.url, e.secret,
           CASE WHEN e.previous_until > now() THEN e.previous_secret END
      FROM claimed c
      JOIN webhook_events ev ON ev.num = c.event_num
      JOIN webhook_endpoints e ON e.id = c.endpoint_id
$$;

-- When the next message of an active endpoint with free slots comes due (NULL: none).
CREATE OR REPLACE FUNCTION webhook_next_due(p_full uuid[]) RETURNS timestamptz
LANGUAGE sql STABLE
AS $$
    SELECT min(m.next_at)
      FROM webhook_endpoints e
     CROSS JOIN LATERAL (
         SELECT m.next_at FROM webhook_messages m
          WHERE m.endpoint_id = e.id AND m.state = 'pending'
          ORDER BY m.next_at LIMIT 1) m
     WHERE e.state IN ('enabled', 'failing') AND e.id <> ALL (p_full)
$$;

-- Records one attempt and its consequences. p_result: 'ok' (2xx), 'postpone' (429/503
-- with Retry-After: not an attempt; due again at p_next_at), 'gone' (410: the endpoint
-- is auto_disabled at once, the message kept), 'retry' (due again at p_next_at, or given
-- up when p_give_up). An endpoint failing for p_disable_after is auto_disabled.
CREATE OR REPLACE FUNCTION webhook_attempt_done(
    p_event_num     bigint,
    p_endpoint_id   uuid,
    p_at            timestamptz,
    p_status        integer,
    p_error         text,
    p_latency_ms    integer,
    p_response      text,
    p_result        text,
    p_next_at       timestamptz,
    p_give_up       boolean,
    p_disable_after interval
) RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
    -- The event may have been dropped meanwhile (its device went to inventory).
    INSERT INTO webhook_attempts (event_num, endpoint_id, at, status, error, latency_ms,
                                  response, ok)
    SELECT p_event_num, p_endpoint_id, p_at, p_status, p_error, p_latency_ms, p_response,
           p_result = 'ok'
     WHERE EXISTS (SELECT 1 FROM webhook_messages
                    WHERE endpoint_id = p_endpoint_id AND event_num = p_event_num);
    IF p_result = 'ok' THEN
        UPDATE webhook_messages SET state = 'delivered', attempts = attempts + 1,
               finished_at = now()
         WHERE endpoint_id = p_endpoint_id AND event_num = p_event_num;
        UPDATE webhook_endpoints SET state = 'enabled', failing_since = NULL
         WHERE id = p_endpoint_id AND state = 'failing';
        RETURN;
    END IF;
    IF p_result = 'postpone' THEN
        UPDATE webhook_messages SET next_at = p_next_at
         WHERE endpoint_id = p_endpoint_id AND event_num = p_event_num;
        RETURN;
    END IF;
    UPDATE webhook_messages
       SET attempts = attempts + 1,
           state = CASE WHEN p_give_up THEN 'failed' ELSE 'pending' END,
           finished_at = CASE WHEN p_give_up THEN now() END,
           next_at = p_next_at
     WHERE endpoint_id = p_endpoint_id AND event_num = p_event_num;
    UPDATE webhook_endpoints
       SET failing_since = COALESCE(failing_since, p_at),
           state = CASE
               WHEN p_result = 'gone' THEN 'auto_disabled'
               WHEN COALESCE(failing_since, p_at) <= p_at - p_disable_after THEN 'auto_disabled'
               ELSE 'failing' END
     WHERE id = p_endpoint_id AND state IN ('enabled', 'failing');
END;
$$;

-- Forgets what is older than p_keep (30 days, scaled): attempts, finished messages, and
-- events with no message left. Returns the number of events dropped.
CREATE OR REPLACE FUNCTION webhook_purge(p_keep interval) RETURNS integer
LANGUAGE plpgsql
AS $$
DECLARE
    n integer;
BEGIN
    DELETE FROM webhook_attempts WHERE at < now() - p_keep;
    DELETE FROM webhook_messages
     WHERE state <> 'pending' AND finished_at < now() - p_keep;
    DELETE FROM webhook_events e
     WHERE e.created_at < now() - p_keep
       AND NOT EXISTS (SELECT 1 FROM webhook_messages m WHERE m.event_num = e.num);
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
END;
$$;

-- The dispatcher's wake-up after batched ingest: a transaction of its own, which need
-- not wait for its commit to be flushed (the events were made durable by their own).
CREATE OR REPLACE FUNCTION webhook_nudge() RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
    SET LOCAL synchronous_commit = off;
    PERFORM pg_notify('webhooks', '');
END;
$$;

-- The attempts of many messages in one round trip (the dispatcher flushes its results).
CREATE OR REPLACE FUNCTION webhook_attempts_done(
    p_event_num     bigint[],
    p_endpoint_id   uuid[],
    p_at            timestamptz[],
    p_status        integer[],
    p_error         text[],
    p_latency_ms    integer[],
    p_response      text[],
    p_result        text[],
    p_next_at       timestamptz[],
    p_give_up       boolean[],
    p_disable_after interval
) RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
    -- The common case, every attempt delivered (each message once), in three statements
    -- for the whole flush: what webhook_attempt_done does for an 'ok', set-based (one call
    -- per message cost the database more than the event's emission did). With any other
    -- result the order of the results matters (an endpoint failing, then delivering
    -- again), so they are applied one by one, in order.
    IF 'ok' = ALL (p_result) AND cardinality(p_event_num) = (
           SELECT count(DISTINCT (e, ep)) FROM unnest(p_event_num, p_endpoint_id) AS x (e, ep)) THEN
        INSERT INTO webhook_attempts (event_num, endpoint_id, at, status, error, latency_ms,
                                      response, ok)
        SELECT x.e, x.ep, x.at, x.status, x.error, x.latency, x.response, true
          FROM unnest(p_event_num, p_endpoint_id, p_at, p_status, p_error, p_latency_ms,
                      p_response) AS x (e, ep, at, status, error, latency, response)
         WHERE EXISTS (SELECT 1 FROM webhook_messages m
                        WHERE m.endpoint_id = x.ep AND m.event_num = x.e);
        UPDATE webhook_messages m
           SET state = 'delivered', attempts = m.attempts + 1, finished_at = now()
          FROM unnest(p_event_num, p_endpoint_id) AS x (e, ep)
         WHERE m.endpoint_id = x.ep AND m.event_num = x.e;
        UPDATE webhook_endpoints SET state = 'enabled', failing_since = NULL
         WHERE id = ANY (p_endpoint_id) AND state = 'failing';
        RETURN;
    END IF;
    FOR i IN 1..cardinality(p_event_num) LOOP
        PERFORM webhook_attempt_done(p_event_num[i], p_endpoint_id[i], p_at[i], p_status[i],
                                     p_error[i], p_latency_ms[i], p_response[i], p_result[i],
                                     p_next_at[i], p_give_up[i], p_disable_after);
    END LOOP;
END;
$$;
