"""Schemathesis hooks of tests/integration/test_schemathesis.py (loaded by the schemathesis
process from this file, through SCHEMATHESIS_HOOKS, with the repository on its path).

`positive_data_acceptance` (a request the document allows must not be refused) with the
refusals that no JSON Schema can state and that the document states in words instead:

- rules that tie two parameters together: `to` after `from`, `agg` only with a bucketed
  `resolution`, a ChirpStack body of the `event` parameter's type;
- rules on the tenant's data: a field of the device's profile, a downlink template of
  the device's profile and the fields of that template, a site of the key's
  sub-account, a new account's name and password; and on the server's: a zone of
  its tz database (an enum of its 600 names would bloat the document and make
  schemathesis's coverage phase try each of them);
- a NUL character in a member of a body that the schema does not declare (schemas allow
  any such member, and a JSON Schema cannot refuse a character at any depth of them).

A generated request meets them only by chance (a random `from` is after a random `to`
half the time; a random field name is no device's field). These 400s, with exactly these
messages, are the ones the document describes (app/docs/descriptions.py `PARAM_RULES`, and the
downlink operations' descriptions); any other refusal of a schema-valid request still
fails the run.
"""

from __future__ import annotations

import json
import re

import schemathesis
from schemathesis.specs.openapi.checks import negative_data_rejection, positive_data_acceptance

from app.core.chirpstack_events import DECODERS
from app.downlinks.events import EVENTS as DOWNLINK_EVENTS

# The ChirpStack event types the service reads; it answers 204 to any other at once.
READ_EVENTS = frozenset(DECODERS) | frozenset(DOWNLINK_EVENTS)

_TO_AFTER_FROM = r"from: must be before to"
_AGG_BUCKETED = r"agg: applies to bucketed resolutions only, not raw"
_KNOWN_ZONE = r"tz: must be an IANA time zone name such as Europe/Berlin"
_PROFILE_FIELD = r"field: '.*' is not a field of the device's profile; valid identifiers: .*"
_EXPORT_FIELD = r"fields: ('.*' is not a field of the devices|lists '.*' more than once)"
_TEMPLATE = (
    r"(key|templateId): no such downlink template for the device's profile"
    r"|templateId: names a different template than key"
)
_TEMPLATE_FIELD = r"data\..*: is not a field of the template"
_RESOLUTION = (
    r"resolution: (must be at least PT1S|must be at most 100 years \(P100Y\)"
    r"|a duration in months or years cannot also have days or a time part"
    r"|the range holds more than 10000 buckets)"
)
# The rules of analytics.md section 3 that tie parameters together or depend on the
# field's type and measurement (app/history/chart.py, fill.py; the route's description).
_CHART_RULES = (
    r"(fill|fillMaxGap): applies (to bucketed resolutions only, not raw|only with fill=previous)",
    r"fill: zero applies only with agg count or sum, not \w+",
    r"fill: linear needs a numeric aggregate",
    r"maxPoints: applies to (resolution=raw only|number fields, not \w+)",
    r"downsample: applies only with maxPoints",
    r"state: (applies only with agg=duration|agg=duration needs state=<value> \(the state "
    r"timed\)|a boolean field's state is true or false)",
    r"agg: \w+ applies to (counter|number|state) fields only; .*",
)
# A new account's name and password (an existing account's are not read).
_NEW_ACCOUNT = (
    r"(name|password): is required for a new account"
    r"|the password (needs at least|may have at most) \d+ characters"
)
# Rules of every JSON body: no NUL anywhere, in members the schema does not declare too;
# an integer written without a fraction (JSON Schema's data model has no difference
# between `1` and `1.0`, so no schema can say it).
BODY_REFUSALS = re.compile(
    r"body: strings must not contain NUL characters \(\\u0000\)"
    r"|[A-Za-z.]+: expected `int( \| null)?`, got `float`"
)

