-- The open event streams of each key (analytics.md section 4: at most 10 per key, across
-- every worker and instance). A stream holds a row while it is open; its worker renews
-- the row's lease every 1.5 s (app/live/slots.py), so the place of a stream whose worker
-- died frees itself when the lease runs out, within 5 s. Unlogged: after a crash no
-- stream is open anyway.
CREATE UNLOGGED TABLE live_streams (
    stream_id   uuid PRIMARY KEY,
    key_id      uuid NOT NULL,
    expires_at  timestamptz NOT NULL
);
CREATE INDEX live_streams_key ON live_streams (key_id);
