-- name: list_members
-- A page of the members of a sub-account ($1), by email; the site only where multi-site is on.
SELECT u.id AS user_id, u.email, u.name, m.role, u.status, u.mfa_enabled, u.last_login_at,
       m.added_at, sa.id AS sub_account_id, sa.name AS sub_account_name,
       s.id AS site_id, s.name AS site_name, count(*) OVER () AS total
  FROM memberships m
  JOIN users u ON u.id = m.user_id
  JOIN sub_accounts sa ON sa.id = m.sub_account_id
 CROSS JOIN LATERAL account_features(sa.partner_id, sa.id) f
  LEFT JOIN sites s ON s.id = m.site_id AND f.multi_site
 WHERE m.sub_account_id = $1
 ORDER BY u.email_key, u.id
 LIMIT $2 OFFSET $3

-- name: count_members
-- How many members a sub-account has; used when a page is past the end.
SELECT count(*) FROM memberships WHERE sub_account_id = $1

-- name: find_site
-- A site of the sub-account ($1 sub-account, $2 site id), for a member's restriction.
SELECT id, name FROM sites WHERE sub_account_id = $1 AND id = $2

-- name: find_user
-- A user of the partner's workspace by normalized email ($1 partner, $2 lower(trim(email))).
SELECT id, status FROM users WHERE partner_id = $1 AND email_key = $2

-- name: is_member
-- Whether the user ($2) is a member of the sub-account ($1).
SELECT EXISTS (SELECT 1 FROM memberships WHERE sub_account_id = $1 AND user_id = $2)

-- name: lock_sub_account
-- Locks the sub-account row: membership changes of one sub-account run one at a time.
SELECT name, member_limit FROM sub_accounts WHERE id = $1 FOR UPDATE

-- name: insert_user
-- Creates an active user; nothing when the email already has an account in the workspace.
INSERT INTO users (id, partner_id, email, email_key, name, password_hash, status)
VALUES ($1, $2, $3, $4, $5, $6, 'active')
ON CONFLICT (partner_id, email_key) DO NOTHING
RETURNING id

-- name: insert_membership
-- Attaches a user ($2) to a sub-account ($1) with a role ($3) and optional site ($4).
INSERT INTO memberships (sub_account_id, user_id, role, site_id)
VALUES ($1, $2, $3, $4)
ON CONFLICT (sub_account_id, user_id) DO NOTHING
RETURNING added_at

-- name: user_status
-- A user's status, for the result of adding a member.
SELECT status FROM users WHERE id = $1

-- name: membership_role
-- The role of a user ($2) in a sub-account ($1), or nothing.
SELECT role FROM memberships WHERE sub_account_id = $1 AND user_id = $2

-- name: count_admins
-- How many administrators a sub-account ($1) has (counted after its row is locked).
SELECT count(*) FROM memberships WHERE sub_account_id = $1 AND role = 'subaccount_admin'

-- name: delete_membership
-- Removes one membership ($1 sub-account, $2 user).
DELETE FROM memberships WHERE sub_account_id = $1 AND user_id = $2

-- name: end_sessions
-- Ends every active session of a user ($1).
UPDATE user_sessions SET ended_at = now() WHERE user_id = $1 AND ended_at IS NULL

-- name: login_user
-- The user for a login check ($1 partner, $2 normalized email), with whether a lock is in force.
SELECT id, email, name, password_hash, status, mfa_enabled,
       coalesce(locked_until > now(), false) AS locked
  FROM users
 WHERE partner_id = $1 AND email_key = $2

-- name: user_memberships
-- A user's ($1) memberships in the partner's ($2) sub-accounts, or in one ($3, NULL for all).
SELECT sa.id AS sub_account_id, sa.name AS sub_account_name, m.role,
       s.id AS site_id, s.name AS site_name
  FROM memberships m
  JOIN sub_accounts sa ON sa.id = m.sub_account_id
 CROSS JOIN LATERAL account_features(sa.partner_id, sa.id) f
  LEFT JOIN sites s ON s.id = m.site_id AND f.multi_site
 WHERE m.user_id = $1 AND sa.partner_id = $2 AND ($3::uuid IS NULL OR sa.id = $3)
 ORDER BY sa.name, sa.id
 LIMIT 1000

-- name: member_usage
-- A sub-account's member limit and how many members it has ($1 sub-account).
SELECT sa.member_limit,
       (SELECT count(*) FROM memberships m WHERE m.sub_account_id = sa.id) AS used
  FROM sub_accounts sa
 WHERE sa.id = $1
