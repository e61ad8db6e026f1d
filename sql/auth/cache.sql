-- name: key_info
-- What the key cache keeps about a key hash ($1): tenancy, scopes, plan, features, tier limits, expiry and revocation; no row for an unknown key.
SELECT key_id, partner_id, sub_account_id, scopes, api_write, retention_days,
       networks_enabled, multi_site_enabled, per_minute, per_day, expires_at, revoked_at
  FROM api_key_info($1)

-- name: lease
-- Gives back $4 unused permits of second $3 and leases up to $2 new ones for key $1 now, by the database's clock (see api_lease).
SELECT granted, second, valid_ms, in_window, day_used, outcome, retry_after, hold_ms
  FROM api_lease($1, NULL, $2, $3, $4, $5, $6, $7, $8)
