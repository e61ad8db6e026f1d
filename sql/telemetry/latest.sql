-- name: latest_with_auth
-- One round trip for GET /latest: authenticates and counts the key ($1 hash), then finds the device by id ($2) or DevEUI ($3) in its scope with its stored body.
SELECT outcome, key_id, partner_id, sub_account_id, scopes, api_write, retention_days,
       networks_enabled, multi_site_enabled, rate_limit, remaining, retry_after, device_num,
       status, latest_body, latest_etag
  FROM api_latest($1, $2, $3);
