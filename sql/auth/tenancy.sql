-- name: resolve_device
-- A device by id ($3) or DevEUI ($4) within the key's scope ($1 partner, $2 sub-account or NULL); sub-account keys see assigned devices only.
SELECT d.id, d.num, d.status, d.partner_id, d.sub_account_id, d.profile_id, d.network_id,
       d.site_id, s.num AS site_num, d.dev_eui, d.name
  FROM tenant_device($1, $2::uuid, $3, $4) d
  LEFT JOIN sites s ON s.id = d.site_id
 LIMIT 1
