-- Tenancy, keys, accounts and the device directory.
-- Service ids are UUIDs chosen by the app (or the world file's author); hot telemetry
-- tables refer to devices, fields and sites by the small integer `num` instead, so their
-- rows and indexes stay narrow.

CREATE EXTENSION IF NOT EXISTS timescaledb;

CREATE TABLE partners (
    id                  uuid PRIMARY KEY,
    name                text NOT NULL,
    api_write           boolean NOT NULL DEFAULT false,
    retention_days      integer NOT NULL DEFAULT 30 CHECK (retention_days > 0),
    tier_per_minute     integer NOT NULL DEFAULT 600 CHECK (tier_per_minute > 0),
    tier_per_day        integer NOT NULL DEFAULT 100000 CHECK (tier_per_day > 0),
    networks_enabled    boolean NOT NULL DEFAULT false,
    multi_site_enabled  boolean NOT NULL DEFAULT false,
    created_at          timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE sub_accounts (
    id                  uuid PRIMARY KEY,
    partner_id          uuid NOT NULL REFERENCES partners (id),
    name                text NOT NULL,
    status              text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
    -- NULL means "inherit the partner's value".
    tier_per_minute     integer CHECK (tier_per_minute > 0),
    tier_per_day        integer CHECK (tier_per_day > 0),
    networks_enabled    boolean,
    multi_site_enabled  boolean,
    member_limit        integer NOT NULL DEFAULT 10 CHECK (member_limit >= 0),
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sub_accounts_partner ON sub_accounts (partner_id, name, id);

CREATE TABLE api_keys (
    id              uuid PRIMARY KEY,
    partner_id      uuid NOT NULL REFERENCES partners (id),
    sub_account_id  uuid REFERENCES sub_accounts (id),
    name            text NOT NULL,
    -- SHA-256 of the whole key; the key itself is never stored.
    key_hash        bytea NOT NULL UNIQUE,
    scopes          text[] NOT NULL,
    expires_at      timestamptz,
    revoked_at      timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now()
);

-- Per-key request counters for the per-minute limit and the daily quota (decisions D4).
-- `second_counts` holds 61 one-second buckets ending at `head_second` (epoch seconds);
-- counting 61 buckets guarantees at most N requests in any 60-second window.
CREATE TABLE api_key_usage (
    key_id          uuid PRIMARY KEY REFERENCES api_keys (id) ON DELETE CASCADE,
    head_second     bigint NOT NULL DEFAULT 0,
    second_counts   integer[] NOT NULL DEFAULT array_fill(0, ARRAY[61]),
    day             date NOT NULL DEFAULT '1970-01-01',
    day_count       integer NOT NULL DEFAULT 0
) WITH (fillfactor = 50);

CREATE TABLE audit_log (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at          timestamptz NOT NULL DEFAULT now(),
    partner_id  uuid REFERENCES partners (id),
    action      text NOT NULL,
    detail      jsonb NOT NULL DEFAULT '{}'
);

CREATE TABLE integrations (
    id          uuid PRIMARY KEY,
    partner_id  uuid NOT NULL REFERENCES partners (id),
    kind        text NOT NULL CHECK (kind IN ('chirpstack')),
    token_hash  bytea NOT NULL UNIQUE
);

CREATE TABLE users (
    id              uuid PRIMARY KEY,
    partner_id      uuid NOT NULL REFERENCES partners (id),
    email           text NOT NULL,
    -- lower(trim(email)): emails compare case-insensitively after trimming (D14).
    email_key       text NOT NULL,
    name            text NOT NULL,
    password_hash   text,
    status          text NOT NULL DEFAULT 'active'
                    CHECK (status IN ('active', 'pending_invite', 'suspended')),
    mfa_enabled     boolean NOT NULL DEFAULT false,
    locked_until    timestamptz,
    last_login_at   timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (partner_id, email_key)
);

CREATE TABLE user_sessions (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id     uuid NOT NULL REFERENCES users (id),
    created_at  timestamptz NOT NULL DEFAULT now(),
    ended_at    timestamptz
);
CREATE INDEX user_sessions_active ON user_sessions (user_id) WHERE ended_at IS NULL;

CREATE TABLE sites (
    id              uuid PRIMARY KEY,
    num             integer GENERATED ALWAYS AS IDENTITY UNIQUE,
    sub_account_id  uuid NOT NULL REFERENCES sub_accounts (id),
    parent_site_id  uuid REFERENCES sites (id),
    name            text NOT NULL,
    depth           smallint NOT NULL CHECK (depth BETWEEN 1 AND 3)
);
CREATE INDEX sites_sub_account ON sites (sub_account_id, name, id);
CREATE INDEX sites_parent ON sites (parent_site_id);

CREATE TABLE memberships (
    sub_account_id  uuid NOT NULL REFERENCES sub_accounts (id),
    user_id         uuid NOT NULL REFERENCES users (id),
    role            text NOT NULL DEFAULT 'subaccount_viewer'
                    CHECK (role IN ('subaccount_admin', 'subaccount_operator', 'subaccount_viewer')),
    site_id         uuid REFERENCES sites (id),
    added_at        timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (sub_account_id, user_id)
);
CREATE INDEX memberships_user ON memberships (user_id);

CREATE TABLE networks (
    id              uuid PRIMARY KEY,
    sub_account_id  uuid NOT NULL REFERENCES sub_accounts (id),
    site_id         uuid REFERENCES sites (id),
    name            text NOT NULL
);
CREATE INDEX networks_sub_account ON networks (sub_account_id, name, id);

CREATE TABLE device_profiles (
    id                  uuid PRIMARY KEY,
    num                 integer GENERATED ALWAYS AS IDENTITY UNIQUE,
    partner_id          uuid NOT NULL REFERENCES partners (id),
    name                text NOT NULL,
    retain_last_value   boolean NOT NULL DEFAULT false
);
CREATE INDEX device_profiles_partner ON device_profiles (partner_id, name, id);

-- Field num 0 is reserved for the signal quality series of every device.
CREATE TABLE profile_fields (
    id              uuid PRIMARY KEY,
    num             integer GENERATED ALWAYS AS IDENTITY (START WITH 1) UNIQUE,
    profile_id      uuid NOT NULL REFERENCES device_profiles (id),
    position        integer NOT NULL,
    identifier      text NOT NULL,
    label           text NOT NULL,
    unit            text NOT NULL DEFAULT '',
    data_type       text NOT NULL CHECK (data_type IN ('number', 'string', 'boolean', 'date', 'location')),
    kind            text NOT NULL CHECK (kind IN ('decoded', 'static', 'formula', 'mapping')),
    role            text CHECK (role IN ('battery_pct')),
    formula         text,
    source          text,
    mapping         jsonb,
    default_value   jsonb,
    UNIQUE (profile_id, identifier)
);

CREATE TABLE downlink_templates (
    id          uuid PRIMARY KEY,
    profile_id  uuid NOT NULL REFERENCES device_profiles (id),
    key         text NOT NULL,
    name        text NOT NULL,
    f_port      integer NOT NULL CHECK (f_port BETWEEN 1 AND 223),
    confirmed   boolean NOT NULL DEFAULT false,
    layout      jsonb NOT NULL DEFAULT '[]',
    sample_data jsonb NOT NULL DEFAULT '{}',
    UNIQUE (profile_id, key)
);

CREATE TABLE alert_rules (
    id          integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    profile_id  uuid NOT NULL REFERENCES device_profiles (id),
    field       text NOT NULL,
    op          text NOT NULL CHECK (op IN ('>', '>=', '<', '<=', '==', '!=')),
    value       jsonb NOT NULL,
    level       text NOT NULL CHECK (level IN ('info', 'warning', 'alert'))
);
CREATE INDEX alert_rules_profile ON alert_rules (profile_id);

CREATE TABLE gateways (
    id                  uuid PRIMARY KEY,
    num                 integer GENERATED ALWAYS AS IDENTITY UNIQUE,
    partner_id          uuid NOT NULL REFERENCES partners (id),
    sub_account_id      uuid REFERENCES sub_accounts (id),
    gateway_eui         text NOT NULL CHECK (gateway_eui ~ '^[0-9a-f]{16}$'),
    name                text NOT NULL,
    status              text NOT NULL DEFAULT 'assigned' CHECK (status IN ('inventory', 'assigned', 'archived')),
    network_id          uuid REFERENCES networks (id),
    site_id             uuid REFERENCES sites (id),
    manual_location     jsonb,
    reported_location   jsonb,
    last_seen_at        timestamptz,
    last_stats_at       timestamptz,
    UNIQUE (partner_id, gateway_eui)
);
CREATE INDEX gateways_partner ON gateways (partner_id, name, id);
CREATE INDEX gateways_sub_account ON gateways (sub_account_id, name, id);

CREATE TABLE devices (
    id                          uuid PRIMARY KEY,
    num                         integer GENERATED ALWAYS AS IDENTITY UNIQUE,
    partner_id                  uuid NOT NULL REFERENCES partners (id),
    sub_account_id              uuid REFERENCES sub_accounts (id),
    dev_eui                     text NOT NULL CHECK (dev_eui ~ '^[0-9a-f]{16}$'),
    name                        text NOT NULL,
    serial_number               text,
    status                      text NOT NULL DEFAULT 'assigned' CHECK (status IN ('inventory', 'assigned', 'archived')),
    profile_id                  uuid NOT NULL REFERENCES device_profiles (id),
    network_id                  uuid REFERENCES networks (id),
    site_id                     uuid REFERENCES sites (id),
    offline_threshold_minutes   integer NOT NULL DEFAULT 30 CHECK (offline_threshold_minutes > 0),
    downlink_rate_per_hour      integer NOT NULL DEFAULT 30 CHECK (downlink_rate_per_hour >= 0),
    downlink_expiry_seconds     integer CHECK (downlink_expiry_seconds > 0),
    manual_location             jsonb,
    manual_location_at          timestamptz,
    static_values               jsonb NOT NULL DEFAULT '{}',
    calibration                 jsonb NOT NULL DEFAULT '{}',
    created_at                  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (partner_id, dev_eui)
);
CREATE INDEX devices_partner ON devices (partner_id, name, id);
CREATE INDEX devices_sub_account ON devices (sub_account_id, name, id);
CREATE INDEX devices_profile ON devices (profile_id);
CREATE INDEX devices_network ON devices (network_id) WHERE network_id IS NOT NULL;
CREATE INDEX devices_site ON devices (site_id) WHERE site_id IS NOT NULL;

CREATE TABLE multicast_groups (
    id              uuid PRIMARY KEY,
    sub_account_id  uuid NOT NULL REFERENCES sub_accounts (id),
    name            text NOT NULL
);
CREATE INDEX multicast_groups_sub_account ON multicast_groups (sub_account_id, name, id);

CREATE TABLE multicast_members (
    group_id    uuid NOT NULL REFERENCES multicast_groups (id) ON DELETE CASCADE,
    device_id   uuid NOT NULL REFERENCES devices (id),
    PRIMARY KEY (group_id, device_id)
);
