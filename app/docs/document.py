"""The OpenAPI document as served: Litestar's, completed into the whole contract.

Litestar derives paths, parameters and schemas from the handlers and structs. This adds
what the types cannot say, from the routes' own declarations (`opt`: scope, key flavour,
plan write access, feature switches) and the tables of app/docs/descriptions.py:
every error response with its codes and real messages in our envelope, the rate-limit,
`Retry-After`, `WWW-Authenticate`, `ETag` and `X-Request-ID` headers, `If-None-Match`,
parameter schemas (enums, formats, patterns, required), descriptions of every field,
examples from the demo world, schema names without module paths, no key on the public
routes, the ingest routes (ChirpStack, The Things Stack) in their own tag with their own
token scheme, and the export routes' files in their three media types.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from typing import Any

from litestar import Litestar
from litestar.routes import HTTPRoute

from app.core.body import inline_schema
from app.core.errors import MAX_BODY_BYTES, ErrorCode
from app.docs import descriptions
from app.docs.examples import BODY_EXAMPLES, RESPONSE_EXAMPLES
from app.docs.live import complete_live_document, complete_live_operation
from app.docs.webhooks import add_webhooks
from app.ingest.tts_messages import ApplicationUp

ENVELOPE = {"$ref": "#/components/schemas/ErrorEnvelope"}
_GENERIC = re.compile(r"^(Single|Listing)_(.+)_$")
_FEATURE_CODES = {
    "networks": ErrorCode.NETWORKS_DISABLED,
    "multi_site": ErrorCode.MULTI_SITE_DISABLED,
}
# Statuses app/server/face.py can answer before the application (and its request id).
FACE_STATUSES = {404, 413, 414, 431}
INGEST_OPERATIONS = {
    "ingestChirpStack": "A ChirpStack v4 integration event, JSON marshaler; its shape depends "
    f"on `event` (ChirpStack's own documentation). Up to {MAX_BODY_BYTES // 1024} KiB.",
    "ingestTheThingsStack": "A The Things Stack webhook message (JSON): an uplink, a "
    "join-accept or a solved location, by `end_device_ids.dev_eui`. "
    f"Up to {MAX_BODY_BYTES // 1024} KiB.",
}


def _timestamps(node: Any, names: frozenset[str]) -> Any:
    """`node` with the string schemas of the properties `names` given the `date-time`
    format: msgspec writes a datetime as a bare string, but its decoder takes RFC 3339
    only."""
    if isinstance(node, dict):
        for name, prop in node.get("properties", {}).items():
            if name in names:
                for alternative in prop.get("anyOf", [prop]):
                    if alternative.get("type") == "string":
                        alternative["format"] = "date-time"
        for value in node.values():
            _timestamps(value, names)
    elif isinstance(node, list):
        for value in node:
            _timestamps(value, names)
    return node


# The Things Stack's message as the service reads it (app/ingest/tts_messages.py). A ChirpStack
# body's shape depends on the `event` parameter, which a JSON Schema cannot follow.
INGEST_SCHEMAS: dict[str, dict[str, Any]] = {
    "ingestChirpStack": {"type": "object"},
    "ingestTheThingsStack": _timestamps(inline_schema(ApplicationUp), frozenset({"received_at"})),
}
EXPORT_OPERATIONS = {"exportDeviceTelemetry", "exportFleetTelemetry"}
PUBLIC_OPERATIONS = {"getHealth", "getIndex", "getApiIndex", "getOpenApiDocument", "getDocs"}

# On every authenticated answer (app/auth/errors.py rate_headers).
RATE_LIMIT_HEADERS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "RateLimit-Policy", "RateLimit")
HEADERS: dict[str, dict[str, Any]] = {
    "X-RateLimit-Limit": {
        "description": "Requests the key may make in any 60 seconds (D4).",
        "schema": {"type": "integer", "minimum": 0},
    },
    "X-RateLimit-Remaining": {
        "description": "Requests left in the current 60-second window after this one.",
        "schema": {"type": "integer", "minimum": 0},
    },
    "RateLimit-Policy": {
        "description": "The key's limits as the IETF field (draft-ietf-httpapi-ratelimit-"
        'headers): `"minute";q=N;w=60, "day";q=M;w=86400`, the per-minute window (D4) '
        "and the daily quota.",
        "schema": {
            "type": "string",
            "pattern": '^"minute";q=[0-9]+;w=60, "day";q=[0-9]+;w=86400$',
            "examples": ['"minute";q=600;w=60, "day";q=100000;w=86400'],
        },
    },
    "RateLimit": {
        "description": "What is left of each policy of RateLimit-Policy after this request "
        "(`r`), and on a 429 the seconds until the refusing one has room again (`t`).",
        "schema": {
            "type": "string",
            "pattern": '^"minute";r=[0-9]+(;t=[0-9]+)?, "day";r=[0-9]+(;t=[0-9]+)?$',
            "examples": ['"minute";r=599, "day";r=99412'],
        },
    },
    "Retry-After": {
        "description": "Whole seconds to wait before retrying (at least 1).",
        "schema": {"type": "integer", "minimum": 1},
    },
    "WWW-Authenticate": {
        "description": '`Bearer`: the credentials to send (`Bearer realm="members"` when '
        "a member's email and password were refused).",
        "schema": {"type": "string", "pattern": '^Bearer( realm="[a-z]+")?$'},
    },
    "ETag": {
        "description": "Strong validator of the latest values; send it in If-None-Match.",
        "schema": {"type": "string", "pattern": '^"[0-9a-f]{32}"$'},
    },
    "Cache-Control": {
        "description": "`private, no-cache`: revalidate with If-None-Match each time.",
        "schema": {"type": "string", "enum": ["private, no-cache"]},
    },
    "X-Request-ID": {
        "description": "The request's id: the client's `X-Request-ID` when it is 1 to 128 "
        "characters of letters, digits and `-._:`, else a generated one. It is in every "
        "log line of the request.",
        "schema": {"type": "string", "pattern": "^[A-Za-z0-9\\-._:]{1,128}$"},
    },
}


def _ref(name: str, required: bool = False) -> dict[str, Any]:
    """A header of a response; `required` when every such response carries it (checked
    against live answers by schemathesis)."""
    if required:
        return {**HEADERS[name], "required": True}
    return {"$ref": f"#/components/headers/{name}"}


def _rename_schemas(document: dict[str, Any]) -> None:
    """`Listing_app.devices.structs.Device_` -> `DeviceList`, `Single_..._` -> `...Response`."""
    schemas = document["components"]["schemas"]
    renames: dict[str, str] = {}
    for name in list(schemas):
        match = _GENERIC.match(name)
        if match is None:
            continue
        inner = [part.rsplit(".", 1)[-1] for part in match.group(2).split("_") if part]
        suffix = "List" if match.group(1) == "Listing" else "Response"
        renames[name] = "Or".join(inner) + suffix
    for old, new in renames.items():
        schemas[new] = schemas.pop(old)
        schemas[new]["title"] = new

    for node in referring_nodes(document):
        ref = node["$ref"]
        if ref.startswith("#/components/schemas/"):
            target = ref.rsplit("/", 1)[-1]
            if target in renames:
                node["$ref"] = f"#/components/schemas/{renames[target]}"


def referring_nodes(node: Any) -> Iterator[dict[str, Any]]:
    """Every object below `node` (itself included) whose `$ref` is a string, depth first;
    the document's checks walk its references with it too (tests/integration/test_openapi.py)."""
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            yield node
        for value in node.values():
            yield from referring_nodes(value)
    elif isinstance(node, list):
        for value in node:
            yield from referring_nodes(value)


