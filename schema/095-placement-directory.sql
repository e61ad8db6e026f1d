-- The global directory of tenants placed across clusters (app/core/placement.py): which
-- partner a key or integration token belongs to, by the SHA-256 of the secret, so that an
-- instance finds a request's cluster with one indexed lookup instead of asking every
-- cluster. Only the directory cluster named by the placement file keeps rows here;
-- `telemetry placement sync` fills it from the clusters.

CREATE TABLE placement_directory (
    secret_hash  bytea PRIMARY KEY,
    partner_id   uuid NOT NULL,
    kind         text NOT NULL CHECK (kind IN ('key', 'integration'))
);
