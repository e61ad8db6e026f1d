-- Batched ingest computes each uplink's device state in memory and writes a device's row
-- once per batch (schema/definitions/030-ingest.sql: ingest_uplink_next_state,
-- write_device_states); the function that wrote it once per uplink goes, and
-- lock_device_states now returns the rows it locks (its return type changes).
DROP FUNCTION IF EXISTS ingest_uplink_state(device_state, uuid, timestamptz, jsonb, jsonb,
    jsonb, jsonb, boolean, boolean, integer, integer);
DROP FUNCTION IF EXISTS lock_device_states(integer[]);
