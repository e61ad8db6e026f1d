"""The error envelope, and the one place where exceptions become API errors."""

from __future__ import annotations

import logging
from typing import Any

import asyncpg
import msgspec
from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException
from litestar.status_codes import HTTP_500_INTERNAL_SERVER_ERROR

log = logging.getLogger("telemetry.errors")


class ErrorBody(msgspec.Struct):
    code: str
    message: str


class ErrorEnvelope(msgspec.Struct):
    error: ErrorBody


class ApiError(Exception):
    """An error the API reports in its envelope with a stable `code`."""

    def __init__(
        self, status: int, code: str, message: str, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers or {}


def not_found(what: str = "resource") -> ApiError:
    return ApiError(404, "not_found", f"{what} not found")


def invalid_parameter(name: str, problem: str) -> ApiError:
    return ApiError(400, "invalid_parameter", f"{name}: {problem}")


def invalid_body(field: str, problem: str) -> ApiError:
    return ApiError(400, "invalid_body", f"{field}: {problem}")


def forbidden(code: str, message: str) -> ApiError:
    return ApiError(403, code, message)


_STATUS_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    429: "rate_limited",
    503: "unavailable",
}


def error_response(
    status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> Response[ErrorEnvelope]:
    return Response(
        ErrorEnvelope(ErrorBody(code=code, message=message)),
        status_code=status,
        headers=headers,
        media_type="application/json",
    )


def _validation_response(exc: ValidationException) -> Response[ErrorEnvelope]:
    details: list[dict[str, Any]] = exc.extra if isinstance(exc.extra, list) else []
    sources = {str(item.get("source", "")) for item in details if isinstance(item, dict)}
    problem = "; ".join(
        f"{item.get('key') or 'body'}: {item.get('message')}"
        for item in details
        if isinstance(item, dict)
    ) or str(exc.detail)
    if "body" in sources or not sources or sources == {""}:
        return error_response(400, "invalid_body", problem)
    return error_response(400, "invalid_parameter", problem)


def _nul_message(request: Request[Any, Any, Any]) -> str | None:
    """Names the (first) query parameter holding a NUL character (D5), if one does."""
    for name, value in request.query_params.multi_items():
        if "\x00" in name or "\x00" in str(value):
            return f"{name.replace(chr(0), '%00')}: must not contain NUL characters"
    return None


def handle_exception(request: Request[Any, Any, Any], exc: Exception) -> Response[ErrorEnvelope]:
    if isinstance(exc, ApiError):
        return error_response(exc.status, exc.code, exc.message, exc.headers)
    if isinstance(exc, ValidationException):
        return _validation_response(exc)
    if isinstance(exc, HTTPException):
        status = exc.status_code
        if status >= 500:
            log.exception("server error on %s %s", request.method, request.url.path)
            return error_response(status, "internal_error", "internal error")
        code = _STATUS_CODES.get(status, "error")
        message = {
            404: "no such resource",
            405: f"method {request.method} not allowed here",
            413: "request body over 64 KiB",
            415: "Content-Type must be application/json",
        }.get(status, str(exc.detail))
        if status == 400 and "body" in str(exc.detail).lower():
            code = "invalid_body"
        headers = dict(exc.headers or {})
        return error_response(status, code, message, headers)
    if isinstance(
        exc, (asyncpg.CharacterNotInRepertoireError, asyncpg.UntranslatableCharacterError)
    ):
        # Text that PostgreSQL cannot store (NUL). In a query parameter it is a 400 naming
        # the parameter; otherwise it came in a path id, which names nothing that exists (D6).
        nul_problem = _nul_message(request)
        if nul_problem is None:
            return error_response(404, "not_found", "no such resource")
        return error_response(400, "invalid_parameter", nul_problem)
    if isinstance(exc, asyncpg.QueryCanceledError):
        log.warning("statement timeout on %s %s", request.method, request.url.path)
        return error_response(503, "timeout", "the query took too long; narrow the request")
    if isinstance(exc, (OSError, asyncpg.PostgresConnectionError, asyncpg.InterfaceError)):
        log.exception("database unavailable on %s %s", request.method, request.url.path)
        # The primary is down or restarting: retry once it is back or a standby is promoted.
        return error_response(
            503, "unavailable", "service temporarily unavailable", {"Retry-After": "1"}
        )
    log.exception("unhandled error on %s %s", request.method, request.url.path)
    return error_response(HTTP_500_INTERNAL_SERVER_ERROR, "internal_error", "internal error")


_DESCRIPTIONS = {
    400: "Invalid parameter or body (`invalid_parameter`, `invalid_body`, ...)",
    401: "Missing, malformed, unknown (`unauthorized`), expired (`key_expired`) or revoked "
    "(`key_revoked`) key",
    403: "Forbidden (`insufficient_scope`, `write_not_enabled`, feature switches, ...)",
    404: "Unknown id, or a resource of another tenant (`not_found`)",
    409: "Conflict with the current state",
    413: "Body over 64 KiB (`payload_too_large`)",
    415: "Content-Type is not application/json (`unsupported_media_type`)",
    422: "A limit of the account is reached",
    429: "Per-minute limit (`rate_limited`) or daily quota (`quota_exceeded`); see Retry-After",
}


def error_responses(*statuses: int) -> dict[int, Any]:
    """OpenAPI descriptions of the error responses of a route (401 and 429 always)."""
    from litestar.openapi.datastructures import ResponseSpec

    wanted = sorted({401, 429, *statuses})
    return {
        status: ResponseSpec(
            data_container=ErrorEnvelope, description=_DESCRIPTIONS.get(status, "Error")
        )
        for status in wanted
    }
