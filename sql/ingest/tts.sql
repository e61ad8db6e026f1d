-- name: tts_partner_for_token
-- The partner of a The Things Stack integration token (a token of another kind is refused).
SELECT partner_id FROM integrations WHERE token_hash = $1 AND kind = 'tts';
