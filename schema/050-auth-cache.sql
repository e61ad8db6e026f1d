-- Invalidation of the per-worker key caches (app/auth/cache.py): any change to a key, a
-- partner or a sub-account notifies `auth_changed` with the partner's id at commit, and
-- every worker drops the cached keys of that partner. The function's real body lives in
-- schema/definitions/050-auth-cache.sql (re-applied on every migrate); this first body
-- only lets the triggers exist before the definitions run.

CREATE FUNCTION auth_changed_notify() RETURNS trigger
LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END; $$;

CREATE TRIGGER api_keys_auth_changed AFTER UPDATE OR DELETE ON api_keys
    FOR EACH ROW EXECUTE FUNCTION auth_changed_notify();
CREATE TRIGGER partners_auth_changed AFTER UPDATE OR DELETE ON partners
    FOR EACH ROW EXECUTE FUNCTION auth_changed_notify();
-- A new sub-account changes the features a partner key sees (D17, D18), so inserts count.
CREATE TRIGGER sub_accounts_auth_changed AFTER INSERT OR UPDATE OR DELETE ON sub_accounts
    FOR EACH ROW EXECUTE FUNCTION auth_changed_notify();

CREATE TRIGGER api_keys_auth_truncated AFTER TRUNCATE ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION auth_changed_notify();
CREATE TRIGGER partners_auth_truncated AFTER TRUNCATE ON partners
    FOR EACH STATEMENT EXECUTE FUNCTION auth_changed_notify();
CREATE TRIGGER sub_accounts_auth_truncated AFTER TRUNCATE ON sub_accounts
    FOR EACH STATEMENT EXECUTE FUNCTION auth_changed_notify();
