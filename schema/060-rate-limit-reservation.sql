-- Rate-limit state that survives a crash without a WAL flush per request (issue 11,
-- defects 3 and 8; the logic is api_lease in schema/definitions/050-auth-cache.sql).
--
-- `reserved` permits are granted ahead of use by a synchronously committed statement and
-- then handed out by asynchronously committed ones; `reserved_by` is the postmaster start
-- time under which they were reserved. After a restart the whole reservation counts as
-- spent, so a crash that loses the last asynchronous commits never gives permits back.
ALTER TABLE api_key_usage
    ADD COLUMN reserved integer NOT NULL DEFAULT 0,
    ADD COLUMN reserved_by timestamptz;

-- The window is 60 whole seconds (a request in second s counts until s + 60, so
-- Retry-After is 1..60): 60 one-second buckets instead of 61.
UPDATE api_key_usage SET second_counts = second_counts[2:61];
ALTER TABLE api_key_usage ALTER COLUMN second_counts SET DEFAULT array_fill(0, ARRAY[60]);
