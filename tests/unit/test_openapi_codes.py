"""The OpenAPI document's error codes are the closed set of app/core/errors.py."""

from __future__ import annotations

from app.core.errors import _STATUS_CODES, ErrorCode
from app.docs import descriptions

# Fallbacks for answers no operation documents: a method the path lacks (405), a server
# error (500), and the generic code of a status raised without a specific one.
UNDOCUMENTED = {
    ErrorCode.BAD_REQUEST,
    ErrorCode.FORBIDDEN,
    ErrorCode.METHOD_NOT_ALLOWED,
    ErrorCode.CONFLICT,
    ErrorCode.INTERNAL_ERROR,
    ErrorCode.ERROR,
}


def test_every_documented_code_is_an_error_code() -> None:
    for code in descriptions.ERROR_CODES:
        assert isinstance(code, ErrorCode), code
    for operation_id, codes in descriptions.ROUTE_CODES.items():
        assert all(isinstance(code, ErrorCode) for code in codes), operation_id


def test_every_error_code_a_route_can_answer_is_documented() -> None:
    assert set(ErrorCode) - set(descriptions.ERROR_CODES) == UNDOCUMENTED


def test_documented_statuses_agree_with_the_status_fallbacks() -> None:
    for status, code in _STATUS_CODES.items():
        if code in descriptions.ERROR_CODES:
            assert descriptions.ERROR_CODES[code][0] == status, code
