-- name: latest_with_auth
-- One round trip for GET /latest: authenticates and counts the key ($1 hash), then finds the device by id ($2) or DevEUI ($3) in its scope with its stored body.
SELECT outcome, key_id, partner_id, sub_account_id, scopes, api_write, retention_days,
       networks_enabled, multi_site_enabled, rate_limit, remaining, retry_after, day_limit,
       day_remaining, device_num, status, latest_body, latest_etag
  FROM api_latest($1, $2, $3);

-- name: latest_by_id
-- Read-only lookup of GET /latest after cached authentication: the device by id ($1) in the tenancy of partner $2 / sub-account $3 (NULL: partner key) with its stored body.
SELECT d.num AS device_num, d.status, s.latest_body, s.latest_etag
  FROM tenant_device($2, $3::uuid, $1, NULL) d
  LEFT JOIN device_state s ON s.device_num = d.num

-- name: latest_by_eui
-- Read-only lookup of GET /latest after cached authentication: the device by DevEUI ($1) in the tenancy of partner $2 / sub-account $3 (NULL: partner key) with its stored body.
SELECT d.num AS device_num, d.status, s.latest_body, s.latest_etag
  FROM tenant_device($2, $3::uuid, NULL, $1) d
  LEFT JOIN device_state s ON s.device_num = d.num

-- name: static_body
-- The body and ETag of device $1 that has not reported yet: its static values and formulas over them ($3) and the derived ones ($4, NULL when the profile has none), built by latest_body like every stored body. No row unless $1 is the device with num $2: the check of a context cached by num.
SELECT body AS latest_body, latest_etag(body) AS latest_etag
  FROM latest_body($1, NULL, $3, NULL, NULL, $4) AS body
 WHERE EXISTS (SELECT FROM devices WHERE id = $1 AND num = $2)
