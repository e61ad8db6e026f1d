-- name: device_for_partner
-- The device of partner $1 with DevEUI $2, with what the pipeline needs of it.
SELECT partner_id, num, id, status, profile_id, static_values, calibration
  FROM devices WHERE partner_id = $1 AND dev_eui = $2;

-- name: chirpstack_partner_for_token
-- The partner of a ChirpStack integration token (a token of another kind is refused).
SELECT partner_id FROM integrations WHERE token_hash = $1 AND kind = 'chirpstack';

-- name: ingest_event
-- Stores one status, join or location message; returns the outcome.
SELECT ingest_event($1, $2, $3, $4, $5, $6, $7, $8);

-- name: ingest_uplinks
-- Stores a batch of uplinks, one uplink_record each (schema/190-uplink-record.sql, filled by name from app/ingest/pipeline.py's UplinkRecord; schema/definitions/030-ingest.sql); returns their outcomes and whether a partner of the batch takes webhook events.
SELECT outcomes, webhooks FROM ingest_uplinks($1::uplink_record[]);
