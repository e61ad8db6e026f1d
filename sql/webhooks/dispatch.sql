-- name: claim
-- Claims and leases due messages, at most a number per endpoint (see webhook_claim).
SELECT * FROM webhook_claim($1::uuid[], $2::integer[], $3, make_interval(secs => $4))

-- name: next_due
-- When the next message of an active endpoint that has free slots comes due.
SELECT webhook_next_due($1::uuid[])

-- name: attempts_done
-- Records attempts and their consequences (see webhook_attempt_done).
SELECT webhook_attempts_done($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, make_interval(secs => $11))

-- name: offline_tick
-- Emits device.offline for the devices whose online time ended since the last tick.
SELECT webhook_offline_tick($1)

-- name: purge
-- Forgets attempts, finished messages and events older than the keep period.
SELECT webhook_purge(make_interval(secs => $1))

-- name: nudge
-- Wakes the dispatcher after a batch whose notification was deferred (see app/webhooks/nudge.py).
SELECT webhook_nudge()