def _describe_fields(document: dict[str, Any]) -> None:
    for schema_name, schema in document["components"]["schemas"].items():
        for name, prop in (schema.get("properties") or {}).items():
            pattern = descriptions.FIELD_PATTERNS.get(name)
            if pattern is not None and prop.get("type") == "string":
                prop["pattern"] = pattern
            if _has_description(prop):
                continue
            text = descriptions.FIELD_DOCS.get(
                f"{schema_name}.{name}"
            ) or descriptions.FIELD_DOCS.get(name)
            if text:
                prop["description"] = text


def _has_description(prop: dict[str, Any]) -> bool:
    if prop.get("description"):
        return True
    return any(
        isinstance(alt, dict) and alt.get("description")
        for alt in prop.get("anyOf", []) + prop.get("oneOf", [])
    )


def _handler_options(app: Litestar) -> dict[str, dict[str, Any]]:
    """Each operation's merged `opt` (controller and handler), by operationId."""
    options: dict[str, dict[str, Any]] = {}
    for route in app.routes:
        if not isinstance(route, HTTPRoute):
            continue
        for handler in route.route_handlers:
            operation_id = handler.operation_id
            if isinstance(operation_id, str):
                options[operation_id] = dict(handler.opt)
    return options


def _codes(operation: dict[str, Any], opt: dict[str, Any], public: bool) -> list[ErrorCode]:
    """Every error code the operation can answer, in the order of decisions D3."""
    operation_id = operation["operationId"]
    # The server's face (app/server/face.py) answers these on every route before routing.
    codes: list[ErrorCode] = [
        ErrorCode.PAYLOAD_TOO_LARGE,
        ErrorCode.URI_TOO_LONG,
        ErrorCode.HEADERS_TOO_LARGE,
    ]
    if not public:
        codes += [
            ErrorCode.UNAUTHORIZED,
            ErrorCode.KEY_EXPIRED,
            ErrorCode.KEY_REVOKED,
            ErrorCode.RATE_LIMITED,
            ErrorCode.QUOTA_EXCEEDED,
        ]
        if opt.get("scope"):
            codes.append(ErrorCode.INSUFFICIENT_SCOPE)
        if opt.get("subaccount_key"):
            codes.append(ErrorCode.SUBACCOUNT_KEY_REQUIRED)
        if opt.get("write"):
            codes.append(ErrorCode.WRITE_NOT_ENABLED)
        for feature, _ in opt.get("features", ()):
            codes.append(_FEATURE_CODES[feature])
    parameters = operation.get("parameters", [])
    if any(p["in"] == "query" for p in parameters):
        codes.append(ErrorCode.INVALID_PARAMETER)
    if "requestBody" in operation:
        codes += [
            ErrorCode.INVALID_BODY,
            ErrorCode.PAYLOAD_TOO_LARGE,
            ErrorCode.UNSUPPORTED_MEDIA_TYPE,
        ]
    if any(p["in"] == "path" for p in parameters):
        codes.append(ErrorCode.NOT_FOUND)
    codes += descriptions.ROUTE_CODES.get(operation_id, ())
    if operation_id != "getHealth":
        codes += [ErrorCode.UNAVAILABLE, ErrorCode.TIMEOUT]
    seen: dict[ErrorCode, None] = {}
    for code in codes:
        seen.setdefault(code, None)
    return list(seen)


