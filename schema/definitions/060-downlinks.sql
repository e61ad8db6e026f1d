-- Downlinks (integrations.md section 3): what wakes the dispatcher (app/downlinks/dispatch.py).
-- Tables: schema/085-network-servers.sql. Re-runnable: applied on every migrate.

-- The dispatcher sleeps on this channel: a new queued item wakes it at commit.
CREATE OR REPLACE FUNCTION downlink_queued_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('downlink_queued', '');
    RETURN NULL;
END;
$$;

CREATE OR REPLACE TRIGGER downlink_queue_queued AFTER INSERT ON downlink_queue
    FOR EACH STATEMENT EXECUTE FUNCTION downlink_queued_notify();
