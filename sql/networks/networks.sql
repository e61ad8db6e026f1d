-- Networks with their health rollups (api-spec 2.10, 4.8, decisions D17, D18). Visible
-- only in sub-accounts where the Networks feature is on (scoped_sub_accounts). How a network
-- is shown and rolled up is the view network_directory (network_health), and the member
-- lists use the directory's online rules, all in schema/definitions/050-directory.sql.

-- name: list_networks
-- A page of networks in the key's scope ($1 partner, $2 key sub-account) matching the filters, with rollups and the total.
WITH matching AS NOT MATERIALIZED (
    SELECT n.id, n.name
      FROM networks n
      JOIN scoped_sub_accounts($1, $2, $3) f ON f.sub_account_id = n.sub_account_id
     WHERE f.networks
       AND placement_matches(NULL, n.site_id, n.sub_account_id, NULL, NULL, false, NULL,
               $4, n.site_id IN (SELECT s FROM filter_sites($1, $4, $6) s),
               $5, ARRAY(SELECT a FROM feature_accounts($1, 'multi_site') a))
)
SELECT t.total, n.id, n.name, n.sub_account_id, n.site_id,
       n.device_count, n.device_online_count, n.device_alerting_count,
       n.gateway_count, n.gateway_online_count
  FROM (SELECT count(*) AS total FROM matching) t
  LEFT JOIN (SELECT id, name FROM matching ORDER BY name, id LIMIT $7 OFFSET $8) pg ON true
  LEFT JOIN network_directory n ON n.id = pg.id
 ORDER BY pg.name, pg.id

-- name: get_network
-- One network by id ($3) in the key's scope ($1 partner, $2 key sub-account) where the feature is on, with rollups.
SELECT n.id, n.name, n.sub_account_id, n.site_id,
       n.device_count, n.device_online_count, n.device_alerting_count,
       n.gateway_count, n.gateway_online_count
  FROM network_directory n
  JOIN scoped_sub_accounts($1, $2, NULL) f ON f.sub_account_id = n.sub_account_id
 WHERE n.id = $3 AND f.networks

-- name: network_devices
-- The assigned member devices of one network ($1), by name.
SELECT d.id, d.name, d.dev_eui,
       device_online(ds.last_uplink_at, d.offline_threshold_minutes) AS online,
       ds.signal_quality, ds.last_seen_at
  FROM devices d
  LEFT JOIN device_state ds ON ds.device_num = d.num
 WHERE d.network_id = $1 AND d.status = 'assigned'
 ORDER BY d.name, d.id

-- name: network_gateways
-- The assigned member gateways of one network ($1), by name.
SELECT g.id, g.name, g.gateway_eui, gateway_online(g.status, g.last_seen_at) AS online,
       g.last_seen_at
  FROM gateways g
 WHERE g.network_id = $1 AND g.status = 'assigned'
 ORDER BY g.name, g.id
