-- POST /query (analytics.md section 2): the devices named by id or DevEUI, and the secret
-- that signs cursors. Devices selected by filters come from export.fleet_devices, the
-- fleet export's reading of the GET /devices filters; the series are read by
-- app/history/series.py (sql/history/history.sql), as /history reads them.

-- name: devices_by_ref
-- Assigned devices the key sees ($1 partner, $2 key sub-account) among ids $3 and DevEUIs $4, each once, in id order, with whether multi-site is on for each.
SELECT d.num, d.id, d.dev_eui, d.profile_id,
       COALESCE((SELECT af.multi_site FROM sub_account_features af
                  WHERE af.sub_account_id = d.sub_account_id), false) AS multi_site
  FROM devices d
 WHERE (d.id = ANY ($3::uuid[]) OR d.dev_eui = ANY ($4::text[]))
   AND d.status = 'assigned'
   AND tenant_sees(d.partner_id, d.sub_account_id, d.status, $1, $2::uuid)
 ORDER BY d.id

-- name: cursor_secret
-- The database's own cursor secret (schema/150-cursor-secret.sql), used when CURSOR_SECRET is not set.
SELECT secret FROM server_secrets WHERE name = 'query_cursor'
