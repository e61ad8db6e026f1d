-- name: partner_of
-- The partner of a key or integration token by the SHA-256 of the secret ($1); no row when unknown.
SELECT partner_id FROM placement_directory WHERE secret_hash = $1

-- name: cluster_secrets
-- Every key and integration token hash of this cluster with its partner, for the directory.
SELECT key_hash AS secret_hash, partner_id, 'key' AS kind FROM api_keys
UNION ALL
SELECT token_hash, partner_id, 'integration' FROM integrations

-- name: register
-- Records secret hashes ($1) with their partners ($2) and kinds ($3) in the directory.
INSERT INTO placement_directory (secret_hash, partner_id, kind)
SELECT * FROM unnest($1::bytea[], $2::uuid[], $3::text[])
ON CONFLICT (secret_hash) DO UPDATE SET partner_id = EXCLUDED.partner_id, kind = EXCLUDED.kind
