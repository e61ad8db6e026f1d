-- The one declaration of an uplink as the ingest write path stores it (issue 28 item 2):
-- app/ingest/pipeline.py's UplinkRecord fills it by name (asyncpg binds a mapping to a
-- composite type by attribute name, and refuses a name the type lacks), and
-- ingest_uplinks takes an array of it instead of 26 positional arrays. Adding an
-- attribute later is one `ALTER TYPE uplink_record ADD ATTRIBUTE` and a field of the
-- Python struct; no signature is typed out again.
CREATE TYPE uplink_record AS (
    token_hash      bytea,              -- the integration token to re-check; NULL: trusted
    partner_id      uuid,
    device_num      integer,
    dedup_key       text,
    time            timestamptz,
    shown_values    jsonb,              -- identifier -> stored value (what /latest shows)
    derived         text[],             -- identifiers of calibrated and computed values
    static_values   jsonb,              -- static values and formulas over them
    static_derived  text[],
    has_derived     boolean,            -- whether /latest carries `derived` (D10)
    retain          boolean,            -- the profile's retain last value
    signal          integer,            -- D15 signal quality, NULL without receptions
    battery         integer,            -- the battery_pct field, rounded and clamped
    gateways        text[],             -- GatewayEUIs of the receiving gateways
    f_port          integer,
    f_cnt           bigint,
    rule_ids        integer[],          -- the alert rules whose field is in this uplink
    rule_fields     text[],
    rule_breaks     boolean[],
    rule_levels     text[],
    num_fields      integer[],          -- numeric readings; field num 0 is signal quality
    num_values      double precision[],
    other_fields    integer[],
    other_values    jsonb[]
);

-- The positional signatures it replaces (the definitions create the new ones; a result
-- type cannot be replaced in place).
DROP FUNCTION IF EXISTS ingest_uplinks(bytea[], uuid[], integer[], text[], timestamptz[],
    jsonb[], jsonb, jsonb[], jsonb, boolean[], boolean[], integer[], integer[], jsonb, jsonb,
    integer[], integer[], text[], boolean[], text[], integer[], integer[], double precision[],
    integer[], integer[], jsonb[]);
DROP FUNCTION IF EXISTS ingest_uplink_alerts(integer, integer, timestamptz, jsonb, integer[],
    integer[], text[], boolean[], text[]);
DROP FUNCTION IF EXISTS ingest_uplink_next_state(device_state, uuid, timestamptz, jsonb, jsonb,
    jsonb, jsonb, boolean, boolean, integer, integer);
DROP FUNCTION IF EXISTS record_readings(integer[], integer[], timestamptz[], integer[],
    integer[], double precision[], integer[], integer[], jsonb[]);
DROP FUNCTION IF EXISTS webhook_uplink(uuid, integer, timestamptz, jsonb, jsonb, integer[],
    integer[]);
