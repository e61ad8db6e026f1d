-- Device profiles and their field catalogs (api-spec 2.7, 4.5, decisions D10, D17).
-- A partner key sees every profile of the partner; a sub-account key only the profiles
-- used by its own assigned devices.

-- name: list_profiles
-- A page of profiles visible to the key ($1 partner, $2 key sub-account), with field counts and the total.
WITH matching AS NOT MATERIALIZED (
    SELECT dp.id, dp.name, dp.retain_last_value
      FROM device_profiles dp
     WHERE dp.partner_id = $1
       AND ($2::uuid IS NULL
            OR EXISTS (SELECT 1 FROM devices d
                        WHERE d.sub_account_id = $2 AND d.status = 'assigned'
                          AND d.profile_id = dp.id))
),
page AS (
    SELECT * FROM matching ORDER BY name, id LIMIT $3 OFFSET $4
)
SELECT t.total, pg.id, pg.name, pg.retain_last_value,
       (SELECT count(*) FROM profile_fields f WHERE f.profile_id = pg.id) AS field_count
  FROM (SELECT count(*) AS total FROM matching) t
  LEFT JOIN page pg ON true
 ORDER BY pg.name, pg.id

-- name: get_profile
-- One profile visible to the key ($1 partner, $2 key sub-account) by id ($3), with its field count.
SELECT dp.id, dp.name, dp.retain_last_value,
       (SELECT count(*) FROM profile_fields f WHERE f.profile_id = dp.id) AS field_count
  FROM device_profiles dp
 WHERE dp.id = $3 AND dp.partner_id = $1
   AND ($2::uuid IS NULL
        OR EXISTS (SELECT 1 FROM devices d
                    WHERE d.sub_account_id = $2 AND d.status = 'assigned'
                      AND d.profile_id = dp.id))

-- name: profile_fields
-- The field catalog of one profile ($1), in catalog order.
SELECT id, identifier, label, unit, data_type, kind, role
  FROM profile_fields
 WHERE profile_id = $1
 ORDER BY position, identifier
