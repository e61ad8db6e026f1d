-- name: context_fields
-- The field catalog of a profile in catalog order, with the profile's retain option.
SELECT p.retain_last_value, f.num, f.identifier, f.data_type, f.kind, f.role, f.formula,
       f.source, f.mapping, f.default_value
  FROM device_profiles p
  LEFT JOIN profile_fields f ON f.profile_id = p.id
 WHERE p.id = $1
 ORDER BY f.position, f.num;

-- name: context_rules
-- The alert rules of a profile.
SELECT id, field, op, value, level FROM alert_rules WHERE profile_id = $1 ORDER BY id;

-- name: context_device_by_num
-- The attributes of a device the pipeline needs, by num.
SELECT partner_id, num, id, status, profile_id, static_values, calibration
  FROM devices WHERE num = $1;
