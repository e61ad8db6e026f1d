-- The list indexes of 030 also carry `num` and `offline_threshold_minutes`. The planner
-- decides on index-only scans before it removes the unused device_state join of the list
-- query, so every column of the device that the query mentions must be in the index,
-- including the join key; otherwise each page and count visits the heap once per row
-- (bench_directory, last page of 30k devices: index scan ~70 ms, index-only ~10 ms).

DROP INDEX IF EXISTS devices_list_partner;
CREATE INDEX devices_list_partner ON devices (partner_id, name, id)
    INCLUDE (status, sub_account_id, network_id, site_id, num, offline_threshold_minutes);

DROP INDEX IF EXISTS devices_list_sub_account;
CREATE INDEX devices_list_sub_account ON devices (sub_account_id, name, id)
    INCLUDE (status, network_id, site_id, num, offline_threshold_minutes)
    WHERE sub_account_id IS NOT NULL;

DROP INDEX IF EXISTS devices_list_network;
CREATE INDEX devices_list_network ON devices (network_id, name, id)
    INCLUDE (status, sub_account_id, num, offline_threshold_minutes)
    WHERE network_id IS NOT NULL;

DROP INDEX IF EXISTS devices_list_site;
CREATE INDEX devices_list_site ON devices (site_id, name, id)
    INCLUDE (status, sub_account_id, num, offline_threshold_minutes)
    WHERE site_id IS NOT NULL;

DROP INDEX IF EXISTS devices_list_profile;
CREATE INDEX devices_list_profile ON devices (profile_id, name, id)
    INCLUDE (status, partner_id, sub_account_id, num, offline_threshold_minutes);
