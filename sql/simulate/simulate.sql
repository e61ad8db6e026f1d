-- name: devices
-- The assigned devices of a partner with the gateways of their sub-account, for the simulator.
SELECT d.dev_eui, d.profile_id,
       COALESCE((SELECT array_agg(g.gateway_eui ORDER BY g.num) FROM gateways g
                  WHERE g.sub_account_id = d.sub_account_id AND g.status = 'assigned'), '{}')
           AS gateways
  FROM devices d
 WHERE d.partner_id = $1 AND d.status = 'assigned'
 ORDER BY d.num
 LIMIT $2

-- name: fields
-- The decoded fields of the given profiles.
SELECT profile_id, identifier, data_type, role FROM profile_fields
 WHERE profile_id = ANY ($1::uuid[]) AND kind = 'decoded'
 ORDER BY profile_id, position, num

-- name: rules
-- The alert rules of the given profiles (numeric thresholds are pushed past now and then).
SELECT profile_id, field, op, value FROM alert_rules WHERE profile_id = ANY ($1::uuid[])
