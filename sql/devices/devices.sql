-- The device directory: list with every filter (api-spec 4.3, decisions D9, D17, D18) and
-- the detail. Live fields are shown only for assigned devices; networkId/siteId only where
-- the feature is on for the device's sub-account (the partner's value when it has none).
-- Optional filters are written `($n IS NULL OR ...)`: each parameter set is planned with
-- its values, so the branches of absent filters fold away (and so does the device_state
-- join when `online` is not asked for). The feature of a network or site filter is checked
-- once, on the network's or site's own sub-account, which is the sub-account of its
-- members. $7 is NULL when every status is wanted.

-- name: list_devices
-- A page of devices in the key's scope ($1 partner, $2 key sub-account) matching the filters, with the total.
WITH defaults AS MATERIALIZED (
    SELECT networks_enabled AS networks, multi_site_enabled AS multi_site
      FROM partners WHERE id = $1
),
network_filter AS MATERIALIZED (
    -- The network filter ($5), if the Networks feature is on for its sub-account. Joined
    -- on the row, not as an uncorrelated EXISTS: such a constant condition would keep the
    -- planner from dropping the unused joins of the list.
    SELECT n.id FROM networks n JOIN sub_accounts sa ON sa.id = n.sub_account_id
     WHERE n.id = $5 AND sa.partner_id = $1
       AND COALESCE(sa.networks_enabled, (SELECT networks FROM defaults))
),
root AS MATERIALIZED (
    -- The site filter ($11), if multi-site is on for its sub-account.
    SELECT s.id FROM sites s JOIN sub_accounts sa ON sa.id = s.sub_account_id
     WHERE s.id = $11 AND sa.partner_id = $1
       AND COALESCE(sa.multi_site_enabled, (SELECT multi_site FROM defaults))
),
subtree AS MATERIALIZED (
    -- With includeDescendants ($13), the subtree of the site (at most 3 levels).
    SELECT id FROM root
    UNION ALL
    SELECT c.id FROM sites c WHERE $13 AND c.parent_site_id IN (SELECT id FROM root)
    UNION ALL
    SELECT g.id FROM sites c JOIN sites g ON g.parent_site_id = c.id
     WHERE $13 AND c.parent_site_id IN (SELECT id FROM root)
),
matching AS NOT MATERIALIZED (
    -- Devices in list order. The online filter is a probe of device_presence (schema/034:
    -- a row per assigned device, online_until = last uplink + offline threshold), not a
    -- join of the wide device_state. The controller sends the filters that presence alone
    -- answers to list_devices_present instead (app/devices/controller.py).
    SELECT d.id, d.name
      FROM devices d
      LEFT JOIN sub_accounts sa ON sa.id = d.sub_account_id
     WHERE d.partner_id = $1
       AND ($2::uuid IS NULL OR d.sub_account_id = $2)
       AND ($3::uuid IS NULL OR d.sub_account_id = $3)
       AND ($4::uuid IS NULL OR d.profile_id = $4)
       AND ($7::text[] IS NULL OR d.status = ANY ($7::text[]))
       AND ($5::uuid IS NULL
            OR (d.network_id = $5
                AND EXISTS (SELECT 1 FROM network_filter f WHERE f.id = d.network_id)))
       AND (NOT $6::boolean
            OR (d.network_id IS NULL
                AND COALESCE(sa.networks_enabled, (SELECT networks FROM defaults))))
       AND ($11::uuid IS NULL OR d.site_id IN (SELECT id FROM subtree))
       AND (NOT $12::boolean
            OR (d.site_id IS NULL
                AND COALESCE(sa.multi_site_enabled, (SELECT multi_site FROM defaults))))
       AND ($8::boolean IS NULL
            OR EXISTS (SELECT 1 FROM device_presence p
                        WHERE p.device_num = d.num AND p.online_until >= now()) = $8)
       AND ($9::text IS NULL
            OR d.name ILIKE $9
            OR d.serial_number ILIKE $9
            OR ($10::text IS NOT NULL AND d.dev_eui LIKE $10))
),
page AS (
    SELECT id, name FROM matching ORDER BY name, id LIMIT $14 OFFSET $15
),
total AS (
    -- Without filters beyond scope and status, the kept counts answer (schema/032).
    -- Inventory is counted under the nil UUID, which is no sub-account: a sub-account
    -- filter naming it matches no device, so it must not match those counts either (D7).
    SELECT CASE
           WHEN $4::uuid IS NULL AND $5::uuid IS NULL AND NOT $6::boolean
                AND $8::boolean IS NULL AND $9::text IS NULL AND $11::uuid IS NULL
                AND NOT $12::boolean
           THEN (SELECT COALESCE(sum(c.n), 0)::bigint
                   FROM device_counts c
                  WHERE c.partner_id = $1
                    AND ($2::uuid IS NULL OR c.sub_account_id = $2)
                    AND ($3::uuid IS NULL OR c.sub_account_id = $3)
                    AND (COALESCE($2::uuid, $3::uuid) IS NULL
                         OR c.sub_account_id <> '00000000-0000-0000-0000-000000000000')
                    AND ($7::text[] IS NULL OR c.status = ANY ($7::text[])))
           ELSE (SELECT count(*) FROM matching) END AS total
)
SELECT t.total, d.id, d.dev_eui, d.name, d.serial_number, d.status, d.sub_account_id,
       d.profile_id,
       CASE WHEN COALESCE(sa.networks_enabled, df.networks) THEN d.network_id END AS network_id,
       CASE WHEN COALESCE(sa.multi_site_enabled, df.multi_site) THEN d.site_id END AS site_id,
       COALESCE(d.status = 'assigned'
                AND ds.last_uplink_at >= now() - make_interval(mins => d.offline_threshold_minutes),
                false) AS online,
       CASE WHEN d.status = 'assigned' THEN ds.signal_quality END AS signal_quality,
       CASE WHEN d.status = 'assigned' THEN ds.battery END AS battery,
       CASE WHEN d.status = 'assigned' THEN ds.last_seen_at END AS last_seen_at,
       CASE WHEN d.status = 'assigned' THEN ds.last_uplink_at END AS last_uplink_at,
       CASE WHEN d.status <> 'assigned' THEN NULL
            WHEN ds.reported_location IS NULL THEN d.manual_location
            WHEN d.manual_location IS NULL THEN ds.reported_location
            WHEN COALESCE(ds.reported_location_at, '-infinity')
                 >= COALESCE(d.manual_location_at, '-infinity') THEN ds.reported_location
            ELSE d.manual_location END AS location
  FROM total t
  CROSS JOIN defaults df
  LEFT JOIN page pg ON true
  LEFT JOIN devices d ON d.id = pg.id
  LEFT JOIN sub_accounts sa ON sa.id = d.sub_account_id
  LEFT JOIN device_state ds ON ds.device_num = d.num
 ORDER BY pg.name, pg.id

