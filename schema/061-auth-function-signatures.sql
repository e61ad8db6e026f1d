-- The authentication functions are defined in schema/definitions/010-auth.sql and
-- 015-auth-cache.sql, which only CREATE OR REPLACE them. Their earlier versions are dropped
-- here, once, so that those definitions may change what the functions return (issue 11
-- reworked api_lease and api_authenticate onto one window); a later change of a signature
-- or of a returned row drops the old one in its own migration the same way.
DROP FUNCTION IF EXISTS api_authenticate(bytea, timestamptz);
DROP FUNCTION IF EXISTS api_key_info(bytea);
DROP FUNCTION IF EXISTS api_lease(uuid, bigint, integer, bigint, integer, integer, integer,
    integer, integer);