def _error_responses(codes: list[ErrorCode], public: bool) -> dict[str, Any]:
    by_status: dict[int, list[ErrorCode]] = {}
    for code in codes:
        by_status.setdefault(descriptions.ERROR_CODES[code][0], []).append(code)
    responses: dict[str, Any] = {}
    for status, named in sorted(by_status.items()):
        # The face's refusals come before the request has an id.
        headers: dict[str, Any] = {
            "X-Request-ID": _ref("X-Request-ID", required=status not in FACE_STATUSES)
        }
        if status == 401:
            headers["WWW-Authenticate"] = _ref("WWW-Authenticate")
        if status == 429:
            headers["Retry-After"] = _ref("Retry-After", required=True)
        if status == 503:
            headers["Retry-After"] = _ref("Retry-After")
        if not public and status not in (401, 503):
            for name in RATE_LIMIT_HEADERS:
                headers[name] = _ref(name)
        listed = ", ".join(f"`{code}`" for code in named)
        responses[str(status)] = {
            "description": f"{descriptions.STATUS_TEXT[status]}: {listed}.",
            "headers": headers,
            "content": {
                "application/json": {
                    "schema": {
                        "allOf": [ENVELOPE],
                        "properties": {
                            "error": {
                                "properties": {
                                    "code": {"type": "string", "enum": [c.value for c in named]}
                                }
                            }
                        },
                    },
                    "examples": {
                        code.value: {
                            "summary": code.value,
                            "value": {
                                "error": {
                                    "code": code.value,
                                    "message": descriptions.ERROR_CODES[code][1],
                                }
                            },
                        }
                        for code in named
                    },
                }
            },
        }
    return responses


