-- The latest values object (GET /devices/{id}/latest, api-spec 2.4, D11): how its body and
-- ETag are built (the only place), the one-round-trip read, and the notification that
-- keeps the workers' caches (app/latest/cache.py) current. Re-runnable.

-- Timestamps exactly as msgspec writes them (RFC 3339 UTC with Z; a fraction only when
-- there is one), so stored bodies and API responses look alike.
CREATE OR REPLACE FUNCTION rfc3339(p_time timestamptz) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT CASE WHEN date_part('microseconds', p_time)::bigint % 1000000 = 0
                THEN to_char(p_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
                ELSE to_char(p_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') END
$$;

-- The `data` member of a /latest answer. Members in the order of api-spec 2.4; `time` and
-- `signalQuality` are null before the first uplink; `retained` (retain last value: the
-- fields older than `time`) and `derived` (a profile with formulas, mappings or
-- calibration) are left out when NULL. Ingest stores it with every uplink
-- (ingest_next_state); a device that has not reported yet is answered with its static
-- values through the same function (sql/latest/latest.sql `static_body`).
CREATE OR REPLACE FUNCTION latest_body(
    p_device_id uuid,
    p_time      timestamptz,
    p_values    jsonb,
    p_signal    integer,
    p_retained  jsonb,
    p_derived   jsonb
) RETURNS bytea
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT convert_to(
        '{"deviceId":"' || p_device_id::text
        || '","time":' || COALESCE('"' || rfc3339(p_time) || '"', 'null')
        || ',"values":' || p_values::text
        || ',"signalQuality":' || COALESCE(p_signal::text, 'null')
        || COALESCE(',"retained":' || p_retained::text, '')
        || COALESCE(',"derived":' || p_derived::text, '')
        || '}', 'UTF8')
$$;

-- The strong ETag of a stored body.
CREATE OR REPLACE FUNCTION latest_etag(p_body bytea) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT '"' || md5(p_body) || '"' $$;

-- GET /devices/{id}/latest in one round trip: api_authenticate (401, 429), then, for an
-- accepted key with the scope, the device by id or DevEUI in the key's scope with its
-- stored body. Inside a function each statement keeps a simple cached plan; the caller
-- checks scope and status in the order of D3.
CREATE OR REPLACE FUNCTION api_latest(p_key_hash bytea, p_device_id uuid, p_dev_eui text)
RETURNS TABLE (
    outcome             text,
    key_id              uuid,
    partner_id          uuid,
    sub_account_id      uuid,
    scopes              text[],
    api_write           boolean,
    retention_days      integer,
    networks_enabled    boolean,
    multi_site_enabled  boolean,
    rate_limit          integer,
    remaining           integer,
    retry_after         integer,
    day_limit           integer,
    day_remaining       integer,
    device_num          integer,
    status              text,
    latest_body         bytea,
    latest_etag         text
)
LANGUAGE plpgsql
AS $$
DECLARE
    a           record;
    v_num       integer;
    v_status    text;
BEGIN
    SELECT * INTO a FROM api_authenticate(p_key_hash);
    IF a.outcome = 'ok' AND 'telemetry:read' = ANY (a.scopes) THEN
        IF p_device_id IS NOT NULL THEN
            SELECT d.num, d.status INTO v_num, v_status
              FROM tenant_device(a.partner_id, a.sub_account_id, p_device_id, NULL) d;
        ELSIF p_dev_eui IS NOT NULL THEN
            SELECT d.num, d.status INTO v_num, v_status
              FROM tenant_device(a.partner_id, a.sub_account_id, NULL, p_dev_eui) d;
        END IF;
    END IF;
    outcome := a.outcome; key_id := a.key_id; partner_id := a.partner_id;
    sub_account_id := a.sub_account_id; scopes := a.scopes; api_write := a.api_write;
    retention_days := a.retention_days; networks_enabled := a.networks_enabled;
    multi_site_enabled := a.multi_site_enabled; rate_limit := a.rate_limit;
    remaining := a.remaining; retry_after := a.retry_after;
    day_limit := a.day_limit; day_remaining := a.day_remaining;
    IF v_num IS NOT NULL THEN
        device_num := v_num;
        status := v_status;
        SELECT s.latest_body, s.latest_etag INTO latest_body, latest_etag
          FROM device_state s WHERE s.device_num = v_num;
    END IF;
    RETURN NEXT;
END;
$$;

-- Invalidation of the per-worker /latest caches (app/latest/cache.py): a change
-- of a device's stored latest body or ETag, or of its status or tenancy, notifies
-- `latest_changed` with the device's num at commit ('*' for all on TRUNCATE).
CREATE OR REPLACE FUNCTION latest_changed_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_LEVEL = 'STATEMENT' THEN
        PERFORM pg_notify('latest_changed', '*');
    ELSIF TG_TABLE_NAME = 'devices' THEN
        PERFORM pg_notify('latest_changed', OLD.num::text);
    ELSE
        PERFORM pg_notify('latest_changed', OLD.device_num::text);
    END IF;
    RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER device_state_latest_changed AFTER UPDATE ON device_state
    FOR EACH ROW
    WHEN (OLD.latest_etag IS DISTINCT FROM NEW.latest_etag
          OR (OLD.latest_body IS NULL) <> (NEW.latest_body IS NULL))
    EXECUTE FUNCTION latest_changed_notify();
CREATE OR REPLACE TRIGGER device_state_latest_deleted AFTER DELETE ON device_state
    FOR EACH ROW EXECUTE FUNCTION latest_changed_notify();
CREATE OR REPLACE TRIGGER devices_latest_changed AFTER UPDATE ON devices
    FOR EACH ROW
    WHEN ((OLD.status, OLD.partner_id, OLD.sub_account_id, OLD.dev_eui, OLD.id, OLD.num)
          IS DISTINCT FROM
          (NEW.status, NEW.partner_id, NEW.sub_account_id, NEW.dev_eui, NEW.id, NEW.num))
    EXECUTE FUNCTION latest_changed_notify();
CREATE OR REPLACE TRIGGER devices_latest_deleted AFTER DELETE ON devices
    FOR EACH ROW EXECUTE FUNCTION latest_changed_notify();
CREATE OR REPLACE TRIGGER device_state_latest_truncated AFTER TRUNCATE ON device_state
    FOR EACH STATEMENT EXECUTE FUNCTION latest_changed_notify();
CREATE OR REPLACE TRIGGER devices_latest_truncated AFTER TRUNCATE ON devices
    FOR EACH STATEMENT EXECUTE FUNCTION latest_changed_notify();
