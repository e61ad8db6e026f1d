-- Webhooks (integrations.md section 1): endpoints, the outbox of events, one message per
-- (event, endpoint) with its delivery state, and the attempt log. Events are written by
-- webhook_emit (schema/definitions/080-webhooks.sql) in the transaction of the change they
-- report; app/webhooks/dispatcher.py delivers the messages.

-- An endpoint of a partner (sub_account_id NULL: every sub-account's events) or of one
-- sub-account. The secret is kept so that it can sign (never hashed, never logged);
-- during a rotation the previous secret signs too, until previous_until.
CREATE TABLE webhook_endpoints (
    id                  uuid PRIMARY KEY,
    partner_id          uuid NOT NULL REFERENCES partners (id),
    sub_account_id      uuid REFERENCES sub_accounts (id),
    url                 text NOT NULL,
    event_types         text[],
    device_ids          uuid[],
    secret              text NOT NULL,
    previous_secret     text,
    previous_until      timestamptz,
    state               text NOT NULL DEFAULT 'enabled'
                        CHECK (state IN ('enabled', 'disabled', 'failing', 'auto_disabled')),
    -- Start of the current run of failed attempts (NULL after a success).
    failing_since       timestamptz,
    created_at          timestamptz NOT NULL DEFAULT now()
);
-- The cheap check of every emission: does this partner have an endpoint that takes events?
CREATE INDEX webhook_endpoints_partner ON webhook_endpoints (partner_id)
    WHERE state <> 'disabled';

-- The outbox. `body` is the exact JSON sent and signed, built once at emission.
CREATE TABLE webhook_events (
    num             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id              text NOT NULL UNIQUE,
    type            text NOT NULL,
    partner_id      uuid NOT NULL,
    device_num      integer,
    created_at      timestamptz NOT NULL DEFAULT now(),
    body            text NOT NULL
);
CREATE INDEX webhook_events_device ON webhook_events (device_num) WHERE device_num IS NOT NULL;
CREATE INDEX webhook_events_created ON webhook_events (created_at);

-- One message per event and endpoint it was fanned out to. `next_at` is when it is due;
-- while an attempt runs it is pushed forward by a lease, so a crashed dispatcher's
-- messages come due again instead of being lost.
CREATE TABLE webhook_messages (
    event_num       bigint NOT NULL REFERENCES webhook_events (num) ON DELETE CASCADE,
    endpoint_id     uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    state           text NOT NULL DEFAULT 'pending'
                    CHECK (state IN ('pending', 'delivered', 'failed')),
    attempts        integer NOT NULL DEFAULT 0,
    next_at         timestamptz NOT NULL DEFAULT now(),
    created_at      timestamptz NOT NULL DEFAULT now(),
    finished_at     timestamptz,
    PRIMARY KEY (endpoint_id, event_num)
) WITH (fillfactor = 80);
CREATE INDEX webhook_messages_due ON webhook_messages (endpoint_id, next_at)
    WHERE state = 'pending';
CREATE INDEX webhook_messages_event ON webhook_messages (event_num);
CREATE INDEX webhook_messages_finished ON webhook_messages (endpoint_id, finished_at)
    WHERE state <> 'pending';

-- Every attempt: time, HTTP status or error class, latency, the first KiB of the answer.
CREATE TABLE webhook_attempts (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_num       bigint NOT NULL REFERENCES webhook_events (num) ON DELETE CASCADE,
    endpoint_id     uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    at              timestamptz NOT NULL,
    status          integer,
    error           text,
    latency_ms      integer NOT NULL,
    response        text,
    ok              boolean NOT NULL
);
CREATE INDEX webhook_attempts_endpoint ON webhook_attempts (endpoint_id, at DESC);
CREATE INDEX webhook_attempts_at ON webhook_attempts (at);

-- The per-device `sequence` of events (from 1). Deleted when the device leaves for
-- inventory, with everything else of its telemetry (D16).
CREATE TABLE webhook_sequences (
    device_num      integer PRIMARY KEY REFERENCES devices (num) ON DELETE CASCADE,
    last            bigint NOT NULL
);

-- The offline ticker's watermark: device.offline has been emitted for every device whose
-- online_until is at or before `last_tick`. One row.
CREATE TABLE webhook_ticker (
    one             boolean PRIMARY KEY DEFAULT true CHECK (one),
    last_tick       timestamptz NOT NULL
);
INSERT INTO webhook_ticker (last_tick) VALUES (now());

-- The ticker's window (last_tick, now] over online_until is a range scan of this index,
-- never a walk of every device.
CREATE INDEX device_presence_online_until ON device_presence (online_until)
    WHERE online_until IS NOT NULL;
