-- Indexes for the directory lists (devices, gateways, networks, profiles, multicast).
-- Every list is ordered by (name, id) within a scope and returns `total`. Carrying
-- `status` (and the sub-account) in the list indexes lets both the page and the count be
-- index-only scans, even when a status or sub-account condition applies
-- (bench_directory: partner page 1 of 30k devices from ~16 ms to ~2 ms).

CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE INDEX devices_list_partner ON devices (partner_id, name, id)
    INCLUDE (status, sub_account_id, network_id, site_id);
CREATE INDEX devices_list_sub_account ON devices (sub_account_id, name, id)
    INCLUDE (status, network_id, site_id) WHERE sub_account_id IS NOT NULL;
CREATE INDEX devices_list_network ON devices (network_id, name, id)
    INCLUDE (status, sub_account_id) WHERE network_id IS NOT NULL;
CREATE INDEX devices_list_site ON devices (site_id, name, id)
    INCLUDE (status, sub_account_id) WHERE site_id IS NOT NULL;
CREATE INDEX devices_list_profile ON devices (profile_id, name, id)
    INCLUDE (status, partner_id, sub_account_id);
-- The base indexes of 001 are superseded by the ones above.
DROP INDEX devices_partner;
DROP INDEX devices_sub_account;
DROP INDEX devices_network;
DROP INDEX devices_site;
DROP INDEX devices_profile;

-- search: substring matches on name, serial number and DevEUI. A trigram index turns a
-- selective search into a bitmap scan instead of a walk over all of a partner's devices.
CREATE INDEX devices_search_name ON devices USING gin (name gin_trgm_ops);
CREATE INDEX devices_search_serial ON devices USING gin (serial_number gin_trgm_ops);
CREATE INDEX devices_search_eui ON devices USING gin (dev_eui gin_trgm_ops);

-- A sub-account key sees the profiles used by its assigned devices.
CREATE INDEX devices_sub_account_profile ON devices (sub_account_id, profile_id)
    WHERE status = 'assigned';

CREATE INDEX gateways_list_network ON gateways (network_id, name, id)
    INCLUDE (status) WHERE network_id IS NOT NULL;
CREATE INDEX gateways_site ON gateways (site_id) WHERE site_id IS NOT NULL;
CREATE INDEX networks_site ON networks (site_id) WHERE site_id IS NOT NULL;
CREATE INDEX multicast_members_device ON multicast_members (device_id);
