-- Membership changes for the live stream (analytics.md section 4, app/notify/hub.py): a
-- device created, deleted, or changed in a column the device list's filters read (status,
-- tenancy, placement, profile, name, serial number, DevEUI) notifies `device_moved` at
-- commit, so that a stream learns when a device may have joined or left it. The payload
-- is the device's num, then (not for a new device) its id, partner, sub-account (`-` for
-- none) and status before the change, separated by spaces: a resumed stream tells from
-- them whether the key could see the device before it moved (then it is `removed`).
-- Changes of the latest values notify `latest_changed` (020-latest.sql). Re-runnable.

CREATE OR REPLACE FUNCTION device_moved_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM pg_notify('device_moved', NEW.num::text);
    ELSE
        PERFORM pg_notify('device_moved', concat_ws(' ', OLD.num, OLD.id, OLD.partner_id,
                                                     COALESCE(OLD.sub_account_id::text, '-'),
                                                     OLD.status));
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

-- Claims one of the key's `p_max` stream places for stream `p_stream_id` with a lease of
-- `p_lease_s` seconds; false when every place is taken by a stream whose lease runs.
-- Serialised per key by a transaction-level advisory lock, so two claims cannot both
-- take the last place.
CREATE OR REPLACE FUNCTION live_stream_claim(
    p_key_id uuid, p_stream_id uuid, p_max integer, p_lease_s double precision
) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('live_streams ' || p_key_id::text, 0));
    DELETE FROM live_streams WHERE key_id = p_key_id AND expires_at < now();
    IF (SELECT count(*) FROM live_streams WHERE key_id = p_key_id) >= p_max THEN
        RETURN false;
    END IF;
    INSERT INTO live_streams (stream_id, key_id, expires_at)
    VALUES (p_stream_id, p_key_id, now() + make_interval(secs => p_lease_s));
    RETURN true;
END;
$$;

-- The device list's site and network filters read the site tree and the networks' sites
-- (filter_sites, filter_network): a change of either may move devices in or out of a
-- selection without touching them, so it notifies `device_moved` with '*' (once per
-- statement). Feature switches live on partners and sub-accounts, whose changes notify
-- `auth_changed` (015-auth-cache.sql), which the live hub follows too.
CREATE OR REPLACE FUNCTION placement_moved_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('device_moved', '*');
    RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER sites_moved AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON sites
    FOR EACH STATEMENT EXECUTE FUNCTION placement_moved_notify();
CREATE OR REPLACE TRIGGER networks_moved
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON networks
    FOR EACH STATEMENT EXECUTE FUNCTION placement_moved_notify();