# A string schema with one of these allows no NUL already (a format, a pattern, a list).
_CONSTRAINED = {"pattern", "format", "enum", "anyOf", "oneOf"}


def _refuse_nul(node: Any) -> None:
    """Adds descriptions.NO_NUL to every free-text string schema under `node`."""
    if isinstance(node, dict):
        if node.get("type") == "string" and not _CONSTRAINED & node.keys():
            node["pattern"] = descriptions.NO_NUL
        for value in node.values():
            _refuse_nul(value)
    elif isinstance(node, list):
        for value in node:
            _refuse_nul(value)


def _complete_parameters(operation: dict[str, Any]) -> None:
    required = descriptions.REQUIRED_PARAMS.get(operation["operationId"], ())
    rules = descriptions.PARAM_RULES.get(operation["operationId"], {})
    for parameter in operation.get("parameters", []):
        name = parameter["name"]
        schema = descriptions.PARAM_SCHEMAS.get(name)
        schema = descriptions.OPERATION_PARAM_SCHEMAS.get(operation["operationId"], {}).get(
            name, schema
        )
        if schema is not None:
            kept = {k: v for k, v in parameter.get("schema", {}).items() if k in ("description",)}
            parameter["schema"] = {**copy.deepcopy(schema), **kept}
        if not parameter.get("description"):
            parameter["description"] = descriptions.PARAM_DOCS.get(name, "")
        if name in rules:
            parameter["description"] = f"{parameter['description']} {rules[name]}".strip()
        # The ingest routes ignore an event type they do not read, whatever its characters.
        if parameter["in"] == "query" and operation["operationId"] not in INGEST_OPERATIONS:
            _refuse_nul(parameter["schema"])
        if name in required:
            parameter["required"] = True
        for noise in ("deprecated", "allowEmptyValue", "allowReserved"):
            if parameter.get(noise) is False:
                del parameter[noise]


def _success_headers(operation: dict[str, Any], public: bool) -> None:
    for status, response in operation.get("responses", {}).items():
        if not status.startswith("2"):
            continue
        headers = response.setdefault("headers", {})
        headers["X-Request-ID"] = _ref("X-Request-ID", required=True)
        if not public:
            for name in RATE_LIMIT_HEADERS:
                headers[name] = _ref(name, required=True)


def _latest(operation: dict[str, Any]) -> None:
    operation.setdefault("parameters", []).append(
        {
            "name": "If-None-Match",
            "in": "header",
            "required": False,
            "description": "ETags of an earlier answer (a list, `*`, or weak `W/` tags): "
            "304 with an empty body while nothing changed.",
            "schema": {"type": "string", "examples": ['"9e107d9d372bb6826bd81d3542a419d6"']},
        }
    )
    ok = operation["responses"]["200"]
    ok["headers"]["ETag"] = _ref("ETag", required=True)
    ok["headers"]["Cache-Control"] = _ref("Cache-Control", required=True)
    operation["responses"]["304"] = {
        "description": "Not modified: the If-None-Match tag is current; empty body. Counts "
        "toward the rate limit.",
        "headers": {
            name: _ref(name, required=True)
            for name in (
                "ETag",
                "Cache-Control",
                *RATE_LIMIT_HEADERS,
                "X-Request-ID",
            )
        },
    }


