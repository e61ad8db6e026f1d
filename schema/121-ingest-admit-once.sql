-- Single events (ingest_event) are admitted and their device state locked by the batch
-- functions with a batch of one (schema/definitions/030-ingest.sql), so the admission rule
-- and the lock order are written once; the per-event twins go.
DROP FUNCTION IF EXISTS ingest_admit(bytea, uuid, integer, text);
DROP FUNCTION IF EXISTS lock_device_state(integer);
