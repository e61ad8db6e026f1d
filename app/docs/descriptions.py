"""What the OpenAPI document says beyond the code's own types: error codes by route, the
messages of each code, field and parameter descriptions, and parameter schemas.

Kept in one table so that a test can check it against the routes (every operation is
listed, every field and parameter has a description) and schemathesis against the live
answers.
"""

from __future__ import annotations

from typing import Any

from app.core.enums import DeviceStatus
from app.core.errors import BODY_TOO_LARGE, MAX_BODY_BYTES, ErrorCode
from app.devices.filters import SEARCH_MAX_LENGTH
from app.history.downsample import MAX_POINTS, METHODS, MIN_POINTS
from app.history.fill import FILL_MODES
from app.history.service import AGGS as HISTORY_AGGS
from app.members.service import EMAIL_PATTERN, MAX_EMAIL, WHITE_SPACE

# Every error code the API answers, with its status and a message it really sends.
ERROR_CODES: dict[ErrorCode, tuple[int, str]] = {
    ErrorCode.INVALID_PARAMETER: (400, "limit: must be between 1 and 200"),
    ErrorCode.INVALID_BODY: (400, "key: one of key or templateId is required"),
    ErrorCode.INVALID_SITE: (400, "siteId: no such site in this sub-account"),
    ErrorCode.INVALID_CURSOR: (400, "cursor: has expired; start again from the first page"),
    ErrorCode.WEAK_PASSWORD: (400, "password: must be 10 to 256 characters"),
    ErrorCode.UNAUTHORIZED: (401, "missing, malformed or unknown API key"),
    ErrorCode.KEY_EXPIRED: (401, "the API key has expired"),
    ErrorCode.KEY_REVOKED: (401, "the API key has been revoked"),
    ErrorCode.INVALID_CREDENTIALS: (401, "the email or the password is wrong"),
    ErrorCode.INSUFFICIENT_SCOPE: (403, "this API key lacks the scope devices:read"),
    ErrorCode.WRITE_NOT_ENABLED: (403, "the plan has no API write access"),
    ErrorCode.SUBACCOUNT_KEY_REQUIRED: (403, "this route needs a key bound to a sub-account"),
    ErrorCode.NETWORKS_DISABLED: (403, "the Networks feature is off for this account"),
    ErrorCode.MULTI_SITE_DISABLED: (403, "the multi-site feature is off for this account"),
    ErrorCode.OUTSIDE_RETENTION: (403, "the range is entirely outside the plan retention"),
    ErrorCode.ACCOUNT_LOCKED: (403, "the account is locked"),
    ErrorCode.ACCOUNT_INACTIVE: (403, "the account is not active"),
    ErrorCode.NOT_A_MEMBER: (403, "the user is not an active member here"),
    ErrorCode.NOT_FOUND: (404, "device not found"),
    ErrorCode.ALREADY_MEMBER: (409, "the user is already a member of this sub-account"),
    ErrorCode.ROLE_NOT_RESTRICTABLE: (409, "an administrator cannot be restricted to a site"),
    ErrorCode.LAST_ADMIN: (409, "the only remaining administrator cannot be removed"),
    ErrorCode.PAYLOAD_TOO_LARGE: (413, BODY_TOO_LARGE),
    ErrorCode.URI_TOO_LONG: (414, "request target over 8 KiB"),
    ErrorCode.UNSUPPORTED_MEDIA_TYPE: (415, "Content-Type must be application/json"),
    ErrorCode.MEMBER_QUOTA_REACHED: (422, "the sub-account has reached its member limit (10)"),
    ErrorCode.HEADERS_TOO_LARGE: (431, "request headers over 32 KiB"),
    ErrorCode.RATE_LIMITED: (429, "per-minute request limit exceeded"),
    ErrorCode.QUOTA_EXCEEDED: (429, "daily request quota exceeded"),
    ErrorCode.UNAVAILABLE: (503, "service temporarily unavailable"),
    ErrorCode.TIMEOUT: (503, "the query took too long; narrow the request"),
}

