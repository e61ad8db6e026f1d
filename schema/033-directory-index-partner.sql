-- Every device list condition names the partner, so the sub-account, network and site
-- list indexes carry partner_id too; without it each row of an index-only walk visits
-- the heap to check a condition that is always true.

DROP INDEX IF EXISTS devices_list_sub_account;
CREATE INDEX devices_list_sub_account ON devices (sub_account_id, name, id)
    INCLUDE (status, partner_id, network_id, site_id, num, offline_threshold_minutes)
    WHERE sub_account_id IS NOT NULL;

DROP INDEX IF EXISTS devices_list_network;
CREATE INDEX devices_list_network ON devices (network_id, name, id)
    INCLUDE (status, partner_id, sub_account_id, num, offline_threshold_minutes)
    WHERE network_id IS NOT NULL;

DROP INDEX IF EXISTS devices_list_site;
CREATE INDEX devices_list_site ON devices (site_id, name, id)
    INCLUDE (status, partner_id, sub_account_id, num, offline_threshold_minutes)
    WHERE site_id IS NOT NULL;
