-- The gateway directory (api-spec 2.6, 3.1, 4.4, decisions D17, D18). Online: assigned and
-- seen (stats or a relayed uplink) within 30 minutes. Inventory and archived gateways show
-- no live fields, but keep a manually set location. Optional filters fold away per call
-- as in sql/devices/devices.sql.

-- name: list_gateways
-- A page of gateways in the key's scope ($1 partner, $2 key sub-account) matching the filters, with the total.
WITH defaults AS MATERIALIZED (
    SELECT networks_enabled AS networks, multi_site_enabled AS multi_site
      FROM partners WHERE id = $1
),
network_filter AS MATERIALIZED (
    -- The network filter ($5), if the Networks feature is on for its sub-account. Joined
    -- on the row, not as an uncorrelated EXISTS: such a constant condition would keep the
    -- planner from dropping the unused joins of the list.
    SELECT n.id FROM networks n JOIN sub_accounts sa ON sa.id = n.sub_account_id
     WHERE n.id = $5 AND sa.partner_id = $1
       AND COALESCE(sa.networks_enabled, (SELECT networks FROM defaults))
),
root AS MATERIALIZED (
    -- The site filter ($8), if multi-site is on for its sub-account.
    SELECT s.id FROM sites s JOIN sub_accounts sa ON sa.id = s.sub_account_id
     WHERE s.id = $8 AND sa.partner_id = $1
       AND COALESCE(sa.multi_site_enabled, (SELECT multi_site FROM defaults))
),
subtree AS MATERIALIZED (
    -- With includeDescendants ($10), the subtree of the site (at most 3 levels).
    SELECT id FROM root
    UNION ALL
    SELECT c.id FROM sites c WHERE $10 AND c.parent_site_id IN (SELECT id FROM root)
    UNION ALL
    SELECT g.id FROM sites c JOIN sites g ON g.parent_site_id = c.id
     WHERE $10 AND c.parent_site_id IN (SELECT id FROM root)
),
matching AS NOT MATERIALIZED (
    SELECT g.id, g.name
      FROM gateways g
      LEFT JOIN sub_accounts sa ON sa.id = g.sub_account_id
     WHERE g.partner_id = $1
       AND ($2::uuid IS NULL OR g.sub_account_id = $2)
       AND ($3::uuid IS NULL OR g.sub_account_id = $3)
       AND ($4::text[] IS NULL OR g.status = ANY ($4::text[]))
       AND ($5::uuid IS NULL
            OR (g.network_id = $5
                AND EXISTS (SELECT 1 FROM network_filter f WHERE f.id = g.network_id)))
       AND (NOT $6::boolean
            OR (g.network_id IS NULL
                AND COALESCE(sa.networks_enabled, (SELECT networks FROM defaults))))
       AND ($8::uuid IS NULL OR g.site_id IN (SELECT id FROM subtree))
       AND (NOT $9::boolean
            OR (g.site_id IS NULL
                AND COALESCE(sa.multi_site_enabled, (SELECT multi_site FROM defaults))))
       AND ($7::boolean IS NULL
            OR COALESCE(g.status = 'assigned'
                        AND g.last_seen_at >= now() - interval '30 minutes', false) = $7)
),
page AS (
    SELECT id, name FROM matching ORDER BY name, id LIMIT $11 OFFSET $12
)
SELECT t.total, g.id, g.gateway_eui, g.name, g.status, g.sub_account_id,
       CASE WHEN COALESCE(sa.networks_enabled, df.networks) THEN g.network_id END AS network_id,
       CASE WHEN COALESCE(sa.multi_site_enabled, df.multi_site) THEN g.site_id END AS site_id,
       COALESCE(g.status = 'assigned' AND g.last_seen_at >= now() - interval '30 minutes',
                false) AS online,
       CASE WHEN g.status = 'assigned' THEN g.last_seen_at END AS last_seen_at,
       CASE WHEN g.status = 'assigned' THEN g.last_stats_at END AS last_stats_at,
       CASE WHEN g.status = 'assigned' THEN COALESCE(g.reported_location, g.manual_location)
            ELSE g.manual_location END AS location
  FROM (SELECT count(*) AS total FROM matching) t
  CROSS JOIN defaults df
  LEFT JOIN page pg ON true
  LEFT JOIN gateways g ON g.id = pg.id
  LEFT JOIN sub_accounts sa ON sa.id = g.sub_account_id
 ORDER BY pg.name, pg.id

-- name: get_gateway
-- One gateway by id ($3) or GatewayEUI ($4) in the key's scope ($1 partner, $2 key sub-account).
SELECT g.id, g.gateway_eui, g.name, g.status, g.sub_account_id,
       CASE WHEN COALESCE(sa.networks_enabled, p.networks_enabled) THEN g.network_id END AS network_id,
       CASE WHEN COALESCE(sa.multi_site_enabled, p.multi_site_enabled) THEN g.site_id END AS site_id,
       COALESCE(g.status = 'assigned' AND g.last_seen_at >= now() - interval '30 minutes',
                false) AS online,
       CASE WHEN g.status = 'assigned' THEN g.last_seen_at END AS last_seen_at,
       CASE WHEN g.status = 'assigned' THEN g.last_stats_at END AS last_stats_at,
       CASE WHEN g.status = 'assigned' THEN COALESCE(g.reported_location, g.manual_location)
            ELSE g.manual_location END AS location
  FROM gateways g
  JOIN partners p ON p.id = g.partner_id
  LEFT JOIN sub_accounts sa ON sa.id = g.sub_account_id
 WHERE (g.id = $3 OR g.gateway_eui = $4)
   AND tenant_sees(g.partner_id, g.sub_account_id, g.status, $1, $2::uuid)
 LIMIT 1