STATUS_TEXT = {
    400: "The request is malformed: a parameter or the body",
    401: "Not authenticated",
    403: "Authenticated, but not allowed",
    404: "No such resource in the key's scope (another tenant's is the same as none)",
    409: "Conflicts with the current state",
    413: f"Body over {MAX_BODY_BYTES // 1024} KiB "
    "(on GET and DELETE: any body the route does not read)",
    414: "The request line (path and query) is too long",
    415: "Content-Type is not application/json",
    422: "A limit of the account is reached",
    431: "The request headers are too large",
    429: "Over the per-minute rate or the daily quota; retry after `Retry-After` seconds",
    503: "The database is unreachable, the query took too long, or (export) every export "
    "slot is busy; retry after `Retry-After` seconds when it is given",
}

# Codes a route gives beyond those derived from its declaration (scope, key flavour, plan
# write access, feature switches, parameters, body, path ids): see document.py.
ROUTE_CODES: dict[str, tuple[ErrorCode, ...]] = {
    # 404 while the server does not serve the live page (TELEMETRY_LIVE_PAGE is not 1).
    "getLivePage": (ErrorCode.NOT_FOUND,),
    "getDeviceHistory": (ErrorCode.MULTI_SITE_DISABLED, ErrorCode.OUTSIDE_RETENTION),
    "exportDeviceTelemetry": (ErrorCode.OUTSIDE_RETENTION,),
    "exportFleetTelemetry": (ErrorCode.OUTSIDE_RETENTION,),
    "queryTelemetry": (
        ErrorCode.NETWORKS_DISABLED,
        ErrorCode.MULTI_SITE_DISABLED,
        ErrorCode.INVALID_CURSOR,
        ErrorCode.OUTSIDE_RETENTION,
    ),
    "sendDownlink": (ErrorCode.RATE_LIMITED,),
    "addMember": (
        ErrorCode.MULTI_SITE_DISABLED,
        ErrorCode.INVALID_SITE,
        ErrorCode.WEAK_PASSWORD,
        ErrorCode.ALREADY_MEMBER,
        ErrorCode.ROLE_NOT_RESTRICTABLE,
        ErrorCode.MEMBER_QUOTA_REACHED,
    ),
    "removeMember": (ErrorCode.LAST_ADMIN,),
    "validateMember": (
        ErrorCode.INVALID_CREDENTIALS,
        ErrorCode.ACCOUNT_LOCKED,
        ErrorCode.ACCOUNT_INACTIVE,
        ErrorCode.NOT_A_MEMBER,
    ),
}

