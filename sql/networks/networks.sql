-- Networks with their health rollups (api-spec 2.10, 4.8, decisions D17, D18). Visible
-- only in sub-accounts where the Networks feature is on (the sub-account's own value, else
-- the partner's). Members are the assigned devices and gateways of the network: inventory
-- items have no network, and archived ones are not live (nor visible to a sub-account key).
-- A device is online when its last uplink is within its own offline threshold; alerting
-- when it has at least one active alert of any level. device_alerts holds active alerts
-- only, so it is hashed once per query rather than probed once per member (bench_directory:
-- rollup of a 10k-device network about half the CPU).
-- The device rollups read device_presence (schema/034): one row per assigned device with
-- online_until = last uplink + its threshold, so the members of a network, their online
-- count and their alert probe are one index-only scan of device_presence_network
-- (network_id, online_until) INCLUDE (device_num). EXPLAIN (ANALYZE, BUFFERS) on
-- bench_directory, GET /networks/{id} of a 10k network: before, 10,000 device_state_pkey
-- probes (~30,000 buffers, ~40 ms); after, Index Only Scan of 10,000 entries, Heap
-- Fetches 0, ~110 buffers, plus one hash of device_alerts.

-- name: list_networks
-- A page of networks in the key's scope ($1 partner, $2 key sub-account) matching the filters, with rollups and the total.
WITH defaults AS MATERIALIZED (
    SELECT networks_enabled AS networks, multi_site_enabled AS multi_site
      FROM partners WHERE id = $1
),
root AS MATERIALIZED (
    -- The site filter ($4), if multi-site is on for its sub-account.
    SELECT s.id FROM sites s JOIN sub_accounts sa ON sa.id = s.sub_account_id
     WHERE s.id = $4 AND sa.partner_id = $1
       AND COALESCE(sa.multi_site_enabled, (SELECT multi_site FROM defaults))
),
subtree AS MATERIALIZED (
    -- With includeDescendants ($6), the subtree of the site (at most 3 levels).
    SELECT id FROM root
    UNION ALL
    SELECT c.id FROM sites c WHERE $6 AND c.parent_site_id IN (SELECT id FROM root)
    UNION ALL
    SELECT g.id FROM sites c JOIN sites g ON g.parent_site_id = c.id
     WHERE $6 AND c.parent_site_id IN (SELECT id FROM root)
),
matching AS NOT MATERIALIZED (
    SELECT n.id, n.name
      FROM networks n
      JOIN sub_accounts sa ON sa.id = n.sub_account_id
     WHERE sa.partner_id = $1
       AND ($2::uuid IS NULL OR n.sub_account_id = $2)
       AND ($3::uuid IS NULL OR n.sub_account_id = $3)
       AND COALESCE(sa.networks_enabled, (SELECT networks FROM defaults))
       AND ($4::uuid IS NULL OR n.site_id IN (SELECT id FROM subtree))
       AND (NOT $5::boolean
            OR (n.site_id IS NULL
                AND COALESCE(sa.multi_site_enabled, (SELECT multi_site FROM defaults))))
),
page AS (
    SELECT id, name FROM matching ORDER BY name, id LIMIT $7 OFFSET $8
)
SELECT t.total, n.id, n.name, n.sub_account_id,
       CASE WHEN COALESCE(sa.multi_site_enabled, df.multi_site) THEN n.site_id END AS site_id,
       dev.device_count, dev.device_online_count, dev.device_alerting_count,
       gw.gateway_count, gw.gateway_online_count
  FROM (SELECT count(*) AS total FROM matching) t
  CROSS JOIN defaults df
  LEFT JOIN page pg ON true
  LEFT JOIN networks n ON n.id = pg.id
  LEFT JOIN sub_accounts sa ON sa.id = n.sub_account_id
  LEFT JOIN LATERAL (
      SELECT count(*) AS device_count,
             count(*) FILTER (WHERE p.online_until >= now()) AS device_online_count,
             count(*) FILTER (
                 WHERE p.device_num IN (SELECT a.device_num FROM device_alerts a)
             ) AS device_alerting_count
        FROM device_presence p
       WHERE p.network_id = n.id
  ) dev ON true
  LEFT JOIN LATERAL (
      SELECT count(*) AS gateway_count,
             count(*) FILTER (WHERE g.last_seen_at >= now() - interval '30 minutes')
                 AS gateway_online_count
        FROM gateways g
       WHERE g.network_id = n.id AND g.status = 'assigned'
  ) gw ON true
 ORDER BY pg.name, pg.id

-- name: get_network
-- One network by id ($3) in the key's scope ($1 partner, $2 key sub-account) where the feature is on, with rollups.
SELECT n.id, n.name, n.sub_account_id,
       CASE WHEN COALESCE(sa.multi_site_enabled, p.multi_site_enabled) THEN n.site_id END AS site_id,
       dev.device_count, dev.device_online_count, dev.device_alerting_count,
       gw.gateway_count, gw.gateway_online_count
  FROM networks n
  JOIN sub_accounts sa ON sa.id = n.sub_account_id
  JOIN partners p ON p.id = sa.partner_id
  CROSS JOIN LATERAL (
      SELECT count(*) AS device_count,
             count(*) FILTER (WHERE p.online_until >= now()) AS device_online_count,
             count(*) FILTER (
                 WHERE p.device_num IN (SELECT a.device_num FROM device_alerts a)
             ) AS device_alerting_count
        FROM device_presence p
       WHERE p.network_id = n.id
  ) dev
  CROSS JOIN LATERAL (
      SELECT count(*) AS gateway_count,
             count(*) FILTER (WHERE g.last_seen_at >= now() - interval '30 minutes')
                 AS gateway_online_count
        FROM gateways g
       WHERE g.network_id = n.id AND g.status = 'assigned'
  ) gw
 WHERE n.id = $3 AND sa.partner_id = $1
   AND ($2::uuid IS NULL OR n.sub_account_id = $2)
   AND COALESCE(sa.networks_enabled, p.networks_enabled)

-- name: network_devices
-- The assigned member devices of one network ($1), by name.
SELECT d.id, d.name, d.dev_eui,
       COALESCE(ds.last_uplink_at >= now() - make_interval(mins => d.offline_threshold_minutes),
                false) AS online,
       ds.signal_quality, ds.last_seen_at
  FROM devices d
  LEFT JOIN device_state ds ON ds.device_num = d.num
 WHERE d.network_id = $1 AND d.status = 'assigned'
 ORDER BY d.name, d.id

-- name: network_gateways
-- The assigned member gateways of one network ($1), by name.
SELECT g.id, g.name, g.gateway_eui,
       COALESCE(g.last_seen_at >= now() - interval '30 minutes', false) AS online,
       g.last_seen_at
  FROM gateways g
 WHERE g.network_id = $1 AND g.status = 'assigned'
 ORDER BY g.name, g.id
