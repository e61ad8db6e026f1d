-- Multicast group reads (api-spec 2.9, 4.7, decisions D17, D18). `deviceCount` counts every
-- member; the detail lists every member with its status (inventory members stay listed).

-- name: list_groups
-- A page of groups in the key's scope ($1 partner, $2 key sub-account, $3 subAccountId filter), with member counts and the total.
WITH matching AS NOT MATERIALIZED (
    SELECT g.id, g.name, g.sub_account_id
      FROM multicast_groups g
      JOIN sub_accounts sa ON sa.id = g.sub_account_id
     WHERE sa.partner_id = $1
       AND ($2::uuid IS NULL OR g.sub_account_id = $2)
       AND ($3::uuid IS NULL OR g.sub_account_id = $3)
),
page AS (
    SELECT * FROM matching ORDER BY name, id LIMIT $4 OFFSET $5
)
SELECT t.total, pg.id, pg.name, pg.sub_account_id,
       (SELECT count(*) FROM multicast_members m WHERE m.group_id = pg.id) AS device_count
  FROM (SELECT count(*) AS total FROM matching) t
  LEFT JOIN page pg ON true
 ORDER BY pg.name, pg.id

-- name: get_group
-- One group by id ($3) in the key's scope ($1 partner, $2 key sub-account), with its member count.
SELECT g.id, g.name, g.sub_account_id,
       (SELECT count(*) FROM multicast_members m WHERE m.group_id = g.id) AS device_count
  FROM multicast_groups g
  JOIN sub_accounts sa ON sa.id = g.sub_account_id
 WHERE g.id = $3 AND sa.partner_id = $1
   AND ($2::uuid IS NULL OR g.sub_account_id = $2)

-- name: group_members
-- Every member device of one group ($1) with its status, by name.
SELECT d.id, d.dev_eui, d.name, d.status
  FROM multicast_members m
  JOIN devices d ON d.id = m.device_id
 WHERE m.group_id = $1
 ORDER BY d.name, d.id
