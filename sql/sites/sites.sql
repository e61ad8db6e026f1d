-- Sites (api-spec 2.11, 4.9, decisions D17, D18): visible only in sub-accounts where the
-- multi-site feature is on (scoped_sub_accounts, schema/definitions/005-tenancy.sql).

-- name: list_sites
-- A page of sites in the key's scope ($1 partner, $2 key sub-account, $3 subAccountId filter), with the total.
WITH matching AS NOT MATERIALIZED (
    SELECT s.id, s.name, s.parent_site_id, s.sub_account_id
      FROM sites s
      JOIN scoped_sub_accounts($1, $2, $3) f ON f.sub_account_id = s.sub_account_id
     WHERE f.multi_site
)
SELECT t.total, pg.id, pg.name, pg.parent_site_id, pg.sub_account_id
  FROM (SELECT count(*) AS total FROM matching) t
  LEFT JOIN (SELECT * FROM matching ORDER BY name, id LIMIT $4 OFFSET $5) pg ON true
 ORDER BY pg.name, pg.id

-- name: get_site
-- One site by id ($3) in the key's scope ($1 partner, $2 key sub-account) where multi-site is on.
SELECT s.id, s.name, s.parent_site_id, s.sub_account_id
  FROM sites s
  JOIN scoped_sub_accounts($1, $2, NULL) f ON f.sub_account_id = s.sub_account_id
 WHERE s.id = $3 AND f.multi_site
