-- Invalidation of the per-worker /latest caches (app/telemetry/latest_cache.py): a change
-- of a device's stored latest body or ETag, or of its status or tenancy, notifies
-- `latest_changed` with the device's num at commit ('*' for all on TRUNCATE). The real
-- function body lives in schema/definitions/050-auth-cache.sql.

CREATE FUNCTION latest_changed_notify() RETURNS trigger
LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END; $$;

CREATE TRIGGER device_state_latest_changed AFTER UPDATE ON device_state
    FOR EACH ROW
    WHEN (OLD.latest_etag IS DISTINCT FROM NEW.latest_etag
          OR (OLD.latest_body IS NULL) <> (NEW.latest_body IS NULL))
    EXECUTE FUNCTION latest_changed_notify();
CREATE TRIGGER device_state_latest_deleted AFTER DELETE ON device_state
    FOR EACH ROW EXECUTE FUNCTION latest_changed_notify();
CREATE TRIGGER devices_latest_changed AFTER UPDATE ON devices
    FOR EACH ROW
    WHEN (OLD.status IS DISTINCT FROM NEW.status
          OR OLD.partner_id IS DISTINCT FROM NEW.partner_id
          OR OLD.sub_account_id IS DISTINCT FROM NEW.sub_account_id
          OR OLD.dev_eui IS DISTINCT FROM NEW.dev_eui
          OR OLD.id IS DISTINCT FROM NEW.id
          OR OLD.num IS DISTINCT FROM NEW.num)
    EXECUTE FUNCTION latest_changed_notify();
CREATE TRIGGER devices_latest_deleted AFTER DELETE ON devices
    FOR EACH ROW EXECUTE FUNCTION latest_changed_notify();

CREATE TRIGGER device_state_latest_truncated AFTER TRUNCATE ON device_state
    FOR EACH STATEMENT EXECUTE FUNCTION latest_changed_notify();
CREATE TRIGGER devices_latest_truncated AFTER TRUNCATE ON devices
    FOR EACH STATEMENT EXECUTE FUNCTION latest_changed_notify();