# Descriptions of response fields by name (`Schema.field` wins over `field`).
FIELD_DOCS: dict[str, str] = {
    "id": "Service id (UUID, lowercase).",
    "name": "Display name.",
    "devEui": "DevEUI: 16 lowercase hex characters.",
    "gatewayEui": "GatewayEUI: 16 lowercase hex characters.",
    "serialNumber": "Serial number, or null.",
    "status": "State of the item (see the enum).",
    "subAccountId": "Id of the sub-account it belongs to (null for a partner's inventory).",
    "subAccountName": "Name of that sub-account.",
    "deviceProfileId": "Id of the device's profile (field catalog).",
    "networkId": "Id of its network; null when none or the Networks feature is off.",
    "siteId": "Id of its site; null when none or the multi-site feature is off.",
    "siteName": "Name of that site; null with siteId.",
    "parentSiteId": "Id of the parent site; null for a root site.",
    "online": "Assigned and heard from within the offline threshold (default 30 minutes).",
    "signalQuality": "0-100, from the RSSI and SNR of the newest uplink; null without uplinks.",
    "battery": "The newest battery reading, or null when the device never reported one.",
    "state": "`pct` (a percentage), `external` (externally powered) or `unavailable`.",
    "value": "The value (meaning depends on the object).",
    "Battery.value": "Battery percentage 0-100 when state is `pct`, else null.",
    "HistoryPoint.value": "The reading (bucketed: the aggregate); its type is the field's.",
    "at": "Time of the reading itself (RFC 3339 UTC), possibly hours old.",
    "source": "`field` (a decoded payload field with the battery role) or `status` (network "
    "status polling).",
    "lastSeenAt": "Newest message of any kind (RFC 3339 UTC), or null.",
    "lastUplinkAt": "Newest uplink (RFC 3339 UTC), or null.",
    "lastStatsAt": "Newest gateway stats message (RFC 3339 UTC), or null.",
    "location": "Position `{latitude, longitude, altitude}`, or null.",
    "latitude": "Degrees north, WGS 84.",
    "longitude": "Degrees east, WGS 84.",
    "altitude": "Metres above sea level, or null.",
    "deviceProfile": "The device's profile with its field catalog.",
    "retainLastValue": "Whether fields missing from an uplink are carried from earlier ones.",
    "fieldCount": "Number of fields in the catalog.",
    "fields": "The field catalog.",
    "identifier": "Stable field identifier, the key in `values`.",
    "label": "Human label of the field.",
    "unit": "Unit of the field's values (may be empty).",
    "dataType": "`number`, `string`, `boolean`, `date` (YYYY-MM-DD) or `location`.",
    "kind": "`decoded`, `static`, `formula` or `mapping`.",
    "role": "The field's or member's role (see the enum).",
    "ProfileField.role": "`battery_pct` for the field holding the battery percentage, else null.",
    "measurement": "What the readings measure: `gauge` (a level; numbers by default), "
    "`counter` (a running total that only grows, except when the device resets it; takes "
    "`increase`), `state` (strings and booleans; takes `duration`), or null (dates and "
    "locations).",
    "deviceId": "Id of the device.",
    "time": "Time (RFC 3339 UTC).",
    "LatestValues.time": "Time of the newest uplink; null until the device first reports.",
    "HistoryPoint.time": "Time of the reading, or the start of its bucket.",
    "filled": "With `fill`: true when the bucket is empty and its value comes from the fill "
    "rule, false otherwise.",
    "downsampled": "With `maxPoints`, when the range held more readings: how they were reduced.",
    "Downsampled.method": "`lttb` or `minmax`.",
    "Downsampled.readings": "How many readings the range holds.",
    "Downsampled.points": "How many of them the answer keeps.",
    "values": "Latest value by field identifier (static fields and formulas included).",
    "retained": "Fields carried from an earlier uplink, with the time each was last reported; "
    "absent when nothing was carried.",
    "derived": "The formula, mapping and calibrated values among `values`; absent when the "
    "profile has none.",
    "field": "The field's identifier (or `signal_quality`).",
    "resolution": "The resolution as requested (`raw`, `hourly`, `daily` or a duration).",
    "agg": "The aggregate of bucketed points; absent for raw.",
    "from": "Start of the range served (the retention cutoff when clamped).",
    "to": "End of the range (exclusive).",
    "clamped": "True when the range was cut at the retention cutoff; absent otherwise.",
    "retentionCutoff": "The retention cutoff, present with `clamped`.",
    "truncated": "Raw only: true when more than 500 readings matched; absent otherwise.",
    "points": "The points, newest first.",
    "data": "The result.",
    "SendDownlink.data": "Values overriding the template's sampleData, by field.",
    "pagination": "Where this page is in the whole list.",
    "limit": "Page size used.",
    "offset": "Items skipped.",
    "total": "Number of all matching items.",
    "error": "The error.",
    "MemberResult.error": "Why this device failed, or null.",
    "code": "Stable machine-readable error code.",
    "message": "Human-readable explanation (names the parameter or field at fault).",
    "database": "`ok`, or `unavailable` when the database cannot be reached.",
    "Health.status": "`ok`, or `unavailable` when the service cannot serve.",
    "deviceCount": "Number of member devices.",
    "ExecuteResult.deviceCount": "Assigned members the downlink was planned for.",
    "gatewayCount": "Number of member gateways.",
    "deviceOnlineCount": "Member devices online.",
    "deviceOfflineCount": "Member devices offline (online + offline = deviceCount).",
    "deviceAlertingCount": "Member devices with at least one active alert of any level.",
    "gatewayOnlineCount": "Member gateways online.",
    "gatewayOfflineCount": "Member gateways offline.",
    "devices": "Member devices.",
    "gateways": "Member gateways.",
    "gatewayId": "Id of the gateway.",
    "templateId": "Id of the downlink template.",
    "key": "Stable key of the downlink template.",
    "fPort": "LoRaWAN FPort the payload is sent on.",
    "confirmed": "Whether the device must acknowledge the downlink.",
    "sampleData": "Default field values the template sends.",
    "queueItemId": "Id of the queued item (null when not queued).",
    "byteCount": "Length of the encoded payload in bytes.",
    "expiresAt": "When the item or key expires (RFC 3339 UTC), or null for never.",
    "enqueuedCount": "Devices the downlink was queued for.",
    "rateLimitedCount": "Devices over their hourly downlink limit.",
    "failedCount": "Devices whose profile cannot take the template or data.",
    "perDevice": "The outcome for each assigned member.",
    "createdAt": "Creation time (RFC 3339 UTC).",
    "updatedAt": "Last change (RFC 3339 UTC).",
    "userId": "Id of the user.",
    "email": "Email address (compared case-insensitively).",
    "mfaEnabled": "Whether the user has MFA enabled in the service.",
    "lastLoginAt": "Last sign-in (RFC 3339 UTC), or null if never.",
    "addedAt": "When the membership was added (RFC 3339 UTC).",
    "existing": "True when the email already had an account (its password is unchanged).",
    "removed": "Always true: the membership is gone.",
    "valid": "Always true on success.",
    "memberships": "Active memberships in the partner's sub-accounts (none is picked).",
    "keyId": "Id of the API key.",
    "keyName": "Name of the API key.",
    "boundTo": "`partner` or `sub_account`.",
    "partnerId": "Id of the partner.",
    "partnerName": "Name of the partner.",
    "scopes": "Scopes of the key.",
    "apiWrite": "Whether the plan allows API writes (downlinks, multicast).",
    "retentionDays": "Days of telemetry history the plan serves.",
    "features": "Feature switches for the key's account.",
    "networks": "Networks feature on.",
    "multiSite": "Multi-site feature on.",
    "rateLimit": "The key's per-minute limit and what is left of it.",
    "perMinute": "Requests allowed in any 60 seconds.",
    "remaining": "Requests left in the current window.",
    "tz": "The IANA zone the buckets follow, as requested; absent without `tz`.",
    "DownlinkItem.status": "Delivery state: `queued`, `submitted`, `sent`, `acknowledged`, "
    "`nacked`, `failed` or `expired`.",
    "DownlinkItem.expiresAt": "When the item expires unsent (RFC 3339 UTC), or null.",
    "DownlinkItem.createdAt": "When the API accepted it (RFC 3339 UTC).",
    "submittedAt": "When ChirpStack took it (RFC 3339 UTC), or null.",
    "sentAt": "When the network transmitted it (`txack`; RFC 3339 UTC), or null.",
    "fCntDown": "The downlink frame counter it was sent with, or null before `sent`.",
    "acknowledgedAt": "When the device acknowledged or nacked it (RFC 3339 UTC), or null.",
    "DownlinkItem.error": "Why it failed (ChirpStack's refusal or the network's log), or null.",
}