-- name: list_devices_present
-- list_devices for an online filter ($8) that device_presence alone answers: online=true, or online=false when only assigned devices are wanted.
WITH defaults AS MATERIALIZED (
    SELECT networks_enabled AS networks, multi_site_enabled AS multi_site
      FROM partners WHERE id = $1
),
network_filter AS MATERIALIZED (
    -- The network filter ($5), if the Networks feature is on for its sub-account. Joined
    -- on the row, not as an uncorrelated EXISTS: such a constant condition would keep the
    -- planner from dropping the unused joins of the list.
    SELECT n.id FROM networks n JOIN sub_accounts sa ON sa.id = n.sub_account_id
     WHERE n.id = $5 AND sa.partner_id = $1
       AND COALESCE(sa.networks_enabled, (SELECT networks FROM defaults))
),
root AS MATERIALIZED (
    -- The site filter ($11), if multi-site is on for its sub-account.
    SELECT s.id FROM sites s JOIN sub_accounts sa ON sa.id = s.sub_account_id
     WHERE s.id = $11 AND sa.partner_id = $1
       AND COALESCE(sa.multi_site_enabled, (SELECT multi_site FROM defaults))
),
subtree AS MATERIALIZED (
    -- With includeDescendants ($13), the subtree of the site (at most 3 levels).
    SELECT id FROM root
    UNION ALL
    SELECT c.id FROM sites c WHERE $13 AND c.parent_site_id IN (SELECT id FROM root)
    UNION ALL
    SELECT g.id FROM sites c JOIN sites g ON g.parent_site_id = c.id
     WHERE $13 AND c.parent_site_id IN (SELECT id FROM root)
),
matching AS NOT MATERIALIZED (
    -- Presence holds every assigned device, so it answers online=true, and online=false
    -- when only assigned devices are wanted (a sub-account key, status=assigned). Its
    -- scope indexes are in list order (name, id) and carry online_until: the page is an
    -- index-only walk that stops after offset + limit matching rows, the count an
    -- index-only scan of the scope; devices is visited for the rows of the page only.
    SELECT p.id, p.name
      FROM device_presence p
      LEFT JOIN sub_accounts sa ON sa.id = p.sub_account_id
     WHERE ($7::text[] IS NULL OR 'assigned' = ANY ($7::text[]))
       AND p.partner_id = $1
       AND ($2::uuid IS NULL OR p.sub_account_id = $2)
       AND ($3::uuid IS NULL OR p.sub_account_id = $3)
       AND (($8::boolean AND p.online_until >= now())
            OR (NOT $8::boolean AND (p.online_until >= now()) IS NOT TRUE))
       AND ($5::uuid IS NULL
            OR (p.network_id = $5
                AND EXISTS (SELECT 1 FROM network_filter f WHERE f.id = p.network_id)))
       AND (NOT $6::boolean
            OR (p.network_id IS NULL
                AND COALESCE(sa.networks_enabled, (SELECT networks FROM defaults))))
       AND ($11::uuid IS NULL OR p.site_id IN (SELECT id FROM subtree))
       AND (NOT $12::boolean
            OR (p.site_id IS NULL
                AND COALESCE(sa.multi_site_enabled, (SELECT multi_site FROM defaults))))
       AND ($4::uuid IS NULL AND $9::text IS NULL
            OR EXISTS (SELECT 1 FROM devices d
                        WHERE d.num = p.device_num
                          AND ($4::uuid IS NULL OR d.profile_id = $4)
                          AND ($9::text IS NULL
                               OR d.name ILIKE $9
                               OR d.serial_number ILIKE $9
                               OR ($10::text IS NOT NULL AND d.dev_eui LIKE $10))))
),
page AS (
    SELECT id, name FROM matching ORDER BY name, id LIMIT $14 OFFSET $15
),
total AS (
    -- Without filters beyond scope: the online count is a range of (scope, online_until);
    -- offline assigned devices are the kept assigned count (schema/032) minus it.
    -- Otherwise the matching rows are counted.
    SELECT CASE
           WHEN $4::uuid IS NULL AND $5::uuid IS NULL AND NOT $6::boolean
                AND $9::text IS NULL AND $11::uuid IS NULL AND NOT $12::boolean
           THEN (SELECT CASE WHEN $8::boolean THEN o.n ELSE a.n - o.n END
                   FROM (SELECT count(*) AS n FROM device_presence p
                          WHERE p.partner_id = $1
                            AND ($2::uuid IS NULL OR p.sub_account_id = $2)
                            AND ($3::uuid IS NULL OR p.sub_account_id = $3)
                            AND p.online_until >= now()
                            AND ($7::text[] IS NULL OR 'assigned' = ANY ($7::text[]))) o,
                        (SELECT COALESCE(sum(c.n), 0)::bigint AS n
                           FROM device_counts c
                          WHERE c.partner_id = $1 AND c.status = 'assigned'
                            AND ($2::uuid IS NULL OR c.sub_account_id = $2)
                            AND ($3::uuid IS NULL OR c.sub_account_id = $3)
                            AND ($7::text[] IS NULL OR 'assigned' = ANY ($7::text[]))) a)
           ELSE (SELECT count(*) FROM matching) END AS total
)
SELECT t.total, d.id, d.dev_eui, d.name, d.serial_number, d.status, d.sub_account_id,
       d.profile_id,
       CASE WHEN COALESCE(sa.networks_enabled, df.networks) THEN d.network_id END AS network_id,
       CASE WHEN COALESCE(sa.multi_site_enabled, df.multi_site) THEN d.site_id END AS site_id,
       COALESCE(d.status = 'assigned'
                AND ds.last_uplink_at >= now() - make_interval(mins => d.offline_threshold_minutes),
                false) AS online,
       CASE WHEN d.status = 'assigned' THEN ds.signal_quality END AS signal_quality,
       CASE WHEN d.status = 'assigned' THEN ds.battery END AS battery,
       CASE WHEN d.status = 'assigned' THEN ds.last_seen_at END AS last_seen_at,
       CASE WHEN d.status = 'assigned' THEN ds.last_uplink_at END AS last_uplink_at,
       CASE WHEN d.status <> 'assigned' THEN NULL
            WHEN ds.reported_location IS NULL THEN d.manual_location
            WHEN d.manual_location IS NULL THEN ds.reported_location
            WHEN COALESCE(ds.reported_location_at, '-infinity')
                 >= COALESCE(d.manual_location_at, '-infinity') THEN ds.reported_location
            ELSE d.manual_location END AS location
  FROM total t
  CROSS JOIN defaults df
  LEFT JOIN page pg ON true
  LEFT JOIN devices d ON d.id = pg.id
  LEFT JOIN sub_accounts sa ON sa.id = d.sub_account_id
  LEFT JOIN device_state ds ON ds.device_num = d.num
 ORDER BY pg.name, pg.id

