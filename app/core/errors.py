"""The error envelope, and the one place where exceptions become API errors."""

from __future__ import annotations

import logging
from enum import StrEnum
from typing import Any

import asyncpg
import msgspec
from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException
from litestar.status_codes import HTTP_500_INTERNAL_SERVER_ERROR

log = logging.getLogger("telemetry.errors")

# The largest request body accepted, on every route and method, and what a 413 says of it
# (not configurable: the API's bodies are small). The server's outer layer (app/core/face.py),
# the body reader (app/core/body.py) and Litestar's own limit (app/main.py) all use it.
MAX_BODY_BYTES = 64 * 1024
BODY_TOO_LARGE = f"request body over {MAX_BODY_BYTES // 1024} KiB"


class ErrorCode(StrEnum):
    """The closed set of `error.code` values (api-spec 1.4 and the routes' own)."""

    # Generic, by HTTP status.
    BAD_REQUEST = "bad_request"
    INVALID_PARAMETER = "invalid_parameter"
    INVALID_BODY = "invalid_body"
    UNAUTHORIZED = "unauthorized"
    FORBIDDEN = "forbidden"
    NOT_FOUND = "not_found"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    CONFLICT = "conflict"
    PAYLOAD_TOO_LARGE = "payload_too_large"
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
    # Requests the HTTP server refuses before routing (app/server/face.py).
    URI_TOO_LONG = "uri_too_long"
    HEADERS_TOO_LARGE = "headers_too_large"
    RATE_LIMITED = "rate_limited"
    UNAVAILABLE = "unavailable"
    TIMEOUT = "timeout"
    INTERNAL_ERROR = "internal_error"
    ERROR = "error"
    # Keys and limits (D2, D4).
    KEY_EXPIRED = "key_expired"
    KEY_REVOKED = "key_revoked"
    QUOTA_EXCEEDED = "quota_exceeded"
    # Access (D3, D17).
    INSUFFICIENT_SCOPE = "insufficient_scope"
    SUBACCOUNT_KEY_REQUIRED = "subaccount_key_required"
    WRITE_NOT_ENABLED = "write_not_enabled"
    NETWORKS_DISABLED = "networks_disabled"
    MULTI_SITE_DISABLED = "multi_site_disabled"
    OUTSIDE_RETENTION = "outside_retention"
    # POST /query (analytics.md section 2): a cursor this service did not sign for this
    # key and query, or one that expired.
    INVALID_CURSOR = "invalid_cursor"
    # Members (api-spec 4.8).
    ALREADY_MEMBER = "already_member"
    MEMBER_QUOTA_REACHED = "member_quota_reached"
    WEAK_PASSWORD = "weak_password"  # noqa: S105 (an error code, not a password)
    INVALID_SITE = "invalid_site"
    ROLE_NOT_RESTRICTABLE = "role_not_restrictable"
    LAST_ADMIN = "last_admin"
    INVALID_CREDENTIALS = "invalid_credentials"
    ACCOUNT_LOCKED = "account_locked"
    ACCOUNT_INACTIVE = "account_inactive"
    NOT_A_MEMBER = "not_a_member"


class ErrorBody(msgspec.Struct):
    code: str
    message: str


class ErrorEnvelope(msgspec.Struct):
    error: ErrorBody


