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
-- Stores a batch of uplinks, one column of app/ingest/pipeline.py's UplinkRecord per argument (schema/definitions/030-ingest.sql); returns their outcomes.
SELECT ingest_uplinks($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
                      $17, $18, $19, $20, $21, $22, $23, $24, $25, $26);

-- name: ingest_uplinks_live
-- ingest_uplinks for live ingest (app/ingest/batch.py): the outcomes, and whether a partner of the batch has an endpoint taking webhook events (webhook_wanted's test over the inlined webhook_receivers: that scalar SQL function is planned anew in every statement calling it), so the worker wakes the dispatcher only when events may be waiting.
SELECT ingest_uplinks($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
                      $17, $18, $19, $20, $21, $22, $23, $24, $25, $26) AS outcomes,
       EXISTS (SELECT 1 FROM webhook_receivers() e WHERE e.partner_id = ANY ($2::uuid[])) AS webhooks;
