-- Authentication, tenancy and the rate-limit decision of one API request, in one round
-- trip (decisions D2, D3, D4). The limits themselves are api_lease's
-- (schema/definitions/015-auth-cache.sql), the one implementation of the window, and
-- what is known of a key is api_key_info's, as for the workers' key cache.
-- Re-runnable: applied after the migrations on every migrate.

-- The features and tier limits a key works with (D17, D18): a sub-account key has its
-- sub-account's (account_features); a partner key has a feature that is on for at least
-- one of its sub-accounts, or its own setting while it has none, and its own limits.
CREATE OR REPLACE FUNCTION key_features(p_partner_id uuid, p_sub_account_id uuid)
RETURNS TABLE (networks boolean, multi_site boolean, per_minute integer, per_day integer)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT COALESCE(bool_or(s.networks), f.networks),
           COALESCE(bool_or(s.multi_site), f.multi_site),
           f.per_minute, f.per_day
      FROM account_features(p_partner_id, p_sub_account_id) f
      LEFT JOIN sub_account_features s
        ON p_sub_account_id IS NULL AND s.partner_id = p_partner_id
     GROUP BY f.networks, f.multi_site, f.per_minute, f.per_day
$$;

CREATE OR REPLACE FUNCTION api_authenticate(p_key_hash bytea, p_now timestamptz DEFAULT clock_timestamp())
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
    retry_after         integer,
    day_limit           integer,    -- the daily quota, and what is left of it after this request
    day_remaining       integer
)
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
    k           record;
    lease       record;
    refusal     text;
BEGIN
    SELECT * INTO k FROM api_key_info(p_key_hash);

    IF NOT FOUND THEN
        RETURN QUERY SELECT 'unauthorized'::text, NULL::uuid, NULL::uuid, NULL::uuid, NULL::text[],
            NULL::boolean, NULL::integer, NULL::boolean, NULL::boolean, NULL::integer, NULL::integer, NULL::integer,
            NULL::integer, NULL::integer;
        RETURN;
    END IF;
    -- A revoked key says so even when it has expired too.
    refusal := CASE WHEN k.revoked_at IS NOT NULL AND k.revoked_at <= p_now THEN 'key_revoked'
                    WHEN k.expires_at IS NOT NULL AND k.expires_at <= p_now THEN 'key_expired' END;
    IF refusal IS NOT NULL THEN
        RETURN QUERY SELECT refusal, k.key_id, k.partner_id, k.sub_account_id, NULL::text[],
            NULL::boolean, NULL::integer, NULL::boolean, NULL::boolean, NULL::integer, NULL::integer, NULL::integer,
            NULL::integer, NULL::integer;
        RETURN;
    END IF;

    -- The one sliding window and daily quota (api_lease), asked for one permit at p_now.
    -- Its hold_ms (a refusal to be held so that Retry-After 60 is exact) is not kept: it
    -- is non-zero only when the key caches of other workers were granted a whole window
    -- in blocks within the current second, and a statement holding the usage row's lock
    -- must not sleep; the answer then says 60 for a wait of up to 61 s.
    SELECT * INTO lease
      FROM api_lease(k.key_id, extract(epoch FROM p_now), 1, 0, 0, k.per_minute, k.per_day);
    IF lease.outcome = 'rate_limited' THEN
        RETURN QUERY SELECT 'rate_limited'::text, k.key_id, k.partner_id, k.sub_account_id, k.scopes,
            k.api_write, k.retention_days, k.networks_enabled, k.multi_site_enabled, k.per_minute, 0,
            lease.retry_after, k.per_day, GREATEST(k.per_day - lease.day_used, 0);
        RETURN;
    END IF;
    IF lease.outcome = 'quota_exceeded' THEN
        RETURN QUERY SELECT 'quota_exceeded'::text, k.key_id, k.partner_id, k.sub_account_id, k.scopes,
            k.api_write, k.retention_days, k.networks_enabled, k.multi_site_enabled, k.per_minute,
            GREATEST(k.per_minute - lease.in_window, 0), lease.retry_after, k.per_day, 0;
        RETURN;
    END IF;
    RETURN QUERY SELECT 'ok'::text, k.key_id, k.partner_id, k.sub_account_id, k.scopes,
        k.api_write, k.retention_days, k.networks_enabled, k.multi_site_enabled, k.per_minute,
        GREATEST(k.per_minute - lease.in_window - 1, 0), 0, k.per_day,
        GREATEST(k.per_day - lease.day_used, 0);
END;
$$;
