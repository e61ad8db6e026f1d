-- Two device lists that walked the partner's whole list index (issue 27, bench_directory,
-- 100,000 devices, partner 0 with 30,000): `status=inventory` filtered 25,000 entries to
-- find its first page (12 ms), and `networkId=none` walked all 30,000 twice, for the page
-- and for its total (19-21 ms). Each gets the list order of its own rows, carrying every
-- device column the list query mentions (031), so the page and the count are index-only
-- walks of just those rows: measured 1.2 ms and 4.0-4.5 ms. The planner proves the
-- predicates from the query's own filters (`status = ANY ('{inventory}')`, and
-- `network_id IS NULL` of placement_matches).

CREATE INDEX IF NOT EXISTS devices_list_inventory ON devices (partner_id, name, id)
    INCLUDE (sub_account_id, network_id, site_id, num, offline_threshold_minutes)
    WHERE status = 'inventory';

CREATE INDEX IF NOT EXISTS devices_list_no_network ON devices (partner_id, name, id)
    INCLUDE (status, sub_account_id, site_id, num, offline_threshold_minutes)
    WHERE network_id IS NULL;
