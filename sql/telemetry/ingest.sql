-- name: profile_fields
-- The field catalog of a profile in catalog order, with the profile's retain option.
SELECT p.retain_last_value, f.num, f.identifier, f.data_type, f.kind, f.role, f.formula,
       f.source, f.mapping, f.default_value
  FROM device_profiles p
  LEFT JOIN profile_fields f ON f.profile_id = p.id
 WHERE p.id = $1
 ORDER BY f.position, f.num;

-- name: profile_rules
-- The alert rules of a profile.
SELECT id, field, op, value, level FROM alert_rules WHERE profile_id = $1 ORDER BY id;

-- name: device_for_partner
-- The device of partner $1 with DevEUI $2, with what the pipeline needs of it.
SELECT partner_id, num, id, status, profile_id, static_values, calibration
  FROM devices WHERE partner_id = $1 AND dev_eui = $2;

-- name: partner_for_token
-- The partner of a ChirpStack integration token (a token of another kind is refused).
SELECT partner_id FROM integrations WHERE token_hash = $1 AND kind = 'chirpstack';

-- name: device_by_num
-- The attributes of a device the pipeline needs, by num.
SELECT partner_id, num, id, status, profile_id, static_values, calibration
  FROM devices WHERE num = $1;

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

-- name: ingest_event
-- Stores one status, join or location message; returns the outcome.
SELECT ingest_event($1, $2, $3, $4, $5, $6, $7, $8);

-- name: ingest_uplinks
-- Stores a batch of uplinks, one column of app/telemetry/pipeline.py's UplinkRecord per argument (schema/definitions/030-ingest.sql); returns their outcomes.
SELECT ingest_uplinks($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
                      $17, $18, $19, $20, $21, $22, $23, $24, $25, $26);

-- name: ingest_uplinks_live
-- ingest_uplinks for live ingest (app/telemetry/batch.py): the outcomes, and whether a partner of the batch has an endpoint taking webhook events (webhook_wanted's test over the inlined webhook_receivers: that scalar SQL function is planned anew in every statement calling it), so the worker wakes the dispatcher only when events may be waiting.
SELECT ingest_uplinks($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
                      $17, $18, $19, $20, $21, $22, $23, $24, $25, $26) AS outcomes,
       EXISTS (SELECT 1 FROM webhook_receivers() e WHERE e.partner_id = ANY ($2::uuid[])) AS webhooks;
