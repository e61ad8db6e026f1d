-- name: transition
-- Moves item $1 to status $2 when it is in one of the states $7; returns it as changed, no row otherwise.
UPDATE downlink_queue
   SET status = $2,
       network_id = COALESCE($3, network_id),
       f_cnt_down = COALESCE($4, f_cnt_down),
       error = CASE WHEN $2 IN ('failed', 'expired') THEN $5 ELSE error END,
       submitted_at = CASE WHEN $2 = 'submitted' THEN $6 ELSE submitted_at END,
       sent_at = CASE WHEN $2 = 'sent' THEN $6 ELSE sent_at END,
       acknowledged_at = CASE WHEN $2 IN ('acknowledged', 'nacked') THEN $6
                              ELSE acknowledged_at END,
       in_doubt_since = NULL,
       next_attempt_at = NULL
 WHERE id = $1 AND status = ANY ($7::text[])
RETURNING id, device_num, status, f_port, f_cnt_down, error, network_id

-- name: get_item
-- One queue item of device num $1 by id $2, for GET /devices/{id}/downlinks/{queueItemId}.
SELECT id, status, f_port, octet_length(payload) AS byte_count, confirmed, created_at,
       expires_at, submitted_at, sent_at, f_cnt_down, acknowledged_at, error
  FROM downlink_queue
 WHERE device_num = $1 AND id = $2

-- name: item_for_network_id
-- The queue item ChirpStack knows as $2, if its device belongs to the partner of integration token $1; locked.
SELECT q.id, q.status
  FROM downlink_queue q
  JOIN devices d ON d.num = q.device_num
  JOIN integrations i ON i.partner_id = d.partner_id
 WHERE i.token_hash = $1 AND q.network_id = $2
   FOR UPDATE OF q

-- name: device_for_event
-- The partner and assigned device num with DevEUI $2 of integration token $1 (num NULL when none).
SELECT i.partner_id, d.num
  FROM integrations i
  LEFT JOIN devices d ON d.partner_id = i.partner_id AND d.dev_eui = $2 AND d.status = 'assigned'
 WHERE i.token_hash = $1
 LIMIT 1

-- name: insert_early_event
-- Keeps a txack/ack/log event about a queue item id not stored yet (the first one of a kind wins).
INSERT INTO downlink_early_events (network_id, kind, partner_id, device_num, at, f_cnt_down,
                                   acknowledged, code)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
ON CONFLICT DO NOTHING

-- name: take_early_events
-- Removes and returns the early events about network id $1 of device num $2, oldest first.
DELETE FROM downlink_early_events
 WHERE network_id = $1 AND device_num = $2
RETURNING kind, at, f_cnt_down, acknowledged, code

-- name: early_network_id
-- A network id reported for device num $1 since $2 that no stored item carries (an Enqueue whose answer was lost).
SELECT e.network_id
  FROM downlink_early_events e
 WHERE e.device_num = $1 AND e.received_at >= $2
   AND NOT EXISTS (SELECT 1 FROM downlink_queue q WHERE q.network_id = e.network_id)
 ORDER BY e.received_at
 LIMIT 1

-- name: forget_early_events
-- Drops early events older than a day (their item was never stored, or was deleted).
DELETE FROM downlink_early_events WHERE received_at < now() - interval '1 day'

-- name: due_items
-- The next waiting item of each device (in order per device) whose partner has a ChirpStack gRPC API and that may be tried now, skipping devices in $1.
SELECT h.id, h.device_num, d.dev_eui, h.f_port, h.payload, h.confirmed, h.expires_at,
       h.attempts, h.in_doubt_since, h.created_at, i.id AS integration_id, i.grpc_url,
       i.grpc_api_token, i.grpc_tls
  FROM (SELECT DISTINCT ON (q.device_num) q.*
          FROM downlink_queue q
         WHERE q.status = 'queued'
         ORDER BY q.device_num, q.created_at, q.id) h
  JOIN devices d ON d.num = h.device_num AND d.status = 'assigned'
  JOIN LATERAL (SELECT i.id, i.grpc_url, i.grpc_api_token, i.grpc_tls
                  FROM integrations i
                 WHERE i.partner_id = d.partner_id AND i.kind = 'chirpstack'
                   AND i.grpc_url IS NOT NULL
                 ORDER BY i.id
                 LIMIT 1) i ON true
 WHERE (h.next_attempt_at IS NULL OR h.next_attempt_at <= now())
   AND (h.expires_at IS NULL OR h.expires_at > now())
   AND NOT (h.device_num = ANY ($1::int[]))
 ORDER BY h.created_at
 LIMIT $2

-- name: start_attempt
-- Records, before the call, that item $1 is about to be enqueued (its outcome is in doubt until known); no row if it is no longer waiting.
UPDATE downlink_queue
   SET attempts = attempts + 1, in_doubt_since = COALESCE(in_doubt_since, now())
 WHERE id = $1 AND status = 'queued'
RETURNING attempts, in_doubt_since

-- name: retry_later
-- Schedules the next attempt of waiting item $1 in $2 seconds; $3 says whether the last outcome is still in doubt.
UPDATE downlink_queue
   SET next_attempt_at = now() + make_interval(secs => $2),
       in_doubt_since = CASE WHEN $3 THEN in_doubt_since END
 WHERE id = $1 AND status = 'queued'

-- name: overdue_items
-- Items whose expiresAt passed before they were sent.
SELECT id FROM downlink_queue
 WHERE status IN ('queued', 'submitted') AND expires_at <= now()
 ORDER BY expires_at
 LIMIT 1000

-- name: known_network_ids
-- Which of the ChirpStack ids $1 (text[]) are already stored.
SELECT network_id FROM downlink_queue WHERE network_id = ANY ($1::text[])
