-- Authentication, tenancy and the rate-limit decision of one API request, in one round
-- trip (decisions D2, D3, D4). Re-runnable: applied after the migrations on every migrate.

DROP FUNCTION IF EXISTS api_authenticate(bytea, timestamptz);
CREATE FUNCTION api_authenticate(p_key_hash bytea, p_now timestamptz DEFAULT clock_timestamp())
RETURNS TABLE (
    outcome             text,       -- ok | unauthorized | key_expired | key_revoked | rate_limited | quota_exceeded
    key_id              uuid,
    partner_id          uuid,
    sub_account_id      uuid,
    scopes              text[],
    api_write           boolean,
    retention_days      integer,
    networks_enabled    boolean,    -- for a partner key: on for at least one sub-account
    multi_site_enabled  boolean,
    rate_limit          integer,
    remaining           integer,
    retry_after         integer
)
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
    k           record;
    usage       record;
    now_second  bigint := floor(extract(epoch FROM p_now))::bigint;
    today       date := (p_now AT TIME ZONE 'UTC')::date;
    shift       bigint;
    counts      integer[];
    in_window   integer;
    day_used    integer;
    per_day     integer;
    freed       integer;
    wait        integer;
BEGIN
    SELECT ak.id, ak.partner_id, ak.sub_account_id, ak.scopes, ak.expires_at, ak.revoked_at,
           p.api_write, p.retention_days,
           CASE WHEN ak.sub_account_id IS NULL
                THEN LEAST(p.tier_per_minute, p.tier_per_minute)
                ELSE LEAST(p.tier_per_minute, COALESCE(sa.tier_per_minute, p.tier_per_minute)) END AS per_minute,
           CASE WHEN ak.sub_account_id IS NULL
                THEN p.tier_per_day
                ELSE LEAST(p.tier_per_day, COALESCE(sa.tier_per_day, p.tier_per_day)) END AS per_day,
           CASE WHEN ak.sub_account_id IS NOT NULL
                THEN COALESCE(sa.networks_enabled, p.networks_enabled)
                WHEN NOT EXISTS (SELECT 1 FROM sub_accounts s WHERE s.partner_id = p.id)
                THEN p.networks_enabled
                ELSE EXISTS (SELECT 1 FROM sub_accounts s WHERE s.partner_id = p.id
                             AND COALESCE(s.networks_enabled, p.networks_enabled)) END AS networks,
           CASE WHEN ak.sub_account_id IS NOT NULL
                THEN COALESCE(sa.multi_site_enabled, p.multi_site_enabled)
                WHEN NOT EXISTS (SELECT 1 FROM sub_accounts s WHERE s.partner_id = p.id)
                THEN p.multi_site_enabled
                ELSE EXISTS (SELECT 1 FROM sub_accounts s WHERE s.partner_id = p.id
                             AND COALESCE(s.multi_site_enabled, p.multi_site_enabled)) END AS multi_site
      INTO k
      FROM api_keys ak
      JOIN partners p ON p.id = ak.partner_id
      LEFT JOIN sub_accounts sa ON sa.id = ak.sub_account_id
     WHERE ak.key_hash = p_key_hash;

    IF NOT FOUND THEN
        RETURN QUERY SELECT 'unauthorized'::text, NULL::uuid, NULL::uuid, NULL::uuid, NULL::text[],
            NULL::boolean, NULL::integer, NULL::boolean, NULL::boolean, NULL::integer, NULL::integer, NULL::integer;
        RETURN;
    END IF;
    IF k.revoked_at IS NOT NULL AND k.revoked_at <= p_now THEN
        RETURN QUERY SELECT 'key_revoked'::text, k.id, k.partner_id, k.sub_account_id, NULL::text[],
            NULL::boolean, NULL::integer, NULL::boolean, NULL::boolean, NULL::integer, NULL::integer, NULL::integer;
        RETURN;
    END IF;
    IF k.expires_at IS NOT NULL AND k.expires_at <= p_now THEN
        RETURN QUERY SELECT 'key_expired'::text, k.id, k.partner_id, k.sub_account_id, NULL::text[],
            NULL::boolean, NULL::integer, NULL::boolean, NULL::boolean, NULL::integer, NULL::integer, NULL::integer;
        RETURN;
    END IF;

    -- Counters are advisory bookkeeping: losing the last few on a crash is acceptable,
    -- waiting for a WAL flush on every request is not.
    SET LOCAL synchronous_commit = off;

    SELECT u.head_second, u.second_counts, u.day, u.day_count INTO usage
      FROM api_key_usage u WHERE u.key_id = k.id FOR UPDATE;
    IF NOT FOUND THEN
        INSERT INTO api_key_usage (key_id) VALUES (k.id) ON CONFLICT (key_id) DO NOTHING;
        SELECT u.head_second, u.second_counts, u.day, u.day_count INTO usage
          FROM api_key_usage u WHERE u.key_id = k.id FOR UPDATE;
    END IF;

    -- Slide the 61 one-second buckets so that the last one is the current second.
    shift := now_second - usage.head_second;
    IF shift >= 61 OR shift < 0 THEN
        counts := array_fill(0, ARRAY[61]);
    ELSIF shift > 0 THEN
        counts := usage.second_counts[shift + 1 : 61] || array_fill(0, ARRAY[shift::integer]);
    ELSE
        counts := usage.second_counts;
    END IF;
    SELECT COALESCE(sum(c), 0) INTO in_window FROM unnest(counts) AS c;
    day_used := CASE WHEN usage.day = today THEN usage.day_count ELSE 0 END;
    per_day := k.per_day;

    IF in_window >= k.per_minute THEN
        -- Seconds until enough of the oldest buckets leave the window.
        freed := 0;
        wait := 0;
        FOR i IN 1..61 LOOP
            freed := freed + counts[i];
            wait := i;
            EXIT WHEN in_window - freed < k.per_minute;
        END LOOP;
        RETURN QUERY SELECT 'rate_limited'::text, k.id, k.partner_id, k.sub_account_id, k.scopes,
            k.api_write, k.retention_days, k.networks, k.multi_site, k.per_minute, 0, GREATEST(wait, 1);
        RETURN;
    END IF;
    IF day_used >= per_day THEN
        RETURN QUERY SELECT 'quota_exceeded'::text, k.id, k.partner_id, k.sub_account_id, k.scopes,
            k.api_write, k.retention_days, k.networks, k.multi_site, k.per_minute,
            GREATEST(k.per_minute - in_window, 0),
            GREATEST(ceil(extract(epoch FROM ((today + 1)::timestamp AT TIME ZONE 'UTC') - p_now))::integer, 1);
        RETURN;
    END IF;

    counts[61] := counts[61] + 1;
    UPDATE api_key_usage u
       SET head_second = now_second, second_counts = counts, day = today, day_count = day_used + 1
     WHERE u.key_id = k.id;

    RETURN QUERY SELECT 'ok'::text, k.id, k.partner_id, k.sub_account_id, k.scopes,
        k.api_write, k.retention_days, k.networks, k.multi_site, k.per_minute,
        GREATEST(k.per_minute - in_window - 1, 0), 0;
END;
$$;
