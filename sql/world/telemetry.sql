-- name: devices_by_reference
-- Devices named by id ($1 uuid[]) or DevEUI ($2 text[]), for world-file telemetry.
SELECT partner_id, num, id, status, profile_id, static_values, calibration, dev_eui
  FROM devices WHERE id = ANY ($1::uuid[]) OR dev_eui = ANY ($2::text[]);

-- name: gateways_by_reference
-- Gateways named by id ($1 uuid[]) or GatewayEUI ($2 text[]), for world-file telemetry.
SELECT id, num, partner_id, gateway_eui FROM gateways
 WHERE id = ANY ($1::uuid[]) OR gateway_eui = ANY ($2::text[]);

-- name: gateway_stats
-- A gateway stats message: lastStatsAt and lastSeenAt move forward only.
UPDATE gateways
   SET last_stats_at = GREATEST(last_stats_at, $2), last_seen_at = GREATEST(last_seen_at, $2)
 WHERE num = $1;
