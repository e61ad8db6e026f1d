-- Fleet latest and the live stream (analytics.md sections 1 and 4): which assigned devices
-- a selection holds, and their stored latest bodies. The bodies of devices already in the
-- worker's /latest cache are not read (app/live/fleet.py).

-- name: fleet_members
-- A page ($13 limit, $14 offset) of the assigned devices the key ($1 partner, $2 key sub-account) sees through the device list's filters ($3-$12, as fleet_devices takes them), ordered by id, with their count; past the end one row with a null num carries the count.
WITH matching AS NOT MATERIALIZED (
    SELECT d.num, d.id
      FROM fleet_devices($1, $2, $3, $4, $5, $6, ARRAY['assigned'], $7, $8, $9, $10, $11, $12) d
),
page AS (
    SELECT num, id FROM matching ORDER BY id LIMIT $13 OFFSET $14
)
SELECT (SELECT count(*) FROM matching) AS total, pg.num, pg.id
  FROM (SELECT 1) one
  LEFT JOIN page pg ON true
 ORDER BY pg.id

-- name: bodies_by_num
-- The stored latest bodies of the devices $1 (nums) that the key ($2 partner, $3 key sub-account) sees assigned.
SELECT d.num, d.id, s.latest_body, s.latest_etag
  FROM devices d
  LEFT JOIN device_state s ON s.device_num = d.num
 WHERE d.num = ANY ($1::integer[])
   AND d.status = 'assigned'
   AND tenant_sees(d.partner_id, d.sub_account_id, d.status, $2, $3::uuid)

-- name: bodies_by_reference
-- The stored latest bodies of the devices named by id ($1) or DevEUI ($2) that the key ($3 partner, $4 key sub-account) sees assigned.
SELECT d.num, d.id, d.dev_eui, s.latest_body, s.latest_etag
  FROM devices d
  LEFT JOIN device_state s ON s.device_num = d.num
 WHERE (d.id = ANY ($1::uuid[]) OR d.dev_eui = ANY ($2::text[]))
   AND d.status = 'assigned'
   AND tenant_sees(d.partner_id, d.sub_account_id, d.status, $3, $4::uuid)

-- name: stream_claim
-- Claims a place among the at most $3 open streams of key $1 for stream $2, leased for $4 seconds; false when none is free.
SELECT live_stream_claim($1, $2, $3, $4)

-- name: stream_renew
-- Renews for $2 seconds the leases of the streams $1 this worker holds open.
UPDATE live_streams SET expires_at = now() + make_interval(secs => $2)
 WHERE stream_id = ANY ($1::uuid[])

-- name: stream_release
-- Frees the place of stream $1 (closed).
DELETE FROM live_streams WHERE stream_id = $1
