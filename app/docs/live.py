"""The OpenAPI document's account of the live routes (analytics.md sections 1 and 4):
long polls on the two latest routes, fleet latest's conditional answers, the event
stream's media type, example and resume header, and the live page. Called by `complete`
(app/docs/document.py) for the whole document and for each operation."""

from __future__ import annotations

import copy
import json
from typing import Any

from app.docs.examples import RESPONSE_EXAMPLES
from app.notify.hub import BACKLOG_LIMIT

LATEST_OPERATIONS = ("getDeviceLatest", "getFleetLatest")

PREFERENCE_APPLIED = {
    "description": "`wait=N`: the long poll was applied, held at most N seconds (60 at most); "
    "on every answer to a request with `If-None-Match` and a readable `Prefer: wait=N`.",
    "schema": {"type": "string", "pattern": "^wait=[0-9]+$"},
}


def _optional_header(name: str, description: str, example: str) -> dict[str, Any]:
    """The OpenAPI parameter of an optional request header that takes a string."""
    return {
        "name": name,
        "in": "header",
        "required": False,
        "description": description,
        "schema": {"type": "string", "examples": [example]},
    }


PREFER = _optional_header(
    "Prefer",
    "`wait=N` (whole seconds, 1 to 60; more is taken as 60) with "
    "`If-None-Match`: an unchanged answer is held until it changes (200 with the new body, "
    "within 1 s of the commit) or N seconds pass (304). Counts once. Anything else, `wait=0` "
    "included, cannot be read and is ignored (RFC 7240).",
    "wait=30",
)
IF_NONE_MATCH = _optional_header(
    "If-None-Match",
    "The ETag of an earlier answer (a list, `*`, or weak `W/` tags): 304 with "
    "an empty body while nothing in the answer changed.",
    '"9e107d9d372bb6826bd81d3542a419d6"',
)
LAST_EVENT_ID = _optional_header(
    "Last-Event-ID",
    "The `id:` of the last event received, sent back when reconnecting: only "
    "what changed after it is sent when it lies within the last 5 minutes; otherwise "
    "`event: reset` and the whole first send.",
    "1795785956656155",
)
STREAM_DESCRIPTION = (
    "Server-Sent Events. `event: latest` (data: a latest values object, as fleet latest "
    "gives it) first for every selected device, then on each change; `event: removed` "
    '(data: `{"deviceId": "..."}`) when a device leaves what the key may see; '
    "`event: reset` (data: `{}`) before a fresh first send; a comment line (`: keep-alive`) "
    "at least every 15 s. Every event has an `id:`. A client that stops reading is "
    f"disconnected once {BACKLOG_LIMIT} changes for it wait untaken."
)


def _stream_example() -> str:
    latest = RESPONSE_EXAMPLES.get("getDeviceLatest", {}).get("data", {})
    return (
        f"event: latest\nid: 1795785956656155\ndata: {json.dumps(latest)}\n\n"
        ": keep-alive\n\n"
        f'event: removed\nid: 1795785999002731\ndata: {{"deviceId": "{latest.get("deviceId")}"}}'
        "\n\n"
    )


def complete_live_document(document: dict[str, Any]) -> None:
    document["components"]["headers"]["Preference-Applied"] = PREFERENCE_APPLIED


def complete_live_operation(operation: dict[str, Any]) -> None:
    operation_id = operation["operationId"]
    responses = operation["responses"]
    if operation_id in LATEST_OPERATIONS:
        parameters = operation.setdefault("parameters", [])
        names = {parameter["name"] for parameter in parameters}
        if "If-None-Match" not in names:
            parameters.append(IF_NONE_MATCH)
        parameters.append(PREFER)
        ok = responses["200"]
        ok["headers"].setdefault("ETag", {"$ref": "#/components/headers/ETag"})
        ok["headers"].setdefault("Cache-Control", {"$ref": "#/components/headers/Cache-Control"})
        ok["headers"]["Preference-Applied"] = {"$ref": "#/components/headers/Preference-Applied"}
        if "304" not in responses:
            responses["304"] = {
                "description": "Not modified: the If-None-Match tag is current; empty body. "
                "Counts toward the rate limit (a held request once).",
                "headers": copy.deepcopy(
                    {name: ok["headers"][name] for name in ok["headers"] if name != "ETag"}
                ),
            }
            responses["304"]["headers"]["ETag"] = {"$ref": "#/components/headers/ETag"}
        responses["304"]["headers"]["Preference-Applied"] = {
            "$ref": "#/components/headers/Preference-Applied"
        }
    elif operation_id == "streamLatest":
        operation.setdefault("parameters", []).append(LAST_EVENT_ID)
        responses["200"]["content"] = {
            "text/event-stream": {
                "schema": {"type": "string", "description": STREAM_DESCRIPTION},
                "example": _stream_example(),
            }
        }
