-- name: sub_account_partner
-- The partner of a sub-account, to bind a new key or assign a device.
SELECT partner_id FROM sub_accounts WHERE id = $1

-- name: partner_exists
-- Whether a partner exists.
SELECT EXISTS (SELECT 1 FROM partners WHERE id = $1)

-- name: insert_key
-- A new API key by the hash of its secret.
INSERT INTO api_keys (id, partner_id, sub_account_id, name, key_hash, scopes, expires_at)
VALUES ($1, $2, $3, $4, $5, $6, $7)

-- name: insert_key_usage
-- The empty rate-limit counters of a new key.
INSERT INTO api_key_usage (key_id) VALUES ($1)

-- name: insert_audit
-- One audit log entry (never a secret).
INSERT INTO audit_log (partner_id, action, detail) VALUES ($1, $2, $3)

-- name: revoke_key
-- Revokes a key now; a key revoked earlier keeps its first revocation time.
UPDATE api_keys SET revoked_at = coalesce(revoked_at, now())
 WHERE id = $1
RETURNING partner_id, sub_account_id, name, revoked_at

-- name: lock_device
-- A device and where it stands, locked for a status change.
SELECT id, num, partner_id, sub_account_id, status FROM devices WHERE id = $1 FOR UPDATE

-- name: lock_device_by_eui
-- Devices with a DevEUI (unique per partner only), locked for a status change.
SELECT id, num, partner_id, sub_account_id, status FROM devices WHERE dev_eui = $1 FOR UPDATE

-- name: delete_device_telemetry
-- Every reading, rollup, latest value, alert and queued downlink of a device (D16).
SELECT delete_device_telemetry($1)

-- name: leave_foreign_multicast_groups
-- Takes a device ($1) out of every multicast group of a sub-account other than $2.
DELETE FROM multicast_members m
 USING multicast_groups g
 WHERE m.group_id = g.id AND m.device_id = $1 AND g.sub_account_id <> $2

-- name: move_device
-- Sets a device's status and sub-account; $4 true also clears its network and site.
UPDATE devices
   SET status = $2, sub_account_id = $3,
       network_id = CASE WHEN $4 THEN NULL ELSE network_id END,
       site_id = CASE WHEN $4 THEN NULL ELSE site_id END
 WHERE id = $1

-- name: set_partner_features
-- A partner's feature defaults; NULL leaves a switch as it is.
UPDATE partners
   SET networks_enabled = coalesce($2, networks_enabled),
       multi_site_enabled = coalesce($3, multi_site_enabled)
 WHERE id = $1
RETURNING id AS partner_id

-- name: set_sub_account_features
-- A sub-account's own feature switches (beating the partner's); NULL leaves one as it is.
UPDATE sub_accounts
   SET networks_enabled = coalesce($2, networks_enabled),
       multi_site_enabled = coalesce($3, multi_site_enabled),
       updated_at = now()
 WHERE id = $1
RETURNING partner_id
