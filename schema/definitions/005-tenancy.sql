-- Tenancy rules, each written once (decisions D2, api-spec 1.3): every device lookup in a
-- key's scope goes through device_visible, so another tenant's device is exactly as
-- missing as an unknown one. A LANGUAGE sql expression: PostgreSQL inlines it into the
-- calling query, so indexes on the device's id, DevEUI and partner are still used.

-- Whether a key of partner p_partner_id (and sub-account p_sub_account_id, NULL for a
-- partner key) sees device p_device: a partner key sees all its partner's devices, a
-- sub-account key only the devices assigned to its sub-account.
CREATE OR REPLACE FUNCTION device_visible(
    p_device devices, p_partner_id uuid, p_sub_account_id uuid
) RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT p_device.partner_id = p_partner_id
       AND (p_sub_account_id IS NULL
            OR (p_device.sub_account_id = p_sub_account_id AND p_device.status = 'assigned'))
$$;
