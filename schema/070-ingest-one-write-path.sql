-- One ingest write path (issue 13): the one-uplink function family (ingest_uplink and its
-- state step) and the batch readings function under its old name are replaced by
-- ingest_uplinks, ingest_uplink_state(device_state, ...) and record_readings(integer[], ...)
-- in schema/definitions/030-ingest.sql. Signatures that no longer exist are dropped here,
-- once; the definitions only CREATE OR REPLACE the current ones.
DROP FUNCTION IF EXISTS ingest_uplink(bytea, uuid, integer, text, timestamptz, integer[],
    double precision[], integer[], jsonb[], jsonb, text[], jsonb, text[], boolean, boolean,
    integer, integer, text[], integer[], text[], boolean[], text[]);
DROP FUNCTION IF EXISTS ingest_uplink_state(bytea, uuid, integer, text, timestamptz, jsonb,
    text[], jsonb, text[], boolean, boolean, integer, integer, text[], integer[], text[],
    boolean[], text[]);
DROP FUNCTION IF EXISTS ingest_uplink_state(bytea, uuid, integer, text, timestamptz, jsonb,
    text[], jsonb, text[], boolean, boolean, integer, integer, integer[], text[],
    boolean[], text[]);
DROP FUNCTION IF EXISTS ingest_uplinks(bytea[], uuid[], integer[], text[], timestamptz[],
    jsonb[], jsonb[], jsonb[], jsonb[], boolean[], boolean[], integer[], integer[], jsonb[],
    integer[], integer[], text[], boolean[], text[], integer[], integer[], double precision[],
    integer[], integer[], jsonb[]);
DROP FUNCTION IF EXISTS record_readings_many(integer[], integer[], timestamptz[], integer[],
    integer[], double precision[], integer[], integer[], jsonb[]);
