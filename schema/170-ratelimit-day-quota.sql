-- api_authenticate and api_latest also return the daily quota and what is left of it, for
-- the IETF RateLimit and RateLimit-Policy fields on every authenticated answer (issue 29).
-- A function's result type cannot be replaced, so the old ones go here and the
-- definitions (schema/definitions/010-auth.sql, 020-latest.sql) create the new ones.
DROP FUNCTION IF EXISTS api_latest(bytea, uuid, text);
DROP FUNCTION IF EXISTS api_authenticate(bytea, timestamptz);
