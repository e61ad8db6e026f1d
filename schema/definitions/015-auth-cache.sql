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
-- asked for one at a time by api_authenticate. In one statement under the usage row's lock,
-- at time `p_at` (epoch seconds; NULL: the database's clock, which the key cache uses so
-- that the instances' clocks do not matter):
-- 1. gives back `p_return_count` unused permits of the earlier second `p_return_second`
--    (its bucket and the day count, if still in the window / the same day);
-- 2. grants g <= p_want permits in the current second with window sum + g <= per_minute
--    and day count + g <= per_day, recorded as used. While the budget left is below
--    `p_exact_below` one permit at a time is granted, so small limits are exact request
--    by request; above it at most min(64, budget / p_share).
-- The window: at most per_minute requests in any 60 seconds. Each second of the last 61
-- has a bucket with its count and the time (ms into the second, 0..1000) by which all of
-- its permits were spent; the bucket's permits free their slots exactly 60 s after that.
-- A single permit is spent at once by the request that asked for it (its time, rounded
-- up to the millisecond); a block is spent by the worker until the end of its second
-- (`valid_ms` says how long from the grant), so its bucket counts until that end + 60 s.
-- The newest bucket is `head_second`, which only moves forward (a late call for an
-- earlier second counts in the newest one, later than it was: never too early).
-- Retry-After is the wait until the oldest slots free enough room, 1..60 s. Only when a
-- whole window was granted in blocks within the current second is that wait over 60 s
-- (by less than a second): then `hold_ms` says how long the caller holds the refusal so
-- that its Retry-After of 60 is still exact.
-- Durability without a WAL flush per request: permits are first reserved, in a block
-- of an eighth of the budget left, by a statement that commits synchronously; grants from
-- the reservation commit asynchronously. A crash can lose only such grants, and the
-- reservation they came from is durable: after a restart (another postmaster start time
-- in `reserved_by`) what is left of it counts as spent in the newest second, at its end.
-- So the counts never fall below what was served, and only one statement in a block
-- waits for the WAL.
-- Returns g, the second it went to (where unused ones are given back), valid_ms, the
-- window sum before the grant, the day count after it, and for g = 0 with p_want > 0 the
-- outcome (rate_limited first, as D3/D4), its Retry-After and hold_ms.
CREATE OR REPLACE FUNCTION api_lease(
    p_key_id uuid, p_at double precision, p_want integer, p_return_second bigint,
    p_return_count integer, p_per_minute integer, p_per_day integer,
    p_share integer DEFAULT 8, p_exact_below integer DEFAULT 1024
)
RETURNS TABLE (
    granted     integer,
    second      bigint,
    valid_ms    integer,
    in_window   integer,
    day_used    integer,
    outcome     text,
    retry_after integer,
    hold_ms     integer
)
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
    usage       record;
    t           double precision := COALESCE(p_at, extract(epoch FROM clock_timestamp()));
    head        bigint;
    into_head   double precision;  -- ms of t into second `head`; below 0 for an earlier t
    v_day       date;
    shift       bigint;
    counts      integer[];
    spent_by    smallint[];
    idx         integer;
    v_window    integer;
    v_day_used  integer;
    v_reserved  integer;
    started     timestamptz := pg_postmaster_start_time();
    budget      integer;
    g           integer := 0;
    freed       integer;
    wait        double precision;
    changed     boolean := false;
BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);

    SELECT u.head_second, u.second_counts, u.second_spent_by, u.day, u.day_count,
           u.reserved, u.reserved_by
      INTO usage
      FROM api_key_usage u WHERE u.key_id = p_key_id FOR UPDATE;
    IF NOT FOUND THEN
        INSERT INTO api_key_usage (key_id) VALUES (p_key_id) ON CONFLICT (key_id) DO NOTHING;
        SELECT u.head_second, u.second_counts, u.second_spent_by, u.day, u.day_count,
               u.reserved, u.reserved_by
          INTO usage
          FROM api_key_usage u WHERE u.key_id = p_key_id FOR UPDATE;
    END IF;

    head := GREATEST(usage.head_second, floor(t)::bigint);
    into_head := (t - head) * 1000;
    shift := head - usage.head_second;
    IF shift >= 61 THEN
        counts := array_fill(0, ARRAY[61]);
        spent_by := array_fill(0::smallint, ARRAY[61]);
    ELSIF shift > 0 THEN
        counts := usage.second_counts[shift + 1 : 61] || array_fill(0, ARRAY[shift::integer]);
        spent_by := usage.second_spent_by[shift + 1 : 61]
                    || array_fill(0::smallint, ARRAY[shift::integer]);
    ELSE
        counts := usage.second_counts;
        spent_by := usage.second_spent_by;
    END IF;
    v_day := GREATEST(usage.day, (to_timestamp(t) AT TIME ZONE 'UTC')::date);
    v_day_used := CASE WHEN usage.day = v_day THEN usage.day_count ELSE 0 END;
    v_reserved := usage.reserved;
    changed := shift > 0 OR usage.day <> v_day;

    IF v_reserved > 0 AND usage.reserved_by IS DISTINCT FROM started THEN
        -- Reserved before a restart: some may have been served by commits the restart
        -- lost, so all of them count as spent, as late as possible.
        counts[61] := counts[61] + v_reserved;
        spent_by[61] := 1000;
        v_day_used := v_day_used + v_reserved;
        v_reserved := 0;
        changed := true;
    END IF;

    IF p_return_count > 0 THEN
        idx := 61 - (head - p_return_second)::integer;
        IF idx BETWEEN 1 AND 61 THEN
            counts[idx] := GREATEST(counts[idx] - p_return_count, 0);
        END IF;
        IF (to_timestamp(p_return_second) AT TIME ZONE 'UTC')::date = v_day THEN
            v_day_used := GREATEST(v_day_used - p_return_count, 0);
        END IF;
        changed := true;
    END IF;

    -- The oldest bucket, second head - 60, frees its slots at head + spent_by[1] ms.
    IF counts[1] > 0 AND spent_by[1] <= into_head THEN
        counts[1] := 0;
        changed := true;
    END IF;
    SELECT COALESCE(sum(c), 0) INTO v_window FROM unnest(counts) AS c;
    budget := GREATEST(LEAST(p_per_minute - v_window, p_per_day - v_day_used), 0);
    IF v_reserved > budget THEN
        -- The limits were lowered: drop what no longer fits (dropping is always safe).
        v_reserved := budget;
        changed := true;
    END IF;
    IF p_want > 0 AND budget > 0 THEN
        g := LEAST(p_want, budget,
                   CASE WHEN budget < p_exact_below THEN 1
                        ELSE LEAST(64, GREATEST(1, budget / GREATEST(p_share, 1))) END);
        IF g > v_reserved THEN
            -- Reserve a block; this statement's commit waits for the WAL flush, which
            -- also makes every earlier asynchronous grant durable.
            v_reserved := LEAST(budget, GREATEST(g, budget / 8));
            PERFORM set_config('synchronous_commit', 'on', true);
        END IF;
        counts[61] := counts[61] + g;
        spent_by[61] := GREATEST(spent_by[61],
            CASE WHEN g = 1 THEN LEAST(GREATEST(ceil(into_head), 0), 1000) ELSE 1000 END);
        v_day_used := v_day_used + g;
        v_reserved := v_reserved - g;
        changed := true;
    END IF;

    IF changed THEN
        UPDATE api_key_usage u
           SET head_second = head, second_counts = counts, second_spent_by = spent_by,
               day = v_day, day_count = v_day_used, reserved = v_reserved,
               reserved_by = started
         WHERE u.key_id = p_key_id;
    END IF;

    granted := g;
    second := head;
    valid_ms := LEAST(GREATEST(floor(1000 - into_head), 0), 1000)::integer;
    in_window := v_window;
    day_used := v_day_used;
    outcome := 'ok';
    retry_after := 0;
    hold_ms := 0;
    IF g = 0 AND p_want > 0 THEN
        IF v_window >= p_per_minute THEN
            -- Bucket i holds second head - 61 + i and frees at head + i - 1 + spent_by[i]
            -- ms, later for each i: the wait is until the first bucket after which fewer
            -- than per_minute are left.
            freed := 0;
            wait := 0;
            FOR i IN 1..61 LOOP
                freed := freed + counts[i];
                wait := head + i - 1 - t + spent_by[i] / 1000.0;
                EXIT WHEN v_window - freed < p_per_minute;
            END LOOP;
            -- To the millisecond the spending times are kept in (a single permit's time
            -- is rounded up to it, so a refusal at the same moment may see 60.001 s).
            outcome := 'rate_limited';
            retry_after := LEAST(GREATEST(ceil(wait - 0.001)::integer, 1), 60);
            hold_ms := LEAST(GREATEST(ceil((wait - 60.001) * 1000)::integer, 0), 1000);
        ELSE
            outcome := 'quota_exceeded';
            retry_after := GREATEST(ceil(extract(epoch FROM
                ((v_day + 1)::timestamp AT TIME ZONE 'UTC')) - t)::integer, 1);
        END IF;
    END IF;
    RETURN NEXT;
END;
$$;
