-- name: assigned_members
-- The group's assigned member devices of its own sub-account ($1 group, $2 sub-account), by name.
SELECT d.id, d.num, d.dev_eui, d.profile_id
  FROM multicast_members m
  JOIN devices d ON d.id = m.device_id
 WHERE m.group_id = $1 AND d.sub_account_id = $2 AND d.status = 'assigned'
 ORDER BY d.name, d.id
 LIMIT 100000

-- name: partner_profiles
-- Every device profile of a partner ($1), to check a request against a group without assigned members.
SELECT id AS profile_id FROM device_profiles WHERE partner_id = $1 LIMIT 10000
