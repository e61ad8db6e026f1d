-- The device directory: list with every filter (api-spec 4.3, decisions D9, D17, D18) and
-- the detail. Which devices a key sees through the filters is fleet_devices, and how a
-- device is shown (live fields only while assigned, networkId/siteId only where the
-- feature is on) is the view device_directory, whose columns are the rows' (`d.*`), both
-- in schema/definitions/050-directory.sql.
-- Optional filters are written `($n IS NULL OR ...)`: each parameter set is planned with
-- its values, so the branches of absent filters fold away (and so do the joins they alone
-- need). $7 is NULL when every status is wanted. With a search ($9), `matching` is sent
-- MATERIALIZED (app/devices/controller.py): the page and the total then read one trigram
-- scan instead of one each.

-- name: list_devices
-- A page of devices in the key's scope ($1 partner, $2 key sub-account) matching the filters, with the total.
WITH matching AS NOT MATERIALIZED (
    -- Devices in list order. The controller sends the filters that device_presence alone
    -- answers to list_devices_present instead (app/devices/controller.py).
    SELECT d.id, d.name
      FROM fleet_devices($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) d
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
SELECT t.total, d.*
  FROM total t
  LEFT JOIN page pg ON true
  LEFT JOIN device_directory d ON d.id = pg.id
 ORDER BY pg.name, pg.id

-- name: list_devices_present
-- list_devices for an online filter ($8) that device_presence alone answers: online=true, or online=false when only assigned devices are wanted.
WITH matching AS NOT MATERIALIZED (
    -- Presence holds every assigned device, so it answers online=true, and online=false
    -- when only assigned devices are wanted (a sub-account key, status=assigned). Its
    -- scope indexes are in list order (name, id) and carry online_until: the page is an
    -- index-only walk that stops after offset + limit matching rows, the count an
    -- index-only scan of the scope; devices is visited for the rows of the page only.
    -- The filters are fleet_devices' rules, on presence's copy of the placement columns.
    SELECT p.id, p.name
      FROM device_presence p
     WHERE ($7::text[] IS NULL OR 'assigned' = ANY ($7::text[]))
       AND p.partner_id = $1
       AND ($2::uuid IS NULL OR p.sub_account_id = $2)
       AND ($3::uuid IS NULL OR p.sub_account_id = $3)
       AND (($8::boolean AND online_now(p.online_until))
            OR (NOT $8::boolean AND online_now(p.online_until) IS NOT TRUE))
       AND placement_matches(p.network_id, p.site_id, p.sub_account_id,
               $5, p.network_id IN (SELECT n FROM filter_network($1, $5) n),
               $6, ARRAY(SELECT a FROM feature_accounts($1, 'networks') a),
               $11, p.site_id IN (SELECT s FROM filter_sites($1, $11, $13) s),
               $12, ARRAY(SELECT a FROM feature_accounts($1, 'multi_site') a))
       AND ($4::uuid IS NULL AND $9::text IS NULL
            OR EXISTS (SELECT 1 FROM devices d
                        WHERE d.num = p.device_num
                          AND ($4::uuid IS NULL OR d.profile_id = $4)
                          AND device_search_matches(d.name, d.serial_number, d.dev_eui,
                                                    $9, $10)))
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
                            AND online_now(p.online_until)
                            AND ($7::text[] IS NULL OR 'assigned' = ANY ($7::text[]))) o,
                        (SELECT COALESCE(sum(c.n), 0)::bigint AS n
                           FROM device_counts c
                          WHERE c.partner_id = $1 AND c.status = 'assigned'
                            AND ($2::uuid IS NULL OR c.sub_account_id = $2)
                            AND ($3::uuid IS NULL OR c.sub_account_id = $3)
                            AND ($7::text[] IS NULL OR 'assigned' = ANY ($7::text[]))) a)
           ELSE (SELECT count(*) FROM matching) END AS total
)
SELECT t.total, d.*
  FROM total t
  LEFT JOIN page pg ON true
  LEFT JOIN device_directory d ON d.id = pg.id
 ORDER BY pg.name, pg.id

-- name: get_device
-- One device by service id with its live fields, already resolved in the key's scope.
SELECT d.*, dp.name AS profile_name, dp.retain_last_value AS profile_retain_last_value
  FROM device_directory d
  JOIN device_profiles dp ON dp.id = d.profile_id
 WHERE d.id = $1