DOCUMENTED_REFUSALS: dict[str, re.Pattern[str]] = {
    label: re.compile("|".join(messages), re.DOTALL)
    for label, messages in {
        "GET /api/v1/devices/{device_ref}/history": (
            _TO_AFTER_FROM,
            _AGG_BUCKETED,
            _RESOLUTION,
            _PROFILE_FIELD,
            _KNOWN_ZONE,
            *_CHART_RULES,
        ),
        # Ids or filters, not both (the parameter's description says so).
        "GET /api/v1/latest": (r"deviceIds: cannot be combined with the device filters \(\w+\)",),
        "GET /api/v1/devices/{device_ref}/export": (
            _TO_AFTER_FROM,
            _AGG_BUCKETED,
            _RESOLUTION,
            _EXPORT_FIELD,
            _KNOWN_ZONE,
            *_CHART_RULES,
        ),
        "GET /api/v1/export": (
            _TO_AFTER_FROM,
            _AGG_BUCKETED,
            _RESOLUTION,
            _EXPORT_FIELD,
            _KNOWN_ZONE,
            *_CHART_RULES,
        ),
        # The rules the query's description states that tie members of its body together
        # or depend on the selected devices (app/query/controller.py QUERY_DESCRIPTION).
        "POST /api/v1/query": (
            _TO_AFTER_FROM,
            _AGG_BUCKETED,
            _RESOLUTION,
            _KNOWN_ZONE,
            r"devices: give ids or filters, not both \(ids and [A-Za-z]+\)",
            r"devices: the filters select more than 1,000 devices per query",
            r"devices\.[A-Za-z]+: .*",
            r"fields: lists '.*' more than once",
            r"fields: '.*' is not a field of any selected device",
            r"fields: the query holds more than 20,000 series .*",
            r"agg\.[A-Za-z0-9_]+: .*",
            r"agg: '.*' is a [a-z]+ field of a device: count or last only",
            r"agg: (\w+ applies to (counter|number|state) fields only; .*"
            r"|duration names the state it times: duration:<value>"
            r"|a boolean field's state is true or false)",
            r"(fill|fillMaxGap|maxPoints|downsample): .*",
            # A cursor is one the service gave for this key and query, not any string.
            r"cursor: .*",
        ),
        "POST /api/v1/devices/{device_id}/downlinks": (_TEMPLATE, _TEMPLATE_FIELD),
        # A group whose members have no template of this key or id at all.
        "POST /api/v1/multicast-groups/{group_id}/execute": (_TEMPLATE, _TEMPLATE_FIELD),
        "POST /api/v1/members": (_NEW_ACCOUNT, r"siteId: no such site in this sub-account"),
        "POST /ingest/chirpstack": (r"body: not a ChirpStack [a-z]+ event: .*",),
    }.items()
}


def _message(content: bytes) -> str | None:
    try:
        message = json.loads(content)["error"]["message"]
    except (ValueError, KeyError, TypeError):
        return None
    return message if isinstance(message, str) else None


def _documented(label: str, status: int, content: bytes) -> bool:
    message = _message(content) if status == 400 else None
    if message is None:
        return False
    if label.split(" ", 1)[0] in ("POST", "PUT", "PATCH") and BODY_REFUSALS.fullmatch(message):
        return True
    rules = DOCUMENTED_REFUSALS.get(label)
    return rules is not None and rules.fullmatch(message) is not None


@schemathesis.check
def positive_data_acceptance_beyond_documented_rules(
    ctx: schemathesis.CheckContext, response: schemathesis.Response, case: schemathesis.Case
) -> bool | None:
    """Schemathesis's own check, except for a documented refusal above."""
    if _documented(case.operation.label, response.status_code, response.content):
        return None
    return positive_data_acceptance(ctx, response, case)


@schemathesis.check
def negative_data_rejection_beyond_ignored_events(
    ctx: schemathesis.CheckContext, response: schemathesis.Response, case: schemathesis.Case
) -> bool | None:
    """Schemathesis's own check, except for the documented 204 of a ChirpStack event the
    service does not read: its body and other parameters are not looked at, as ChirpStack
    posts every event type of an integration."""
    if (
        case.operation.label == "POST /ingest/chirpstack"
        and response.status_code == 204
        and (case.query or {}).get("event") not in READ_EVENTS
    ):
        return None
    return negative_data_rejection(ctx, response, case)