# Patterns of response fields by name (the service writes them canonically, D6).
FIELD_PATTERNS: dict[str, str] = {
    "devEui": "^[0-9a-f]{16}$",
    "gatewayEui": "^[0-9a-f]{16}$",
}

# Descriptions of parameters whose handlers do not carry one.
PARAM_DOCS: dict[str, str] = {
    "device_id": "The device: service id (UUID) or DevEUI (any case, `:`/`-` allowed).",
    "device_ref": "The device: service id (UUID) or DevEUI (any case, `:`/`-` allowed).",
    "gateway_id": "The gateway: service id (UUID) or GatewayEUI (any case, `:`/`-` allowed).",
    "group_id": "Id of the multicast group.",
    "network_id": "Id of the network.",
    "profile_id": "Id of the device profile.",
    "site_id": "Id of the site.",
    "sub_account_id": "Id of the sub-account.",
    "user_id": "Id of the user.",
    "subAccountId": "Only items of this sub-account (unknown or foreign: an empty list).",
    "deviceProfileId": "Only devices of this profile (unknown or foreign: an empty list).",
    "search": "Case-insensitive substring of the name, serial number or DevEUI.",
    "queue_item_id": "The `queueItemId` of the 202 that queued it (another device's: 404).",
}

UUID = {"type": "string", "format": "uuid"}
EUI_PATTERN = "^[0-9A-Fa-f]{2}([:-]?[0-9A-Fa-f]{2}){7}$"
ID_OR_EUI = {
    "type": "string",
    "anyOf": [{"format": "uuid"}, {"pattern": EUI_PATTERN}],
    "examples": ["70b3d57ed0000001"],
}
ID_OR_NONE = {"type": "string", "anyOf": [{"format": "uuid"}, {"enum": ["none"]}]}
BOOLEAN_TEXT = {"type": "string", "enum": ["true", "false"]}


