-- The gateway directory (api-spec 2.6, 3.1, 4.4, decisions D17, D18). How a gateway is
-- shown (online, live fields, location, networkId/siteId by feature) is the view
-- gateway_directory, and the placement filters are placement_matches, both in
-- schema/definitions/050-directory.sql. Optional filters fold away per call as in
-- sql/devices/devices.sql.

-- name: list_gateways
-- A page of gateways in the key's scope ($1 partner, $2 key sub-account) matching the filters, with the total.
WITH matching AS NOT MATERIALIZED (
    SELECT g.id, g.name
      FROM gateways g
     WHERE g.partner_id = $1
       AND ($2::uuid IS NULL OR g.sub_account_id = $2)
       AND ($3::uuid IS NULL OR g.sub_account_id = $3)
       AND ($4::text[] IS NULL OR g.status = ANY ($4::text[]))
       AND placement_matches(g.network_id, g.site_id, g.sub_account_id,
               $5, g.network_id IN (SELECT n FROM filter_network($1, $5) n),
               $6, ARRAY(SELECT a FROM feature_accounts($1, 'networks') a),
               $8, g.site_id IN (SELECT s FROM filter_sites($1, $8, $10) s),
               $9, ARRAY(SELECT a FROM feature_accounts($1, 'multi_site') a))
       AND ($7::boolean IS NULL OR gateway_online(g.status, g.last_seen_at) = $7)

)
SELECT t.total, g.id, g.gateway_eui, g.name, g.status, g.sub_account_id, g.network_id,
       g.site_id, g.online, g.last_seen_at, g.last_stats_at, g.location
  FROM (SELECT count(*) AS total FROM matching) t
  LEFT JOIN (SELECT id, name FROM matching ORDER BY name, id LIMIT $11 OFFSET $12) pg ON true
  LEFT JOIN gateway_directory g ON g.id = pg.id
 ORDER BY pg.name, pg.id

-- name: get_gateway
-- One gateway by id ($3) or GatewayEUI ($4) in the key's scope ($1 partner, $2 key sub-account).
SELECT g.id, g.gateway_eui, g.name, g.status, g.sub_account_id, g.network_id, g.site_id,
       g.online, g.last_seen_at, g.last_stats_at, g.location
  FROM gateway_directory g
 WHERE (g.id = $3 OR g.gateway_eui = $4)
   AND tenant_sees(g.partner_id, g.sub_account_id, g.status, $1, $2::uuid)
 LIMIT 1
