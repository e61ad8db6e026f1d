-- Multicast group reads (api-spec 2.9, 4.7, decisions D17, D18). A group belongs to a
-- sub-account (scoped_sub_accounts, schema/definitions/005-tenancy.sql); how it is shown,
-- with a deviceCount of every member, is multicast_group_directory
-- (schema/definitions/050-directory.sql). The detail lists every member with its status.

-- name: list_groups
-- A page of groups in the key's scope ($1 partner, $2 key sub-account, $3 subAccountId filter), with member counts and the total.
WITH matching AS NOT MATERIALIZED (
    SELECT g.id, g.name
      FROM multicast_groups g
      JOIN scoped_sub_accounts($1, $2, $3) f ON f.sub_account_id = g.sub_account_id
)
SELECT t.total, g.id, g.name, g.sub_account_id, g.device_count
  FROM (SELECT count(*) AS total FROM matching) t
  LEFT JOIN (SELECT id, name FROM matching ORDER BY name, id LIMIT $4 OFFSET $5) pg ON true
  LEFT JOIN multicast_group_directory g ON g.id = pg.id
 ORDER BY pg.name, pg.id

-- name: get_group
-- One group by id ($3) in the key's scope ($1 partner, $2 key sub-account), with its member count.
SELECT g.id, g.name, g.sub_account_id, g.device_count
  FROM multicast_group_directory g
  JOIN scoped_sub_accounts($1, $2, NULL) f ON f.sub_account_id = g.sub_account_id
 WHERE g.id = $3

-- name: group_members
-- Every member device of one group ($1) with its status, by name.
SELECT d.id, d.dev_eui, d.name, d.status
  FROM multicast_members m
  JOIN devices d ON d.id = m.device_id
 WHERE m.group_id = $1
 ORDER BY d.name, d.id