def _ingest(operation: dict[str, Any]) -> None:
    operation["tags"] = ["Ingest"]
    operation["security"] = [{"integrationToken": []}]
    operation["requestBody"] = {
        "required": True,
        "description": INGEST_OPERATIONS[operation["operationId"]],
        "content": {
            "application/json": {"schema": copy.deepcopy(INGEST_SCHEMAS[operation["operationId"]])}
        },
    }
    codes = [
        ErrorCode.URI_TOO_LONG,
        ErrorCode.HEADERS_TOO_LARGE,
        ErrorCode.UNAUTHORIZED,
        ErrorCode.INVALID_BODY,
        ErrorCode.PAYLOAD_TOO_LARGE,
        ErrorCode.NOT_FOUND,
        ErrorCode.UNAVAILABLE,
        ErrorCode.TIMEOUT,
    ]
    operation["responses"] = {
        "204": {
            "description": "Stored (after commit), a repeated event (ChirpStack's "
            "`deduplicationId`, The Things Stack's `as:up:` correlation id), or an event type "
            "the service ignores.",
            "headers": {"X-Request-ID": _ref("X-Request-ID", required=True)},
        },
        **_error_responses(codes, public=True),
    }


def _export(operation: dict[str, Any]) -> None:
    """A file, not JSON: its three media types, its name and no caching."""
    ok = operation["responses"]["200"]
    ok["description"] = (
        "The file, streamed (chunked; no Content-Length). Its media type follows `format`."
    )
    ok["headers"]["Content-Disposition"] = {
        "description": '`attachment; filename="..."`: the DevEUI (or `fleet`), the range '
        "and the format's extension.",
        "schema": {"type": "string", "pattern": '^attachment; filename="[^"]+"$'},
        "required": True,
    }
    ok["headers"]["Cache-Control"] = {
        "description": "`no-store`: an export is never cached.",
        "schema": {"type": "string", "enum": ["no-store"]},
        "required": True,
    }
    examples = RESPONSE_EXAMPLES.get(operation["operationId"], {})
    ok["content"] = {
        "text/csv": {
            "schema": {
                "type": "string",
                "description": "`format=csv`: RFC 4180, UTF-8, a header row (the media type's "
                "`header=present` parameter says so).",
            },
        },
        "application/x-ndjson": {
            "schema": {
                "type": "string",
                "description": "`format=ndjson`: one JSON object per reading time (wide) or "
                "per reading (long), one per line.",
            },
        },
        "application/vnd.apache.parquet": {
            "schema": {
                "type": "string",
                "format": "binary",
                "description": "`format=parquet`: one Parquet file with typed columns "
                "(timestamp UTC, float64, string, bool).",
            },
        },
    }
    for media, example in examples.items():
        ok["content"][media]["example"] = example


def _body_rules(body: dict[str, Any]) -> None:
    """NUL refused in every string of a JSON body, stated in its schema where a string is
    declared and in its description for the members a client may add (they are ignored,
    but their strings are checked too); the body fields' own rules (descriptions.BODY_FIELDS)."""
    schema = body["content"]["application/json"]["schema"]
    for name, rule in descriptions.BODY_FIELDS.items():
        declared = schema.get("properties", {}).get(name)
        if declared is not None:
            declared.update(copy.deepcopy(rule))
    _refuse_nul(schema)
    body["description"] = (
        f"{body.get('description', '')} No string in the body, in a member the service "
        "ignores too, may hold a NUL character (`\\u0000`), and an integer is written "
        "without a fraction (`60`, not `60.0`): else 400 `invalid_body`."
    ).strip()


def _template_reference(media: dict[str, Any]) -> None:
    """A downlink body names its template by `key` or `templateId` (both is fine when they
    name the same template), not null; an id that is no UUID names no template."""
    schema = media["schema"]
    schema["anyOf"] = [
        {"required": [name], "properties": {name: {"type": "string"}}}
        for name in ("key", "templateId")
    ]
    for alternative in schema["properties"]["templateId"]["anyOf"]:
        if alternative.get("type") == "string":
            alternative["format"] = "uuid"


def _success_examples(operation: dict[str, Any]) -> None:
    example = RESPONSE_EXAMPLES.get(operation["operationId"])
    if example is None or operation["operationId"] in EXPORT_OPERATIONS:
        return
    zoned = RESPONSE_EXAMPLES.get("getDeviceHistoryInZone")
    for status, response in operation["responses"].items():
        if status.startswith("2") and "content" in response:
            for media in response["content"].values():
                if operation["operationId"] == "getDeviceHistory" and zoned is not None:
                    media["examples"] = {
                        "hourly": {"summary": "Hourly averages (UTC)", "value": example},
                        "dailyInZone": {"summary": "Daily maxima, Berlin days", "value": zoned},
                    }
                else:
                    media["example"] = example
    body = BODY_EXAMPLES.get(operation["operationId"])
    if body is not None and "requestBody" in operation:
        media = operation["requestBody"]["content"]["application/json"]
        media["examples"] = body


