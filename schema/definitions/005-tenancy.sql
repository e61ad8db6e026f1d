-- Tenancy, the rule written once (decisions D2, D6, D9): whether an API key sees one
-- device or gateway. Every lookup of a single device or gateway in a key's scope goes
-- through it (sql/auth/tenancy.sql resolve_device, sql/telemetry/latest.sql, api_latest,
-- sql/gateways/gateways.sql), so another tenant's resource is exactly as missing as an
-- unknown one. A LANGUAGE sql expression: PostgreSQL inlines it into the calling query,
-- so the indexes on id, EUI and partner are used as before.

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
