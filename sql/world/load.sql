-- name: existing_ids
-- Ids of a world file that are already taken, per table, so the load can refuse them.
SELECT 'partners' AS tbl, id FROM partners WHERE id = ANY ($1::uuid[])
UNION ALL SELECT 'sub_accounts', id FROM sub_accounts WHERE id = ANY ($2::uuid[])
UNION ALL SELECT 'api_keys', id FROM api_keys WHERE id = ANY ($3::uuid[])
UNION ALL SELECT 'integrations', id FROM integrations WHERE id = ANY ($4::uuid[])
UNION ALL SELECT 'users', id FROM users WHERE id = ANY ($5::uuid[])
UNION ALL SELECT 'device_profiles', id FROM device_profiles WHERE id = ANY ($6::uuid[])
UNION ALL SELECT 'profile_fields', id FROM profile_fields WHERE id = ANY ($7::uuid[])
UNION ALL SELECT 'downlink_templates', id FROM downlink_templates WHERE id = ANY ($8::uuid[])
UNION ALL SELECT 'sites', id FROM sites WHERE id = ANY ($9::uuid[])
UNION ALL SELECT 'networks', id FROM networks WHERE id = ANY ($10::uuid[])
UNION ALL SELECT 'gateways', id FROM gateways WHERE id = ANY ($11::uuid[])
UNION ALL SELECT 'devices', id FROM devices WHERE id = ANY ($12::uuid[])
UNION ALL SELECT 'multicast_groups', id FROM multicast_groups WHERE id = ANY ($13::uuid[])
UNION ALL SELECT 'webhook_endpoints', id FROM webhook_endpoints WHERE id = ANY ($14::uuid[])

-- name: existing_secrets
-- Key and integration-token hashes of a world file that another key or token already uses.
SELECT 'key' AS kind, key_hash AS hash FROM api_keys WHERE key_hash = ANY ($1::bytea[])
UNION ALL
SELECT 'token', token_hash FROM integrations WHERE token_hash = ANY ($2::bytea[])

-- name: insert_partner
-- One partner with its plan, tier and feature defaults.
INSERT INTO partners (id, name, api_write, retention_days, tier_per_minute, tier_per_day,
                      networks_enabled, multi_site_enabled)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)

-- name: insert_sub_account
-- One sub-account; NULL tier and feature columns inherit the partner's.
INSERT INTO sub_accounts (id, partner_id, name, status, tier_per_minute, tier_per_day,
                          networks_enabled, multi_site_enabled, member_limit)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)

-- name: insert_api_key
-- One API key by the hash of its secret.
INSERT INTO api_keys (id, partner_id, sub_account_id, name, key_hash, scopes, expires_at, revoked_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)

-- name: insert_api_key_usage
-- The empty rate-limit counters of a new key.
INSERT INTO api_key_usage (key_id) VALUES ($1)

-- name: insert_audit
-- One audit log entry.
INSERT INTO audit_log (partner_id, action, detail) VALUES ($1, $2, $3)

-- name: insert_integration
-- One network-server integration by the hash of its token, with its MQTT and gRPC settings.
INSERT INTO integrations (id, partner_id, kind, token_hash, mqtt_url, mqtt_topic,
                          mqtt_client_id, grpc_url, grpc_api_token, grpc_tls)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)

-- name: insert_user
-- One user account of a partner's workspace.
INSERT INTO users (id, partner_id, email, email_key, name, password_hash, status, mfa_enabled,
                   locked_until, last_login_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)

-- name: insert_profile
-- One device profile.
INSERT INTO device_profiles (id, partner_id, name, retain_last_value) VALUES ($1, $2, $3, $4)

-- name: insert_field
-- One field of a device profile; a NULL measurement ($14) takes its data type's default
-- (the trigger of schema/160-field-measurement.sql).
INSERT INTO profile_fields (id, profile_id, position, identifier, label, unit, data_type, kind,
                            role, formula, source, mapping, default_value, measurement)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)

-- name: insert_template
-- One downlink template of a device profile.
INSERT INTO downlink_templates (id, profile_id, key, name, f_port, confirmed, layout, sample_data)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)

-- name: insert_alert_rule
-- One alert rule of a device profile.
INSERT INTO alert_rules (profile_id, field, op, value, level) VALUES ($1, $2, $3, $4, $5)

-- name: insert_site
-- One site (parents are inserted before their children).
INSERT INTO sites (id, sub_account_id, parent_site_id, name, depth) VALUES ($1, $2, $3, $4, $5)

-- name: insert_network
-- One network of a sub-account.
INSERT INTO networks (id, sub_account_id, site_id, name) VALUES ($1, $2, $3, $4)

-- name: insert_membership
-- One user's membership of a sub-account.
INSERT INTO memberships (sub_account_id, user_id, role, site_id) VALUES ($1, $2, $3, $4)

-- name: insert_gateways
-- Gateways in bulk, one array per column (assigned or in the partner's pool).
INSERT INTO gateways (id, partner_id, sub_account_id, gateway_eui, name, status, network_id,
                      site_id, manual_location)
SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::text[],
                     $7::uuid[], $8::uuid[], $9::jsonb[])

-- name: insert_devices
-- Devices in bulk, one array per column (assigned or in the partner's pool).
INSERT INTO devices (id, partner_id, sub_account_id, dev_eui, name, serial_number, status,
                     profile_id, network_id, site_id, offline_threshold_minutes,
                     downlink_rate_per_hour, downlink_expiry_seconds, manual_location,
                     manual_location_at, static_values, calibration)
SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::text[],
                     $7::text[], $8::uuid[], $9::uuid[], $10::uuid[], $11::int[], $12::int[],
                     $13::int[], $14::jsonb[], $15::timestamptz[], $16::jsonb[], $17::jsonb[])

-- name: insert_multicast_group
-- One multicast group of a sub-account.
INSERT INTO multicast_groups (id, sub_account_id, name) VALUES ($1, $2, $3)

-- name: insert_multicast_members
-- Devices of multicast groups in bulk: group ids and device ids, pairwise.
INSERT INTO multicast_members (group_id, device_id)
SELECT * FROM unnest($1::uuid[], $2::uuid[])

-- name: no_statement_timeout
-- A world load is an operator's bulk job: no per-statement limit within its transaction.
SET LOCAL statement_timeout = 0
