-- Tenancy, the rule written once (decisions D2, D6, D9): whether an API key sees one
-- device or gateway. Every lookup of a single device or gateway in a key's scope goes
-- through it (tenant_device below, sql/gateways/gateways.sql), so another tenant's
-- resource is exactly as missing as an unknown one. LANGUAGE sql functions: PostgreSQL
-- inlines them into the calling query, so the indexes on id, EUI and partner are used as
-- before.

-- A key of partner p_key_partner_id (and sub-account p_key_sub_account_id, NULL for a
-- partner key) sees a resource of partner p_partner_id in sub-account p_sub_account_id
-- with status p_status: a partner key sees all its partner's devices and gateways, a
-- sub-account key only those assigned to its sub-account.
CREATE OR REPLACE FUNCTION tenant_sees(
    p_partner_id            uuid,
    p_sub_account_id        uuid,
    p_status                text,
    p_key_partner_id        uuid,
    p_key_sub_account_id    uuid
) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT p_partner_id = p_key_partner_id
       AND (p_key_sub_account_id IS NULL
            OR (p_sub_account_id = p_key_sub_account_id AND p_status = 'assigned'))
$$;

-- A device by its id or its DevEUI (NULL for the one not given) as a key sees it: the one
-- lookup of every route that addresses a device (sql/auth/tenancy.sql resolve_device for
-- app/auth/tenancy.py, /history's context, GET /latest's by id and by DevEUI, api_latest).
-- Set-returning with a plain body, so it is inlined like a view: with one of the two
-- NULL its clause folds away and the id or DevEUI index drives the plan.
CREATE OR REPLACE FUNCTION tenant_device(
    p_key_partner_id        uuid,
    p_key_sub_account_id    uuid,
    p_device_id             uuid,
    p_dev_eui               text
) RETURNS SETOF devices
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT * FROM devices d
     WHERE (d.id = p_device_id OR d.dev_eui = p_dev_eui)
       AND tenant_sees(d.partner_id, d.sub_account_id, d.status,
                       p_key_partner_id, p_key_sub_account_id)
$$;

-- Feature resolution, the rule written once (decisions D17, D18): a sub-account's own
-- setting, else its partner's; the tier limits are the sub-account's, capped by the
-- partner's. p_sub_account_id NULL (an inventory device, a partner key) gives the
-- partner's own. Every query that shows, hides or filters by a feature, or applies a
-- tier limit, reads it from here. A LANGUAGE sql set-returning function: PostgreSQL
-- inlines it into the calling query as a join on the partner and sub-account keys, and
-- drops those joins where no column is used (a list whose feature filters are absent).
CREATE OR REPLACE FUNCTION account_features(p_partner_id uuid, p_sub_account_id uuid)
RETURNS TABLE (networks boolean, multi_site boolean, per_minute integer, per_day integer)
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT COALESCE(sa.networks_enabled, p.networks_enabled),
           COALESCE(sa.multi_site_enabled, p.multi_site_enabled),
           LEAST(p.tier_per_minute, COALESCE(sa.tier_per_minute, p.tier_per_minute)),
           LEAST(p.tier_per_day, COALESCE(sa.tier_per_day, p.tier_per_day))
      FROM partners p
      LEFT JOIN sub_accounts sa ON sa.id = p_sub_account_id
     WHERE p.id = p_partner_id
$$;

-- The sub-accounts of a partner with their resolved features: what a partner key sees of
-- its sub-accounts (api_key_info), and the scope of the network and site lists.
CREATE OR REPLACE VIEW sub_account_features AS
SELECT sa.id AS sub_account_id, sa.partner_id, f.networks, f.multi_site
  FROM sub_accounts sa
 CROSS JOIN LATERAL account_features(sa.partner_id, sa.id) f;

-- The sub-accounts a key sees, with their features: partner p_partner_id's; for a
-- sub-account key only its own (p_key_sub_account_id); narrowed by a subAccountId filter
-- (p_sub_account_id). The tenancy rule of the sub-accounts themselves and of everything
-- that belongs to one (networks, sites, multicast groups).
CREATE OR REPLACE FUNCTION scoped_sub_accounts(
    p_partner_id uuid, p_key_sub_account_id uuid, p_sub_account_id uuid
) RETURNS SETOF sub_account_features
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT f.*
      FROM sub_account_features f
     WHERE f.partner_id = p_partner_id
       AND (p_key_sub_account_id IS NULL OR f.sub_account_id = p_key_sub_account_id)
       AND (p_sub_account_id IS NULL OR f.sub_account_id = p_sub_account_id)
$$;
