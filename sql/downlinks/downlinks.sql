-- name: list_templates
-- A page of a profile's downlink templates ($1 profile), with the total.
SELECT id, key, name, f_port, confirmed, sample_data, count(*) OVER () AS total
  FROM downlink_templates
 WHERE profile_id = $1
 ORDER BY name, id
 LIMIT $2 OFFSET $3

-- name: count_templates
-- How many downlink templates a profile has; used when a page is past the end.
SELECT count(*) FROM downlink_templates WHERE profile_id = $1

-- name: profile_templates
-- Every downlink template (with layout) of the given profiles ($1 uuid[]), for sending.
SELECT id, profile_id, key, name, f_port, confirmed, layout, sample_data
  FROM downlink_templates
 WHERE profile_id = ANY($1::uuid[])
 ORDER BY profile_id, key
 LIMIT 10000

-- name: lock_devices
-- Locks the assigned devices among $1 (int[] of nums) so their hourly windows are counted race-free.
SELECT num
  FROM devices
 WHERE num = ANY($1::int[]) AND status = 'assigned'
 ORDER BY num
   FOR UPDATE

-- name: rate_windows
-- Per device ($1 nums, locked first): rate, expiry setting, and seconds until its full rolling hour frees a slot (NULL when not full).
SELECT d.num,
       d.downlink_expiry_seconds AS expiry_seconds,
       CASE
         WHEN d.downlink_rate_per_hour = 0 THEN 3600
         ELSE (SELECT greatest(1, ceil(extract(epoch FROM
                        q.created_at + interval '1 hour' - clock_timestamp())))::integer
                 FROM downlink_queue q
                WHERE q.device_num = d.num AND q.created_at > now() - interval '1 hour'
                ORDER BY q.created_at DESC
               OFFSET d.downlink_rate_per_hour - 1
                LIMIT 1)
       END AS retry_after
  FROM devices d
 WHERE d.num = ANY($1::int[])

-- name: insert_items
-- Queues one item per row of the arrays ($6: time-to-live seconds or NULL for none).
INSERT INTO downlink_queue (device_num, template_id, f_port, payload, confirmed, expires_at)
SELECT u.num, u.template_id, u.f_port, u.payload, u.confirmed,
       now() + make_interval(secs => u.ttl)
  FROM unnest($1::integer[], $2::uuid[], $3::integer[], $4::bytea[], $5::boolean[],
              $6::integer[]) AS u (num, template_id, f_port, payload, confirmed, ttl)
RETURNING id, device_num, expires_at
