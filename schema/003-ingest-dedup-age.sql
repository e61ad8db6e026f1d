-- The retention job prunes de-duplication keys after a week (network servers redeliver
-- within seconds or minutes, never days later); this index keeps that prune cheap.
CREATE INDEX ingest_dedup_received_at ON ingest_dedup (received_at);
