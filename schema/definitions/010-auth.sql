-- Authentication, tenancy and the rate-limit decision of one API request, in one round
-- trip (decisions D2, D3, D4). The limits themselves are api_lease's
-- (schema/definitions/015-auth-cache.sql), the one implementation of the window.
-- Re-runnable: applied after the migrations on every migrate.

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
    retry_after         integer
)
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
    k           record;
    lease       record;
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

    -- The one sliding window and daily quota (api_lease), asked for one permit.
    SELECT * INTO lease
      FROM api_lease(k.id, floor(extract(epoch FROM p_now))::bigint, 1, 0, 0,
                     k.per_minute, k.per_day);
    IF lease.outcome = 'rate_limited' THEN
        RETURN QUERY SELECT 'rate_limited'::text, k.id, k.partner_id, k.sub_account_id, k.scopes,
            k.api_write, k.retention_days, k.networks, k.multi_site, k.per_minute, 0,
            lease.retry_after;
        RETURN;
    END IF;
    IF lease.outcome = 'quota_exceeded' THEN
        RETURN QUERY SELECT 'quota_exceeded'::text, k.id, k.partner_id, k.sub_account_id, k.scopes,
            k.api_write, k.retention_days, k.networks, k.multi_site, k.per_minute,
            GREATEST(k.per_minute - lease.in_window, 0), lease.retry_after;
        RETURN;
    END IF;
    RETURN QUERY SELECT 'ok'::text, k.id, k.partner_id, k.sub_account_id, k.scopes,
        k.api_write, k.retention_days, k.networks, k.multi_site, k.per_minute,
        GREATEST(k.per_minute - lease.in_window - 1, 0), 0;
END;
$$;
