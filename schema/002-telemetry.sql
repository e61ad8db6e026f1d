-- Telemetry: live device state, raw readings, rollups, alerts, ingest de-duplication and
-- the downlink queue. Readings and rollups refer to devices, fields and sites by `num`.

-- One row per device that has reported anything. `latest_body` is the JSON `data` of
-- GET /devices/{id}/latest, computed at ingest, and `latest_etag` its validator, so that
-- the hot read is one indexed lookup. `field_state` keeps, per field identifier, the
-- newest stored value and its time, which is what retain-last-value carries forward.
CREATE TABLE device_state (
    device_num          integer PRIMARY KEY REFERENCES devices (num) ON DELETE CASCADE,
    last_seen_at        timestamptz,
    last_uplink_at      timestamptz,
    signal_quality      smallint,
    battery             jsonb,
    reported_location   jsonb,
    reported_location_at timestamptz,
    field_state         jsonb NOT NULL DEFAULT '{}',
    latest_body         bytea,
    latest_etag         text
);

-- Numeric readings: the narrow hot path. field_num 0 is the signal quality series.
-- site_num is the site the device was at when the reading arrived (0 = none).
CREATE TABLE readings_num (
    device_num  integer NOT NULL,
    field_num   integer NOT NULL,
    time        timestamptz NOT NULL,
    value       double precision NOT NULL,
    site_num    integer NOT NULL DEFAULT 0
);
SELECT create_hypertable('readings_num', 'time', chunk_time_interval => INTERVAL '14 days',
                         create_default_indexes => false);
CREATE INDEX readings_num_series ON readings_num (device_num, field_num, time DESC);

-- Strings, booleans, dates and locations, as JSON values.
CREATE TABLE readings_other (
    device_num  integer NOT NULL,
    field_num   integer NOT NULL,
    time        timestamptz NOT NULL,
    value       jsonb NOT NULL,
    site_num    integer NOT NULL DEFAULT 0
);
SELECT create_hypertable('readings_other', 'time', chunk_time_interval => INTERVAL '30 days',
                         create_default_indexes => false);
CREATE INDEX readings_other_series ON readings_other (device_num, field_num, time DESC);

-- Rollups of our own (the Apache edition has no continuous aggregates). Each row holds
-- mergeable partials, so hourly rows merge into any whole-hour bucket and daily rows into
-- weeks and months. Maintained in the same transaction as the readings they summarise.
CREATE TABLE rollup_hour_num (
    device_num  integer NOT NULL,
    field_num   integer NOT NULL,
    site_num    integer NOT NULL,
    bucket      timestamptz NOT NULL,
    n           integer NOT NULL,
    sum         double precision NOT NULL,
    min         double precision NOT NULL,
    max         double precision NOT NULL,
    last_time   timestamptz NOT NULL,
    last_value  double precision NOT NULL,
    PRIMARY KEY (device_num, field_num, bucket, site_num)
);
SELECT create_hypertable('rollup_hour_num', 'bucket', chunk_time_interval => INTERVAL '90 days',
                         create_default_indexes => false);

CREATE TABLE rollup_day_num (LIKE rollup_hour_num INCLUDING ALL);
SELECT create_hypertable('rollup_day_num', 'bucket', chunk_time_interval => INTERVAL '365 days',
                         create_default_indexes => false);

CREATE TABLE rollup_hour_other (
    device_num  integer NOT NULL,
    field_num   integer NOT NULL,
    site_num    integer NOT NULL,
    bucket      timestamptz NOT NULL,
    n           integer NOT NULL,
    last_time   timestamptz NOT NULL,
    last_value  jsonb NOT NULL,
    PRIMARY KEY (device_num, field_num, bucket, site_num)
);
SELECT create_hypertable('rollup_hour_other', 'bucket', chunk_time_interval => INTERVAL '90 days',
                         create_default_indexes => false);

CREATE TABLE rollup_day_other (LIKE rollup_hour_other INCLUDING ALL);
SELECT create_hypertable('rollup_day_other', 'bucket', chunk_time_interval => INTERVAL '365 days',
                         create_default_indexes => false);

-- Active alerts: a row exists while the newest reading of the rule's field breaks it.
CREATE TABLE device_alerts (
    device_num  integer NOT NULL REFERENCES devices (num) ON DELETE CASCADE,
    rule_id     integer NOT NULL REFERENCES alert_rules (id) ON DELETE CASCADE,
    level       text NOT NULL,
    since       timestamptz NOT NULL,
    PRIMARY KEY (device_num, rule_id)
);

-- Network servers retry; one deduplicationId is stored once per partner.
CREATE TABLE ingest_dedup (
    partner_id          uuid NOT NULL,
    deduplication_id    text NOT NULL,
    received_at         timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (partner_id, deduplication_id)
);

CREATE TABLE downlink_queue (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    device_num  integer NOT NULL REFERENCES devices (num) ON DELETE CASCADE,
    template_id uuid NOT NULL REFERENCES downlink_templates (id),
    f_port      integer NOT NULL,
    payload     bytea NOT NULL,
    confirmed   boolean NOT NULL,
    status      text NOT NULL DEFAULT 'queued',
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz
);
CREATE INDEX downlink_queue_device_time ON downlink_queue (device_num, created_at DESC);
