-- Sites (api-spec 2.11, 4.9, decisions D17, D18): visible only in sub-accounts where the
-- multi-site feature is on (sub_account_features, schema/definitions/005-tenancy.sql).

-- name: list_sites
-- A page of sites in the key's scope ($1 partner, $2 key sub-account, $3 subAccountId filter), with the total.
WITH matching AS NOT MATERIALIZED (
    SELECT s.id, s.name, s.parent_site_id, s.sub_account_id
      FROM sites s
      JOIN sub_account_features f ON f.sub_account_id = s.sub_account_id
     WHERE f.partner_id = $1
       AND ($2::uuid IS NULL OR s.sub_account_id = $2)
       AND ($3::uuid IS NULL OR s.sub_account_id = $3)
       AND f.multi_site
),
page AS (
    SELECT * FROM matching ORDER BY name, id LIMIT $4 OFFSET $5
)
SELECT t.total, pg.id, pg.name, pg.parent_site_id, pg.sub_account_id
  FROM (SELECT count(*) AS total FROM matching) t
  LEFT JOIN page pg ON true
 ORDER BY pg.name, pg.id

-- name: get_site
-- One site by id ($3) in the key's scope ($1 partner, $2 key sub-account) where multi-site is on.
SELECT s.id, s.name, s.parent_site_id, s.sub_account_id
  FROM sites s
  JOIN sub_account_features f ON f.sub_account_id = s.sub_account_id
 WHERE s.id = $3 AND f.partner_id = $1
   AND ($2::uuid IS NULL OR s.sub_account_id = $2)
   AND f.multi_site
