"""Reading JSON request bodies: media type, size, syntax and strict typing (D5, D17, D18).

Handlers take `request: Request` and call `read_json_body` themselves instead of letting
Litestar decode a `data` parameter. Guards run before the handler, so the order of checks
of D3 holds: scope, key flavour and plan write access come before any body error. The
bodies are still documented in OpenAPI through `json_body_operation`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import msgspec
from litestar import Request
from litestar.openapi.spec import Operation, RequestBody
from litestar.openapi.spec.media_type import OpenAPIMediaType

from app.core.errors import BODY_TOO_LARGE, MAX_BODY_BYTES, ApiError, ErrorCode, invalid_body

T = TypeVar("T")

# What a decoder raises for a body it cannot read at all: bad syntax (msgspec), bytes that
# are not UTF-8 inside a string, nesting deeper than the decoder's recursion limit.
UNREADABLE = (msgspec.DecodeError, UnicodeDecodeError, RecursionError)
_object_decoder = msgspec.json.Decoder(dict[str, Any])
_AT_PATH = re.compile(r"\s*- at `\$(?P<path>[^`]*)`$")
_MISSING = re.compile(r"^Object missing required field `(?P<name>[^`]+)`")


def unsupported_media_type() -> ApiError:
    return ApiError(415, ErrorCode.UNSUPPORTED_MEDIA_TYPE, "Content-Type must be application/json")


def payload_too_large() -> ApiError:
    return ApiError(413, ErrorCode.PAYLOAD_TOO_LARGE, BODY_TOO_LARGE)


def _is_json_media_type(content_type: str | None) -> bool:
    if not content_type:
        return False
    return content_type.split(";", 1)[0].strip().lower() == "application/json"


def _field_path(path: str) -> str:
    """`.data.minutes` or `[2].x` (msgspec's path after `$`) as `data.minutes` / `[2].x`."""
    return path[1:] if path.startswith(".") else path


def translate_error(error: msgspec.ValidationError) -> ApiError:
    """A msgspec validation error as 400 `invalid_body` naming the field."""
    text = str(error)
    path = ""
    located = _AT_PATH.search(text)
    if located:
        path = _field_path(located.group("path"))
        text = text[: located.start()]
    missing = _MISSING.match(text)
    if missing:
        field = f"{path}.{missing.group('name')}" if path else missing.group("name")
        return invalid_body(field, "is required")
    if not path:
        return invalid_body("body", "must be a JSON object" if "object" in text else text)
    return invalid_body(path, text.replace("Expected", "expected", 1))


def unreadable(error: Exception) -> ApiError:
    """400 `invalid_body` for one of UNREADABLE, saying which of them it was."""
    if isinstance(error, UnicodeDecodeError):
        return invalid_body("body", "is not valid UTF-8")
    if isinstance(error, RecursionError):
        return invalid_body("body", "is nested too deeply")
    return invalid_body("body", "is not valid JSON")


async def _read_raw(request: Request[Any, Any, Any]) -> bytes:
    """The raw body after the media-type and size checks of D5."""
    if not _is_json_media_type(request.headers.get("content-type")):
        raise unsupported_media_type()
    raw = await request.body()
    if len(raw) > MAX_BODY_BYTES:
        raise payload_too_large()
    # PostgreSQL text cannot hold NUL; refuse it here rather than fail on the way in.
    if b"\\u0000" in raw:
        raise invalid_body("body", "strings must not contain NUL characters (\\u0000)")
    return raw


async def read_json_object(request: Request[Any, Any, Any]) -> dict[str, Any]:
    """The body as a JSON object: 415 for another media type, 413 over 64 KiB, else 400."""
    raw = await _read_raw(request)
    try:
        decoded = _object_decoder.decode(raw)
    except msgspec.ValidationError:
        raise invalid_body("body", "must be a JSON object") from None
    except UNREADABLE as error:
        raise unreadable(error) from None
    return decoded


def convert_body(document: dict[str, Any], target: type[T]) -> T:
    """A decoded JSON object as `target`, strictly typed (`"60"`, `true`, `60.0` for an
    integer are errors)."""
    try:
        return msgspec.convert(document, target, strict=True)
    except msgspec.ValidationError as error:
        raise translate_error(error) from None


async def read_json_body(request: Request[Any, Any, Any], decoder: msgspec.json.Decoder[T]) -> T:
    """The body decoded by `decoder` (built with `strict=True`, the default), with the
    errors of D5: 415, 413, and 400 `invalid_body` naming the field."""
    raw = await _read_raw(request)
    try:
        return decoder.decode(raw)
    except msgspec.ValidationError as error:
        raise translate_error(error) from None
    except UNREADABLE as error:
        raise unreadable(error) from None


def inline_schema(struct: type[Any]) -> dict[str, Any]:
    """The JSON Schema of a body struct with every `$ref` into its `$defs` inlined (the
    struct's own, and those of its enums and nested structs): the operation carries no
    `$defs`, so a reference left in it would resolve to nothing."""
    document = msgspec.json.schema(struct)
    definitions = document.get("$defs", {})

    def inline(node: Any) -> Any:
        if isinstance(node, dict):
            reference = node.get("$ref")
            if isinstance(reference, str) and reference.startswith("#/$defs/"):
                siblings = {k: v for k, v in node.items() if k != "$ref"}
                return inline({**definitions[reference.rsplit("/", 1)[-1]], **siblings})
            return {k: inline(v) for k, v in node.items() if k != "$defs"}
        if isinstance(node, list):
            return [inline(value) for value in node]
        return node

    return cast(dict[str, Any], inline(document))


def json_body_operation(
    struct: type[Any], description: str, stated: Mapping[str, Mapping[str, Any]] | None = None
) -> type[Operation]:
    """An OpenAPI operation class documenting a JSON request body read by the handler.

    `stated` adds to the schemas of some of the body's members what the document states
    of them elsewhere (by member name), so that a form is written once."""
    schema = inline_schema(struct)
    for name, extra in (stated or {}).items():
        schema["properties"][name] = {**schema["properties"][name], **extra}
    body = RequestBody(
        content={"application/json": OpenAPIMediaType(schema=cast(Any, schema))},
        description=description,
        required=True,
    )

    @dataclass
    class JsonBodyOperation(Operation):
        def __post_init__(self) -> None:
            self.request_body = body

    return JsonBodyOperation