-- name: get_device
-- One device by service id with its live fields, already resolved in the key's scope.
SELECT d.id, d.dev_eui, d.name, d.serial_number, d.status, d.sub_account_id, d.profile_id,
       CASE WHEN COALESCE(sa.networks_enabled, p.networks_enabled) THEN d.network_id END AS network_id,
       CASE WHEN COALESCE(sa.multi_site_enabled, p.multi_site_enabled) THEN d.site_id END AS site_id,
       COALESCE(d.status = 'assigned'
                AND ds.last_uplink_at >= now() - make_interval(mins => d.offline_threshold_minutes),
                false) AS online,
       CASE WHEN d.status = 'assigned' THEN ds.signal_quality END AS signal_quality,
       CASE WHEN d.status = 'assigned' THEN ds.battery END AS battery,
       CASE WHEN d.status = 'assigned' THEN ds.last_seen_at END AS last_seen_at,
       CASE WHEN d.status = 'assigned' THEN ds.last_uplink_at END AS last_uplink_at,
       CASE WHEN d.status <> 'assigned' THEN NULL
            WHEN ds.reported_location IS NULL THEN d.manual_location
            WHEN d.manual_location IS NULL THEN ds.reported_location
            WHEN COALESCE(ds.reported_location_at, '-infinity')
                 >= COALESCE(d.manual_location_at, '-infinity') THEN ds.reported_location
            ELSE d.manual_location END AS location,
       dp.name AS profile_name, dp.retain_last_value AS profile_retain_last_value
  FROM devices d
  JOIN partners p ON p.id = d.partner_id
  JOIN device_profiles dp ON dp.id = d.profile_id
  LEFT JOIN sub_accounts sa ON sa.id = d.sub_account_id
  LEFT JOIN device_state ds ON ds.device_num = d.num
 WHERE d.id = $1