def complete(document: dict[str, Any], app: Litestar) -> dict[str, Any]:
    """Returns the completed document (the argument is changed in place)."""
    options = _handler_options(app)
    document["components"]["headers"] = HEADERS
    document["components"]["securitySchemes"]["integrationToken"] = {
        "type": "http",
        "scheme": "bearer",
        "description": "The token of a network-server integration (`integrations[].token` of "
        "the world file), never an API key.",
    }
    document["components"]["securitySchemes"]["apiKey"]["description"] = (
        "An API key, `svc_live_` and at least 32 URL-safe characters, created in the app."
    )
    document["servers"] = [{"url": "/", "description": "This service"}]
    complete_live_document(document)
    for path_item in document["paths"].values():
        for method, operation in path_item.items():
            if method not in ("get", "post", "put", "patch", "delete"):
                continue
            operation_id = operation["operationId"]
            _complete_parameters(operation)
            if operation_id in INGEST_OPERATIONS:
                _ingest(operation)
                continue
            opt = options.get(operation_id, {})
            public = bool(opt.get("public")) or operation_id in PUBLIC_OPERATIONS
            if public:
                operation["security"] = []
            errors = {k: v for k, v in operation["responses"].items() if not k.startswith("2")}
            for status in errors:
                del operation["responses"][status]
            _success_headers(operation, public)
            operation["responses"].update(_error_responses(_codes(operation, opt, public), public))
            if operation_id == "getDeviceLatest":
                _latest(operation)
            complete_live_operation(operation)
            if operation_id in EXPORT_OPERATIONS:
                _export(operation)
            if operation_id in ("sendDownlink", "executeMulticastGroup"):
                _template_reference(operation["requestBody"]["content"]["application/json"])
            if "requestBody" in operation:
                _body_rules(operation["requestBody"])
            if operation_id == "getHealth":
                ok = operation["responses"]["200"]
                operation["responses"]["503"] = {
                    "description": "The database cannot be reached (`database: unavailable`).",
                    "headers": ok["headers"],
                    "content": copy.deepcopy(ok["content"]),
                }
                operation["responses"]["503"]["content"]["application/json"]["example"] = {
                    "data": {"status": "unavailable", "database": "unavailable"}
                }
            if operation_id == "getOpenApiDocument":
                operation["responses"]["200"]["content"]["application/json"]["schema"] = {
                    "type": "object",
                    "description": "An OpenAPI 3.1 document.",
                    "required": ["openapi", "info", "paths"],
                }
            _success_examples(operation)
    _rename_schemas(document)
    _describe_fields(document)
    document["tags"] = list(TAGS)
    add_webhooks(document)
    return document


TAGS = [
    {"name": "Service", "description": "Index, health and the key's identity."},
    {"name": "Devices", "description": "Devices, their latest values and history."},
    {"name": "Gateways", "description": "Gateways."},
    {"name": "Device profiles", "description": "Field catalogs of classes of devices."},
    {"name": "Networks", "description": "Groupings with health rollups (Networks feature)."},
    {"name": "Sites", "description": "Physical locations (multi-site feature)."},
    {"name": "Sub-accounts", "description": "The partner's customers."},
    {"name": "Downlinks", "description": "Commands queued to devices and their delivery."},
    {
        "name": "Export",
        "description": "Every reading of a range as one streamed CSV, NDJSON or Parquet file.",
    },
    {"name": "Multicast groups", "description": "Groups of devices and their execution."},
    {"name": "Members", "description": "Users of the key's sub-account."},
    {
        "name": "Ingest",
        "description": "Network servers pushing events in; their own bearer token, never an "
        "API key; outside /api/v1.",
    },
]
