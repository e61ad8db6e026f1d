-- Network servers both ways (integrations.md sections 2 and 3): The Things Stack as a
-- second kind of integration, ChirpStack's MQTT broker and gRPC API per integration, and
-- the delivery states of a queued downlink.

ALTER TABLE integrations DROP CONSTRAINT IF EXISTS integrations_kind_check;
ALTER TABLE integrations ADD CONSTRAINT integrations_kind_check
    CHECK (kind IN ('chirpstack', 'tts'));

-- MQTT: where the consumer connects, what it subscribes to and under which client id its
-- persistent session lives. gRPC: where downlinks are enqueued; the API token is kept in
-- clear because it must be sent (it is never printed).
ALTER TABLE integrations
    ADD COLUMN mqtt_url        text,
    ADD COLUMN mqtt_topic      text,
    ADD COLUMN mqtt_client_id  text,
    ADD COLUMN grpc_url        text,
    ADD COLUMN grpc_api_token  text,
    ADD COLUMN grpc_tls        boolean NOT NULL DEFAULT false,
    ADD CONSTRAINT integrations_mqtt_complete
        CHECK ((mqtt_url IS NULL) = (mqtt_client_id IS NULL)),
    ADD CONSTRAINT integrations_grpc_complete
        CHECK ((grpc_url IS NULL) = (grpc_api_token IS NULL));

-- queued -> submitted -> sent -> acknowledged | nacked; failed; expired.
-- network_id: ChirpStack's queue item id. in_doubt: an Enqueue call was started and its
-- outcome is not known yet, so the next attempt must first look for the item in
-- ChirpStack's queue (GetQueue) instead of enqueueing it again.
ALTER TABLE downlink_queue
    ADD COLUMN network_id       text,
    ADD COLUMN submitted_at     timestamptz,
    ADD COLUMN sent_at          timestamptz,
    ADD COLUMN acknowledged_at  timestamptz,
    ADD COLUMN f_cnt_down       bigint,
    ADD COLUMN error            text,
    ADD COLUMN attempts         integer NOT NULL DEFAULT 0,
    ADD COLUMN next_attempt_at  timestamptz,
    ADD COLUMN in_doubt_since   timestamptz,
    ADD CONSTRAINT downlink_queue_status_check CHECK (status IN (
        'queued', 'submitted', 'sent', 'acknowledged', 'nacked', 'failed', 'expired'));

CREATE INDEX downlink_queue_waiting ON downlink_queue (device_num, created_at, id)
    WHERE status = 'queued';
CREATE INDEX downlink_queue_open_expiry ON downlink_queue (expires_at)
    WHERE status IN ('queued', 'submitted') AND expires_at IS NOT NULL;
CREATE UNIQUE INDEX downlink_queue_network_id ON downlink_queue (network_id)
    WHERE network_id IS NOT NULL;

-- txack / ack / log events naming a queue item id we do not know (yet): the network can
-- report on an item before the dispatcher has committed the id Enqueue returned. They are
-- applied when the id is stored, and cleaned up after a day.
CREATE TABLE downlink_early_events (
    network_id   text NOT NULL,
    kind         text NOT NULL CHECK (kind IN ('txack', 'ack', 'log')),
    partner_id   uuid NOT NULL,
    device_num   integer NOT NULL,
    at           timestamptz NOT NULL,
    f_cnt_down   bigint,
    acknowledged boolean,
    code         text,
    received_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (network_id, kind)
);
CREATE INDEX downlink_early_events_device ON downlink_early_events (device_num, received_at);

-- The dispatcher sleeps on this channel: a new queued item wakes it at commit.
CREATE FUNCTION downlink_queued_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('downlink_queued', '');
    RETURN NULL;
END;
$$;
CREATE TRIGGER downlink_queue_queued AFTER INSERT ON downlink_queue
    FOR EACH STATEMENT EXECUTE FUNCTION downlink_queued_notify();
