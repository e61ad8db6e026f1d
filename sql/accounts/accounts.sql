-- name: list_sub_accounts
-- Sub-accounts visible to a key ($1 partner, $2 own sub-account or NULL), a page of them.
SELECT sa.id, sa.name, sa.status, sa.created_at, sa.updated_at, count(*) OVER () AS total
  FROM sub_accounts sa
  JOIN scoped_sub_accounts($1, $2, NULL) f ON f.sub_account_id = sa.id
 ORDER BY sa.name, sa.id
 LIMIT $3 OFFSET $4

-- name: count_sub_accounts
-- How many sub-accounts a key sees; used when a page is past the end.
SELECT count(*) FROM scoped_sub_accounts($1, $2, NULL)

-- name: get_sub_account
-- One sub-account in the key's scope.
SELECT sa.id, sa.name, sa.status, sa.created_at, sa.updated_at
  FROM sub_accounts sa
  JOIN scoped_sub_accounts($1, $2, NULL) f ON f.sub_account_id = sa.id
 WHERE sa.id = $3

-- name: describe_key
-- The names behind a key, for GET /me.
SELECT ak.name AS key_name, ak.expires_at, p.name AS partner_name, sa.name AS sub_account_name
  FROM api_keys ak
  JOIN partners p ON p.id = ak.partner_id
  LEFT JOIN sub_accounts sa ON sa.id = ak.sub_account_id
 WHERE ak.id = $1
