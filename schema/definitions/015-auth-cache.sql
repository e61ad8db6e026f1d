-- The key cache and leased rate-limit permits of app/auth/cache.py (decisions D2-D4).
-- Re-runnable: applied after the migrations on every migrate.

-- Invalidation of the per-worker key caches: any change to a key, a partner or a
-- sub-account notifies `auth_changed` with the partner whose keys may have changed, at
-- commit ('*' for all on TRUNCATE); every worker drops the cached keys of that partner.
CREATE OR REPLACE FUNCTION auth_changed_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_LEVEL = 'STATEMENT' THEN
        PERFORM pg_notify('auth_changed', '*');
    ELSIF TG_TABLE_NAME = 'partners' THEN
        PERFORM pg_notify('auth_changed', OLD.id::text);
    ELSE
        IF TG_OP <> 'INSERT' THEN
            PERFORM pg_notify('auth_changed', OLD.partner_id::text);
        END IF;
        IF TG_OP <> 'DELETE' THEN
            PERFORM pg_notify('auth_changed', NEW.partner_id::text);
        END IF;
    END IF;
    RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER api_keys_auth_changed AFTER UPDATE OR DELETE ON api_keys
    FOR EACH ROW EXECUTE FUNCTION auth_changed_notify();
CREATE OR REPLACE TRIGGER partners_auth_changed AFTER UPDATE OR DELETE ON partners
    FOR EACH ROW EXECUTE FUNCTION auth_changed_notify();
-- A new sub-account changes the features a partner key sees (D17, D18), so inserts count.
CREATE OR REPLACE TRIGGER sub_accounts_auth_changed
    AFTER INSERT OR UPDATE OR DELETE ON sub_accounts
    FOR EACH ROW EXECUTE FUNCTION auth_changed_notify();
CREATE OR REPLACE TRIGGER api_keys_auth_truncated AFTER TRUNCATE ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION auth_changed_notify();
CREATE OR REPLACE TRIGGER partners_auth_truncated AFTER TRUNCATE ON partners
    FOR EACH STATEMENT EXECUTE FUNCTION auth_changed_notify();
CREATE OR REPLACE TRIGGER sub_accounts_auth_truncated AFTER TRUNCATE ON sub_accounts
    FOR EACH STATEMENT EXECUTE FUNCTION auth_changed_notify();

-- What a worker caches about a key: tenancy, scopes, plan, features and tier limits, with
-- its expiry and revocation (checked by the worker at each request). No row: unknown key.
CREATE OR REPLACE FUNCTION api_key_info(p_key_hash bytea)
RETURNS TABLE (
    key_id              uuid,
    partner_id          uuid,
    sub_account_id      uuid,
    scopes              text[],
    api_write           boolean,
    retention_days      integer,
    networks_enabled    boolean,
    multi_site_enabled  boolean,
    per_minute          integer,
    per_day             integer,
    expires_at          timestamptz,
    revoked_at          timestamptz
)
LANGUAGE sql STABLE
AS $$
    SELECT ak.id, ak.partner_id, ak.sub_account_id, ak.scopes, p.api_write, p.retention_days,
           f.networks, f.multi_site, f.per_minute, f.per_day, ak.expires_at, ak.revoked_at
      FROM api_keys ak
      JOIN partners p ON p.id = ak.partner_id
     CROSS JOIN LATERAL key_features(ak.partner_id, ak.sub_account_id) f
     WHERE ak.key_hash = p_key_hash
$$;

-- The per-minute sliding window and the daily quota of a key (D4), in one place: every
-- request's permit comes from here, leased by a worker's key cache (app/auth/cache.py) or
-- asked for one at a time by api_authenticate. In one statement under the usage row's lock:
-- 1. gives back `p_return_count` unused permits of the earlier second `p_return_second`
--    (its bucket and the day count, if still in the window / the same day);
-- 2. grants g <= p_want permits in second `p_second` with window sum + g <= per_minute
--    and day count + g <= per_day, recorded as used. While the budget left is below
--    `p_exact_below` one permit at a time is granted, so small limits are exact request
--    by request; above it at most min(64, budget / p_share).
-- The window is 60 one-second buckets; the newest is `head_second`, which only moves
-- forward (a late call for an earlier second must not clear the window). A request in
-- second s counts until s + 60, so Retry-After is 1..60.
-- Durability without a WAL flush per request: permits are first reserved, in a block
-- of an eighth of the budget left, by a statement that commits synchronously; grants from
-- the reservation commit asynchronously. A crash can lose only such grants, and the
-- reservation they came from is durable: after a restart (another postmaster start time
-- in `reserved_by`) what is left of it counts as spent in the newest second. So the
-- counts never fall below what was served, and only one statement in a block waits for
-- the WAL.
-- Returns g, the window sum before the grant, the day count after it, and for g = 0 with
-- p_want > 0 the outcome (rate_limited first, as D3/D4) and its Retry-After.
CREATE OR REPLACE FUNCTION api_lease(
    p_key_id uuid, p_second bigint, p_want integer, p_return_second bigint,
    p_return_count integer, p_per_minute integer, p_per_day integer,
    p_share integer DEFAULT 8, p_exact_below integer DEFAULT 1024
)
RETURNS TABLE (granted integer, in_window integer, day_used integer, outcome text, retry_after integer)
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
    usage       record;
    head        bigint;
    today       date := (to_timestamp(p_second) AT TIME ZONE 'UTC')::date;
    v_day       date;
    shift       bigint;
    counts      integer[];
    idx         integer;
    v_window    integer;
    v_day_used  integer;
    v_reserved  integer;
    started     timestamptz := pg_postmaster_start_time();
    budget      integer;
    g           integer := 0;
    freed       integer;
    wait        integer;
    changed     boolean := false;
BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);

    SELECT u.head_second, u.second_counts, u.day, u.day_count, u.reserved, u.reserved_by
      INTO usage
      FROM api_key_usage u WHERE u.key_id = p_key_id FOR UPDATE;
    IF NOT FOUND THEN
        INSERT INTO api_key_usage (key_id) VALUES (p_key_id) ON CONFLICT (key_id) DO NOTHING;
        SELECT u.head_second, u.second_counts, u.day, u.day_count, u.reserved, u.reserved_by
          INTO usage
          FROM api_key_usage u WHERE u.key_id = p_key_id FOR UPDATE;
    END IF;

    head := GREATEST(usage.head_second, p_second);
    shift := head - usage.head_second;
    IF shift >= 60 THEN
        counts := array_fill(0, ARRAY[60]);
    ELSIF shift > 0 THEN
        counts := usage.second_counts[shift + 1 : 60] || array_fill(0, ARRAY[shift::integer]);
    ELSE
        counts := usage.second_counts;
    END IF;
    v_day := GREATEST(usage.day, today);
    v_day_used := CASE WHEN usage.day = v_day THEN usage.day_count ELSE 0 END;
    v_reserved := usage.reserved;
    changed := shift > 0 OR usage.day <> v_day;

    IF v_reserved > 0 AND usage.reserved_by IS DISTINCT FROM started THEN
        -- Reserved before a restart: some may have been served by commits the restart
        -- lost, so all of them count as spent, as late as possible.
        counts[60] := counts[60] + v_reserved;
        v_day_used := v_day_used + v_reserved;
        v_reserved := 0;
        changed := true;
    END IF;

    IF p_return_count > 0 THEN
        idx := 60 - (head - p_return_second)::integer;
        IF idx BETWEEN 1 AND 60 THEN
            counts[idx] := GREATEST(counts[idx] - p_return_count, 0);
        END IF;
        IF (to_timestamp(p_return_second) AT TIME ZONE 'UTC')::date = v_day THEN
            v_day_used := GREATEST(v_day_used - p_return_count, 0);
        END IF;
        changed := true;
    END IF;

    SELECT COALESCE(sum(c), 0) INTO v_window FROM unnest(counts) AS c;
    budget := GREATEST(LEAST(p_per_minute - v_window, p_per_day - v_day_used), 0);
    IF v_reserved > budget THEN
        -- The limits were lowered: drop what no longer fits (dropping is always safe).
        v_reserved := budget;
        changed := true;
    END IF;
    idx := 60 - (head - p_second)::integer;
    IF p_want > 0 AND budget > 0 AND idx >= 1 THEN
        g := LEAST(p_want, budget,
                   CASE WHEN budget < p_exact_below THEN 1
                        ELSE LEAST(64, GREATEST(1, budget / GREATEST(p_share, 1))) END);
        IF g > v_reserved THEN
            -- Reserve a block; this statement's commit waits for the WAL flush, which
            -- also makes every earlier asynchronous grant durable.
            v_reserved := LEAST(budget, GREATEST(g, budget / 8));
            PERFORM set_config('synchronous_commit', 'on', true);
        END IF;
        counts[idx] := counts[idx] + g;
        v_day_used := v_day_used + g;
        v_reserved := v_reserved - g;
        changed := true;
    END IF;

    IF changed THEN
        UPDATE api_key_usage u
           SET head_second = head, second_counts = counts, day = v_day, day_count = v_day_used,
               reserved = v_reserved, reserved_by = started
         WHERE u.key_id = p_key_id;
    END IF;

    granted := g;
    in_window := v_window;
    day_used := v_day_used;
    outcome := 'ok';
    retry_after := 0;
    IF g = 0 AND p_want > 0 THEN
        IF v_window >= p_per_minute THEN
            -- Bucket i holds second head - 60 + i, which leaves the window at head + i:
            -- the wait is the first i after which fewer than per_minute are left.
            freed := 0;
            wait := 0;
            FOR i IN 1..60 LOOP
                freed := freed + counts[i];
                wait := i;
                EXIT WHEN v_window - freed < p_per_minute;
            END LOOP;
            outcome := 'rate_limited';
            retry_after := GREATEST(wait, 1);
        ELSE
            outcome := 'quota_exceeded';
            retry_after := GREATEST(ceil(extract(epoch FROM
                ((v_day + 1)::timestamp AT TIME ZONE 'UTC') - clock_timestamp()))::integer, 1);
        END IF;
    END IF;
    RETURN NEXT;
END;
$$;
