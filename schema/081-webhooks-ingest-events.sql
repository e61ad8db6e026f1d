-- Webhook events in the one ingest write path (issues 13 and 14): ingest_uplinks takes the
-- fPort/fCnt of each uplink (p_meta, after p_gateways), ingest_uplink_alerts returns the
-- rules it raised and cleared, and webhook_uplink reads what /latest shows from the
-- device's stored state instead of taking it as arguments (schema/definitions/
-- 030-ingest.sql and 080-webhooks.sql). The signatures they replace are dropped here,
-- with those of the single-uplink functions that carried p_meta before the one write path.
DROP FUNCTION IF EXISTS ingest_uplinks(bytea[], uuid[], integer[], text[], timestamptz[],
    jsonb[], jsonb, jsonb[], jsonb, boolean[], boolean[], integer[], integer[], jsonb,
    integer[], integer[], text[], boolean[], text[], integer[], integer[], double precision[],
    integer[], integer[], jsonb[]);
DROP FUNCTION IF EXISTS ingest_uplinks(bytea[], uuid[], integer[], text[], timestamptz[],
    jsonb[], jsonb, jsonb[], jsonb, boolean[], boolean[], integer[], integer[], jsonb,
    integer[], integer[], text[], boolean[], text[], integer[], integer[], double precision[],
    integer[], integer[], jsonb[], jsonb);
DROP FUNCTION IF EXISTS ingest_uplink_alerts(integer, integer, timestamptz, jsonb, integer[],
    integer[], text[], boolean[], text[]);
DROP FUNCTION IF EXISTS ingest_uplink(bytea, uuid, integer, text, timestamptz, integer[],
    double precision[], integer[], jsonb[], jsonb, text[], jsonb, text[], boolean, boolean,
    integer, integer, text[], integer[], text[], boolean[], text[], jsonb);
DROP FUNCTION IF EXISTS ingest_uplink_state(bytea, uuid, integer, text, timestamptz, jsonb,
    text[], jsonb, text[], boolean, boolean, integer, integer, integer[], text[],
    boolean[], text[], jsonb);
DROP FUNCTION IF EXISTS webhook_uplink(uuid, integer, timestamptz, jsonb, jsonb, jsonb,
    integer, jsonb, jsonb, jsonb, integer[], integer[]);