class ApiError(Exception):
    """An error the API reports in its envelope with a stable `code`."""

    def __init__(
        self, status: int, code: ErrorCode, message: str, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers or {}


def not_found(what: str = "resource") -> ApiError:
    return ApiError(404, ErrorCode.NOT_FOUND, f"{what} not found")


def invalid_parameter(name: str, problem: str) -> ApiError:
    return ApiError(400, ErrorCode.INVALID_PARAMETER, f"{name}: {problem}")


def invalid_body(field: str, problem: str) -> ApiError:
    return ApiError(400, ErrorCode.INVALID_BODY, f"{field}: {problem}")


def forbidden(code: ErrorCode, message: str) -> ApiError:
    return ApiError(403, code, message)


_STATUS_CODES = {
    400: ErrorCode.BAD_REQUEST,
    401: ErrorCode.UNAUTHORIZED,
    403: ErrorCode.FORBIDDEN,
    404: ErrorCode.NOT_FOUND,
    405: ErrorCode.METHOD_NOT_ALLOWED,
    409: ErrorCode.CONFLICT,
    413: ErrorCode.PAYLOAD_TOO_LARGE,
    414: ErrorCode.URI_TOO_LONG,
    415: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
    429: ErrorCode.RATE_LIMITED,
    431: ErrorCode.HEADERS_TOO_LARGE,
    503: ErrorCode.UNAVAILABLE,
}


# Connection-class failures: the database cannot be reached, is starting or stopping
# (57P0x: CannotConnectNow, AdminShutdown, CrashShutdown), refuses more connections, or a
# bounded wait ran out (TimeoutError, app/core/db.py); InterfaceError and
# InternalClientError cover a connection left unusable by one of these ("connection
# closed", "cannot switch to state 11; another operation (2) is in progress" when a
# connection broken mid-statement is used again).
UNAVAILABLE_ERRORS: tuple[type[BaseException], ...] = (
    OSError,
    TimeoutError,
    asyncpg.PostgresConnectionError,
    asyncpg.InterfaceError,
    asyncpg.exceptions.InternalClientError,
    asyncpg.exceptions.OperatorInterventionError,
    asyncpg.exceptions.TooManyConnectionsError,
)
UNAVAILABLE_RETRY_AFTER_S = 2


def is_unavailable(exc: BaseException) -> bool:
    """True for a failure to reach the database (503), not a fault of the request."""
    if isinstance(exc, asyncpg.QueryCanceledError):
        return False  # 57014: a statement over statement_timeout, answered `timeout`
    return isinstance(exc, UNAVAILABLE_ERRORS)


def unavailable_response() -> Response[ErrorEnvelope]:
    return error_response(
        503,
        ErrorCode.UNAVAILABLE,
        "the database is unavailable; retry shortly",
        {"Retry-After": str(UNAVAILABLE_RETRY_AFTER_S)},
    )


def error_response(
    status: int, code: ErrorCode, message: str, headers: dict[str, str] | None = None
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
        return error_response(400, ErrorCode.INVALID_BODY, problem)
    return error_response(400, ErrorCode.INVALID_PARAMETER, problem)


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
            return error_response(status, ErrorCode.INTERNAL_ERROR, "internal error")
        code = _STATUS_CODES.get(status, ErrorCode.ERROR)
        message = {
            404: "no such resource",
            405: f"method {request.method} not allowed here",
            413: BODY_TOO_LARGE,
            415: "Content-Type must be application/json",
        }.get(status, str(exc.detail))
        if status == 400 and "body" in str(exc.detail).lower():
            code = ErrorCode.INVALID_BODY
        headers = dict(exc.headers or {})
        return error_response(status, code, message, headers)
    if isinstance(
        exc, (asyncpg.CharacterNotInRepertoireError, asyncpg.UntranslatableCharacterError)
    ):
        # Text that PostgreSQL cannot store (NUL). In a query parameter it is a 400 naming
        # the parameter; otherwise it came in a path id, which names nothing that exists (D6).
        nul_problem = _nul_message(request)
        if nul_problem is None:
            return error_response(404, ErrorCode.NOT_FOUND, "no such resource")
        return error_response(400, ErrorCode.INVALID_PARAMETER, nul_problem)
    if isinstance(exc, asyncpg.QueryCanceledError):
        log.warning("statement timeout on %s %s", request.method, request.url.path)
        return error_response(503, ErrorCode.TIMEOUT, "the query took too long; narrow the request")
    if is_unavailable(exc):
        log.warning("database unavailable on %s %s: %r", request.method, request.url.path, exc)
        return unavailable_response()
    log.exception("unhandled error on %s %s", request.method, request.url.path)
    return error_response(
        HTTP_500_INTERNAL_SERVER_ERROR, ErrorCode.INTERNAL_ERROR, "internal error"
    )


_DESCRIPTIONS = {
    400: "Invalid parameter or body (`invalid_parameter`, `invalid_body`, ...)",
    401: "Missing, malformed, unknown (`unauthorized`), expired (`key_expired`) or revoked "
    "(`key_revoked`) key",
    403: "Forbidden (`insufficient_scope`, `write_not_enabled`, feature switches, ...)",
    404: "Unknown id, or a resource of another tenant (`not_found`)",
    409: "Conflict with the current state",
    413: f"Body over {MAX_BODY_BYTES // 1024} KiB (`payload_too_large`)",
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
            data_container=ErrorEnvelope,
            description=_DESCRIPTIONS.get(status, "Error"),
            generate_examples=False,
        )
        for status in wanted
    }