def _one_or_more(parts: list[str]) -> str:
    """A pattern of `parts` in their order, each optional, at least one present."""
    starts = [
        part + "".join(f"({later})?" for later in parts[i + 1 :]) for i, part in enumerate(parts)
    ]
    return "(" + "|".join(starts) + ")"


# An ISO 8601 duration with at least one component (`P` and `PT` alone are none). The
# digits are bounded so that `now` minus or plus the longest such duration (about 1,700
# years) stays within the years 1 to 9999 a timestamp can hold.
_DATE_PART = _one_or_more([r"\d{1,3}Y", r"\d{1,3}M", r"\d{1,4}W", r"\d{1,5}D"])
_TIME_PART = "T" + _one_or_more([r"\d{1,6}H", r"\d{1,7}M", r"\d{1,9}S"])
DURATION = f"P({_DATE_PART}({_TIME_PART})?|{_TIME_PART})"
RELATIVE_TIME = f"^now([+-]{DURATION})?$"
# Epoch milliseconds (Grafana's ${__from} and ${__to}), app/core/api.py.
EPOCH_MILLISECONDS = r"^[0-9]{10,14}$"
TIMESTAMP = {
    "type": "string",
    "anyOf": [
        {"format": "date-time"},
        {"pattern": RELATIVE_TIME},
        {"pattern": EPOCH_MILLISECONDS, "description": "Epoch milliseconds."},
    ],
}
RESOLUTION_PATTERN = f"^(raw|hourly|daily|{DURATION})$"

# One name of a comma-separated list: not empty once white space is trimmed, and no NUL.
_LISTED = f"[^,\\x00]*[^,\\x00{WHITE_SPACE}][^,\\x00]*"

