-- name: owner_of_sub_account
-- The partner of a sub-account, to own a new endpoint.
SELECT partner_id FROM sub_accounts WHERE id = $1

-- name: partner_exists
-- Whether a partner exists.
SELECT EXISTS (SELECT 1 FROM partners WHERE id = $1)

-- name: devices_of_scope
-- Which of the given device ids are the partner's (and the sub-account's, when given).
SELECT id FROM devices
 WHERE id = ANY ($1::uuid[]) AND partner_id = $2 AND ($3::uuid IS NULL OR sub_account_id = $3)

-- name: insert_endpoint
-- A new endpoint.
INSERT INTO webhook_endpoints (id, partner_id, sub_account_id, url, event_types, device_ids,
                               secret, state)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)

-- name: list_endpoints
-- Endpoints (all, of a partner, or of a sub-account) with message counts and the oldest pending age.
SELECT e.id, e.partner_id, e.sub_account_id, e.url, e.state, e.event_types, e.device_ids,
       count(*) FILTER (WHERE m.state = 'delivered') AS delivered,
       count(*) FILTER (WHERE m.state = 'pending') AS pending,
       count(*) FILTER (WHERE m.state = 'failed') AS failed,
       extract(epoch FROM now() - min(m.created_at) FILTER (WHERE m.state = 'pending'))
           AS oldest_pending_s
  FROM webhook_endpoints e
  LEFT JOIN webhook_messages m ON m.endpoint_id = e.id
 WHERE ($1::uuid IS NULL OR e.partner_id = $1)
   AND ($2::uuid IS NULL OR e.sub_account_id = $2)
 GROUP BY e.id
 ORDER BY e.created_at, e.id

-- name: enable_endpoint
-- Enables an endpoint; its pending messages (kept while it was off) come due now.
WITH e AS (
    UPDATE webhook_endpoints SET state = 'enabled', failing_since = NULL WHERE id = $1
    RETURNING id)
UPDATE webhook_messages m SET next_at = LEAST(m.next_at, now())
  FROM e WHERE m.endpoint_id = e.id AND m.state = 'pending'
RETURNING 1

-- name: endpoint_state
-- An endpoint's state (NULL when there is none).
SELECT state FROM webhook_endpoints WHERE id = $1

-- name: disable_endpoint
-- Disables an endpoint by hand.
UPDATE webhook_endpoints SET state = 'disabled' WHERE id = $1 RETURNING id

-- name: rotate_secret
-- A new secret; the current one keeps signing until $3.
UPDATE webhook_endpoints
   SET previous_secret = secret, previous_until = $3, secret = $2
 WHERE id = $1 RETURNING id

-- name: emit_test
-- A webhook.test event to one endpoint.
SELECT webhook_emit('webhook.test', e.partner_id, e.sub_account_id, NULL, NULL, now(),
                    '{}'::jsonb, e.id)
  FROM webhook_endpoints e WHERE e.id = $1

-- name: deliveries
-- The attempt log of an endpoint, newest first ($2: only failed attempts).
SELECT a.at, ev.id AS event_id, a.status, a.error, a.latency_ms, a.ok
  FROM webhook_attempts a JOIN webhook_events ev ON ev.num = a.event_num
 WHERE a.endpoint_id = $1 AND (NOT $2 OR NOT a.ok)
 ORDER BY a.at DESC, a.id DESC
 LIMIT $3

-- name: redeliver
-- Sends an event again to every endpoint that was sent it (or to one): its messages are due now.
UPDATE webhook_messages m
   SET state = 'pending', attempts = 0, next_at = now(), finished_at = NULL
  FROM webhook_events ev
 WHERE ev.num = m.event_num AND ev.id = $1 AND ($2::uuid IS NULL OR m.endpoint_id = $2)
RETURNING m.endpoint_id

-- name: recover
-- Due again now: every message of an endpoint given up since $2.
UPDATE webhook_messages m
   SET state = 'pending', attempts = 0, next_at = now(), finished_at = NULL
  FROM webhook_events ev
 WHERE ev.num = m.event_num AND m.endpoint_id = $1 AND m.state = 'failed'
   AND m.finished_at >= $2
RETURNING ev.id
