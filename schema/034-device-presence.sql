-- Device presence: one narrow row per assigned device with the time its online state ends
-- (online_until = last uplink + the device's own offline threshold; NULL before the first
-- uplink). A device is online exactly when it is assigned and online_until >= now(), the
-- same as `last_uplink_at >= now() - make_interval(mins => offline_threshold_minutes)`
-- (minutes are an exact interval, so moving it across the comparison changes nothing).
--
-- Why: the online filter of GET /devices and the network rollups joined device_state
-- (wide rows: the stored /latest body) once per device; with 10,000-device networks and
-- 30,000-device partners that was 100+ ms per call (bench_directory). Here the online count
-- of a network is an index-only scan of its members, and an online page of a partner or
-- sub-account is an index-only walk in list order (name, id).
--
-- Kept by triggers (schema/definitions/035-directory.sql): on device_state when
-- last_uplink_at changes (the ingest path: one row-level update, only when the uplink
-- moves), on devices when status, tenancy, network, site, name or threshold change.

CREATE TABLE device_presence (
    device_num          integer PRIMARY KEY REFERENCES devices (num) ON DELETE CASCADE,
    id                  uuid NOT NULL,
    partner_id          uuid NOT NULL,
    sub_account_id      uuid,
    network_id          uuid,
    site_id             uuid,
    name                text NOT NULL,
    offline_minutes     integer NOT NULL,
    online_until        timestamptz
) WITH (fillfactor = 90, autovacuum_vacuum_scale_factor = 0.02,
        autovacuum_vacuum_insert_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.05);

INSERT INTO device_presence (device_num, id, partner_id, sub_account_id, network_id, site_id,
                             name, offline_minutes, online_until)
SELECT d.num, d.id, d.partner_id, d.sub_account_id, d.network_id, d.site_id, d.name,
       d.offline_threshold_minutes,
       ds.last_uplink_at + make_interval(mins => d.offline_threshold_minutes)
  FROM devices d
  LEFT JOIN device_state ds ON ds.device_num = d.num
 WHERE d.status = 'assigned';

-- Online pages in list order, per scope; every column a list condition names is carried,
-- so the walks stay index-only.
CREATE INDEX device_presence_partner ON device_presence (partner_id, name, id)
    INCLUDE (online_until, sub_account_id, network_id, site_id, device_num);
CREATE INDEX device_presence_sub_account ON device_presence (sub_account_id, name, id)
    INCLUDE (online_until, partner_id, network_id, site_id, device_num)
    WHERE sub_account_id IS NOT NULL;
-- Network rollups (members, online, alerting) and the online page of one network.
CREATE INDEX device_presence_network ON device_presence (network_id, online_until)
    INCLUDE (device_num, name, id, partner_id, sub_account_id, site_id)
    WHERE network_id IS NOT NULL;
-- Online counts of a scope: a range of (scope, online_until), not a walk of the scope.
CREATE INDEX device_presence_partner_online ON device_presence (partner_id, online_until);
CREATE INDEX device_presence_sub_account_online ON device_presence (sub_account_id, online_until)
    INCLUDE (partner_id)
    WHERE sub_account_id IS NOT NULL;
