-- name: authenticate
-- Resolves a key hash to its tenancy and counts the request against its limits.
SELECT outcome, key_id, partner_id, sub_account_id, scopes, api_write, retention_days,
       networks_enabled, multi_site_enabled, rate_limit, remaining, retry_after,
       day_limit, day_remaining
  FROM api_authenticate($1)