# Schemas of query and path parameters by name (the handlers take text and parse it
# themselves, so that errors come in the order of D3 and name the parameter).
PARAM_SCHEMAS: dict[str, dict[str, Any]] = {
    "device_id": ID_OR_EUI,
    "device_ref": ID_OR_EUI,
    "gateway_id": {**ID_OR_EUI, "examples": ["0016c001ff000001"]},
    # Examples are ids of the demo world (demo/world.py).
    "group_id": {**UUID, "examples": ["80154a70-cbc3-56cf-b545-0221cc665529"]},
    "network_id": {**UUID, "examples": ["5a47805b-527d-574e-ab06-1d160f002c5d"]},
    "profile_id": {**UUID, "examples": ["703ce2dc-9595-57a1-9d78-7e9fc88a1acf"]},
    "site_id": {**UUID, "examples": ["d2ac7285-d3ad-531f-801a-da7c7ea56149"]},
    "sub_account_id": {**UUID, "examples": ["8e8725c6-c1ea-56a7-b299-a3649b0cd230"]},
    "user_id": {**UUID, "examples": ["d616b6ec-da3d-515c-baea-26b5285960d2"]},
    "subAccountId": UUID,
    "deviceProfileId": UUID,
    "networkId": ID_OR_NONE,
    "siteId": ID_OR_NONE,
    "status": {"type": "string", "enum": [*(status.value for status in DeviceStatus), "all"]},
    "online": BOOLEAN_TEXT,
    "includeDescendants": BOOLEAN_TEXT,
    "search": {"type": "string", "maxLength": SEARCH_MAX_LENGTH},
    "field": {"type": "string", "minLength": 1, "examples": ["temperature", "signal_quality"]},
    "from": {**TIMESTAMP, "examples": ["now-P1D", "2026-11-22T00:00:00Z"]},
    "to": {**TIMESTAMP, "examples": ["now", "2026-11-23T00:00:00Z"]},
    "resolution": {
        "type": "string",
        "pattern": RESOLUTION_PATTERN,
        "default": "raw",
        "examples": ["raw", "hourly", "PT15M"],
    },
    "agg": {
        "type": "string",
        "enum": ["avg", "min", "max", "sum", "count", "last"],
        "default": "avg",
    },
    "event": {
        "type": "string",
        "examples": ["up", "status", "join", "location"],
    },
    "fields": {
        "type": "string",
        "pattern": f"^{_LISTED}(,{_LISTED})*$",
        "examples": ["temperature,humidity", "signal_quality"],
    },
    "format": {"type": "string", "enum": ["csv", "ndjson", "parquet"], "default": "csv"},
    # Chart-ready series (analytics.md section 3, app/history/chart.py).
    "fill": {"type": "string", "enum": list(FILL_MODES), "default": "none"},
    "fillMaxGap": {"type": "string", "pattern": f"^{DURATION}$", "examples": ["PT6H"]},
    "maxPoints": {"type": "integer", "minimum": MIN_POINTS, "maximum": MAX_POINTS},
    "downsample": {"type": "string", "enum": list(METHODS), "default": "lttb"},
    "state": {"type": "string", "minLength": 1, "examples": ["open", "true"]},
    "layout": {"type": "string", "enum": ["wide", "long"], "default": "wide"},
    "tz": {
        "type": "string",
        "pattern": "^[A-Za-z0-9_+-]+(/[A-Za-z0-9_+-]+)*$",
        "examples": ["Europe/Berlin", "Asia/Kolkata"],
    },
    "queue_item_id": {**UUID, "examples": ["b927f775-cefd-4d48-b0bb-4f1e1f1dbd20"]},
}
# A string the service takes holds no NUL character (PostgreSQL text cannot): D5's 400.
NO_NUL = "^[^\\x00]*$"

# Rules of body fields, by name, added to their schemas where a body declares them.
BODY_FIELDS: dict[str, dict[str, Any]] = {
    # Surrounding white space is trimmed before the check (app/members/service.py).
    "email": {
        "pattern": f"^[{WHITE_SPACE}]*{EMAIL_PATTERN}[{WHITE_SPACE}]*$",
        "maxLength": MAX_EMAIL,
        "allOf": [{"pattern": NO_NUL}],
    },
}

