-- Membership changes for the live stream (analytics.md section 4, app/live/hub.py): a
-- device created, deleted, or changed in a column the device list's filters read (status,
-- tenancy, placement, profile, name, serial number, DevEUI) notifies `device_moved` with
-- its num at commit, so that a stream selected by filters learns when a device may have
-- joined or left it, and a resumed stream whether a device moved since its last event.
-- Changes of the latest values notify `latest_changed` (020-latest.sql). Re-runnable.

CREATE OR REPLACE FUNCTION device_moved_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM pg_notify('device_moved', NEW.num::text);
    ELSE
        PERFORM pg_notify('device_moved', OLD.num::text);
    END IF;
    RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER devices_moved_inserted AFTER INSERT ON devices
    FOR EACH ROW EXECUTE FUNCTION device_moved_notify();
CREATE OR REPLACE TRIGGER devices_moved_deleted AFTER DELETE ON devices
    FOR EACH ROW EXECUTE FUNCTION device_moved_notify();
CREATE OR REPLACE TRIGGER devices_moved AFTER UPDATE ON devices
    FOR EACH ROW
    WHEN ((OLD.status, OLD.partner_id, OLD.sub_account_id, OLD.network_id, OLD.site_id,
           OLD.profile_id, OLD.name, OLD.serial_number, OLD.dev_eui)
          IS DISTINCT FROM
          (NEW.status, NEW.partner_id, NEW.sub_account_id, NEW.network_id, NEW.site_id,
           NEW.profile_id, NEW.name, NEW.serial_number, NEW.dev_eui))
    EXECUTE FUNCTION device_moved_notify();
