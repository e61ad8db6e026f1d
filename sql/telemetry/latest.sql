-- name: latest_with_auth
-- One round trip for GET /latest: authenticates and counts the key ($1 hash), then finds the device by id ($2) or DevEUI ($3) in its scope with the stored body.
SELECT a.outcome, a.key_id, a.partner_id, a.sub_account_id, a.scopes, a.api_write,
       a.retention_days, a.networks_enabled, a.multi_site_enabled, a.rate_limit, a.remaining,
       a.retry_after, d.num AS device_num, d.status, s.latest_body, s.latest_etag
  FROM api_authenticate($1) AS a
  LEFT JOIN LATERAL (
        SELECT x.num, x.status FROM devices x
         WHERE a.outcome = 'ok' AND 'telemetry:read' = ANY (a.scopes)
           AND x.partner_id = a.partner_id
           AND (x.id = $2 OR x.dev_eui = $3)
           AND (a.sub_account_id IS NULL
                OR (x.sub_account_id = a.sub_account_id AND x.status = 'assigned'))
         LIMIT 1) AS d ON true
  LEFT JOIN device_state s ON s.device_num = d.num;