REQUIRED_PARAMS = {
    "getDeviceHistory": ("field", "from", "to"),
    "exportDeviceTelemetry": ("from", "to"),
    "exportFleetTelemetry": ("from", "to"),
}

# What the service does with a parameter that its JSON Schema cannot state (rules tying
# two parameters together, or a value to the tenant's data): each is added to the
# parameter's description. tests/integration/schemathesis_hooks.py accepts exactly these
# 400s for requests the schemas allow.
_TO_AFTER_FROM = "Must be later than `from`, else 400 `invalid_parameter`."
# The names of the tz database the server has (app/history/zones.py).
_KNOWN_ZONE = "A name the tz database does not have is 400 `invalid_parameter`."
_RESOLUTION_RULE = (
    "A duration is PT1S to P100Y, in years and months or in weeks, days and time, not "
    "both; with `from` and `to` it makes at most 10,000 buckets. Else 400 "
    "`invalid_parameter`."
)
_AGG_BUCKETED = (
    "Only with a bucketed `resolution`: with `raw` (the default) any `agg` is 400 "
    "`invalid_parameter`."
)
PARAM_RULES: dict[str, dict[str, str]] = {
    "getDeviceHistory": {
        "to": _TO_AFTER_FROM,
        "resolution": _RESOLUTION_RULE,
        "agg": _AGG_BUCKETED,
        "field": "A field the device's profile does not have is 400 `invalid_parameter`.",
        "tz": _KNOWN_ZONE,
    },
    "exportDeviceTelemetry": {
        "to": _TO_AFTER_FROM,
        "resolution": _RESOLUTION_RULE,
        "agg": _AGG_BUCKETED,
        "fields": "A field the device's profile does not have, or one listed twice, is 400 "
        "`invalid_parameter`.",
        "tz": _KNOWN_ZONE,
    },
    "exportFleetTelemetry": {
        "to": _TO_AFTER_FROM,
        "resolution": _RESOLUTION_RULE,
        "agg": _AGG_BUCKETED,
        "fields": "A field no selected device's profile has, or one listed twice, is 400 "
        "`invalid_parameter`.",
        "tz": _KNOWN_ZONE,
    },
    "ingestChirpStack": {
        "event": "Absent, or a type the service does not read: ignored (204). The body is "
        "ChirpStack's event of this type; one that is not is 400 `invalid_body`.",
    },
}
HISTORY_SITE = {"type": "string", "format": "uuid"}
# The live routes' `fields`: identifiers (app/live/selection.py), white space around each.
_IDENTIFIER_ITEM = f"[{WHITE_SPACE}]*[A-Za-z_][A-Za-z0-9_]*[{WHITE_SPACE}]*"
LIVE_FIELDS = {
    "type": "string",
    "pattern": f"^{_IDENTIFIER_ITEM}(,{_IDENTIFIER_ITEM})*$",
    "examples": ["temperature,humidity"],
}
# Where an operation's parameter differs from the parameter of that name elsewhere.
OPERATION_PARAM_SCHEMAS: dict[str, dict[str, dict[str, Any]]] = {
    "getFleetLatest": {"fields": LIVE_FIELDS},
    "streamLatest": {"fields": LIVE_FIELDS},
    "getDeviceHistory": {
        "siteId": HISTORY_SITE,
        # /history has the counter, time-weighted and state aggregates too (section 3).
        "agg": {"type": "string", "enum": list(HISTORY_AGGS), "default": "avg"},
    },
    # So do the bucketed exports (analytics.md section 2: equal to POST /query's).
    "exportDeviceTelemetry": {
        "agg": {"type": "string", "enum": list(HISTORY_AGGS), "default": "avg"},
    },
    "exportFleetTelemetry": {
        "agg": {"type": "string", "enum": list(HISTORY_AGGS), "default": "avg"},
    },
}
