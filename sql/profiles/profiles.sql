-- Device profiles and their field catalogs (api-spec 2.7, 4.5, decisions D10, D17). Which
-- profiles a key sees is visible_profiles (schema/definitions/050-directory.sql): a
-- partner key every profile of the partner, a sub-account key only the profiles used by
-- its own assigned devices.

-- name: list_profiles
-- A page of profiles visible to the key ($1 partner, $2 key sub-account), with field counts and the total.
WITH matching AS NOT MATERIALIZED (
    SELECT id, name FROM visible_profiles($1, $2)
)
SELECT t.total, dp.id, dp.name, dp.retain_last_value, dp.field_count
  FROM (SELECT count(*) AS total FROM matching) t
  LEFT JOIN (SELECT id, name FROM matching ORDER BY name, id LIMIT $3 OFFSET $4) pg ON true
  LEFT JOIN profile_directory dp ON dp.id = pg.id
 ORDER BY pg.name, pg.id

-- name: get_profile
-- One profile visible to the key ($1 partner, $2 key sub-account) by id ($3), with its field count.
SELECT id, name, retain_last_value, field_count
  FROM visible_profiles($1, $2)
 WHERE id = $3

-- name: profile_fields
-- The field catalog of one profile ($1), in catalog order.
SELECT id, identifier, label, unit, data_type, kind, role, measurement
  FROM profile_fields
 WHERE profile_id = $1
 ORDER BY position, identifier
