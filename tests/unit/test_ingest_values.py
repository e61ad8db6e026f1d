"""The pure value rules of the pipeline (no database): coercion, mapping keys, formulas,
alert comparisons, signal quality and battery rounding."""

from __future__ import annotations

import uuid

import msgspec
import pytest

from app.core.chirpstack_events import DECODERS
from app.ingest.pipeline import compute_derived, prepare_uplink
from app.latest.controller import matches
from app.profiles.contexts import build_catalog, build_context
from app.profiles.values import (
    battery_percent,
    best_signal,
    breaks_rule,
    coerce,
    signal_quality,
    string_form,
)


@pytest.mark.parametrize(
    ("value", "data_type", "expected"),
    [
        (21.5, "number", 21.5),
        ("21.5", "number", 21.5),
        (" 7 ", "number", 7),
        (True, "number", 1),
        ("abc", "number", None),
        (float("nan"), "number", None),
        ({"a": 1}, "number", None),
        (12, "string", "12"),
        (1.0, "string", "1"),
        (False, "string", "false"),
        ([1], "string", None),
        ("TRUE", "boolean", True),
        (0, "boolean", False),
        ("perhaps", "boolean", None),
        ("2026-03-01", "date", "2026-03-01"),
        ("2026-13-01", "date", None),
        (
            {"latitude": 1, "longitude": 2},
            "location",
            {"latitude": 1, "longitude": 2, "altitude": None},
        ),
        ({"latitude": 91, "longitude": 2}, "location", None),
        ("x", "location", None),
    ],
)
def test_coercion(value: object, data_type: str, expected: object) -> None:
    assert coerce(value, data_type) == expected


def test_string_form_of_mapping_keys() -> None:
    assert [string_form(v) for v in (1, 1.0, 1.5, True, "open")] == [
        "1",
        "1",
        "1.5",
        "true",
        "open",
    ]


@pytest.mark.parametrize(
    ("rssi", "snr", "expected"),
    [
        (-85, -13.1, 37),  # exactly 36.5: half up
        (-120, -20, 0),
        (-50, 10, 100),
        (-200, 99, 50),  # each part clamped
        (-80, 7.5, 74),
        (-113, -20, 5),
    ],
)
def test_signal_quality(rssi: float, snr: float, expected: int) -> None:
    assert signal_quality(rssi, snr) == expected


def test_best_gateway_is_the_one_with_the_highest_own_quality() -> None:
    # A louder RSSI with a poor SNR loses to a balanced reception.
    assert best_signal([(-60, -20), (-100, 5)]) == 56
    assert best_signal([]) is None


@pytest.mark.parametrize(
    ("raw", "expected"), [(42.5, 43), (42.49, 42), (-1, 0), (100.6, 100), ("55", 55), ("x", None)]
)
def test_battery_percent(raw: object, expected: int | None) -> None:
    assert battery_percent(raw) == expected


@pytest.mark.parametrize(
    ("value", "op", "threshold", "expected"),
    [
        (31, ">", 30, True),
        (30, ">", 30, False),
        (30, ">=", 30, True),
        (29.9, "<", 30, True),
        (30, "<=", 30, True),
        ("open", "==", "open", True),
        ("open", "!=", "closed", True),
        (True, "==", True, True),
        ("open", ">", 30, False),
        (31, ">", "30", True),
    ],
)
def test_alert_rule_comparisons(value: object, op: str, threshold: object, expected: bool) -> None:
    assert breaks_rule(value, op, threshold) is expected


def _field(num: int, identifier: str, **extra: object) -> dict[str, object]:
    row: dict[str, object] = {
        "retain_last_value": False,
        "num": num,
        "identifier": identifier,
        "data_type": "number",
        "kind": "decoded",
        "role": None,
        "formula": None,
        "source": None,
        "mapping": None,
        "default_value": None,
    }
    row.update(extra)
    return row


def test_formulas_in_any_catalog_order_and_failures_left_out() -> None:
    catalog = build_catalog(
        [
            _field(1, "f2", kind="formula", formula="f1 * 2"),  # uses a later formula
            _field(2, "f1", kind="formula", formula="sqrt(x) + max(1, 2)"),
            _field(3, "x"),
            _field(4, "bad", kind="formula", formula="x / zero"),
            _field(5, "evil", kind="formula", formula="__import__('os')"),
            _field(6, "zero", kind="static", default_value=0),
        ],
        [],
    )
    context = build_context(catalog, 1, uuid.uuid4(), uuid.uuid4(), {}, {})
    assert context.static_part == {"zero": 0}
    prepared = prepare_uplink(context, {"x": 16})
    assert prepared.values == {"x": 16, "f1": 6.0, "f2": 12.0}
    assert set(prepared.derived) == {"f1", "f2"}
    assert compute_derived(catalog, {"x": -1, "zero": 0}) == {}


def test_if_none_match() -> None:
    etag = '"abc"'
    assert matches('"abc"', etag)
    assert matches('W/"abc"', etag)
    assert matches('"x", "abc"', etag)
    assert matches("*", etag)
    assert not matches('"abcd"', etag)
    assert not matches(None, etag)
    assert not matches("", etag)


@pytest.mark.parametrize(
    "value",
    [
        10**309,  # a JSON integer msgspec decodes as int, float() would overflow
        -(10**309),
        "9" * 400,
        "1e400",
        1e301,
        -1e301,
        float("inf"),
        float("-inf"),
    ],
)
def test_numbers_beyond_the_storable_magnitude_are_not_coerced(value: object) -> None:
    assert coerce(value, "number") is None


def test_the_storable_magnitude_is_inclusive() -> None:
    assert coerce(1e300, "number") == 1e300
    assert coerce(10**300, "number") == 10**300
    assert coerce(-1e300, "number") == -1e300
    # The altitude of a location follows the same rule (left out).
    location = coerce({"latitude": 1, "longitude": 2, "altitude": 10**400}, "location")
    assert location == {"latitude": 1, "longitude": 2, "altitude": None}


def test_strings_with_nul_are_not_coerced() -> None:
    assert coerce("a\x00b", "string") is None
    assert coerce("a\x00b", "number") is None
    assert coerce("ab", "string") == "ab"
    # An int too long for str() (a formula's result) has no string form.
    assert string_form(7**6000) is None


def test_receptions_with_nan_have_no_quality_and_infinities_are_clamped() -> None:
    nan, inf = float("nan"), float("inf")
    assert best_signal([(nan, 5.0), (-80, nan)]) is None
    assert best_signal([(nan, 5.0), (-80, 7.5)]) == 74
    assert best_signal([(inf, inf)]) == 100
    assert best_signal([(-inf, -inf)]) == 0


def test_formula_and_calibration_results_beyond_the_magnitude_are_left_out() -> None:
    catalog = build_catalog(
        [
            _field(1, "x"),
            _field(2, "y"),
            _field(3, "huge_int", kind="formula", formula="x ** 400"),
            _field(4, "to_inf", kind="formula", formula="x * 1e308 * 10"),
            _field(5, "nan", kind="formula", formula="float('nan') + x"),
            _field(6, "fine", kind="formula", formula="x * 2"),
            _field(7, "text", kind="formula", formula="int(x) ** 9000", data_type="string"),
        ],
        [],
    )
    context = build_context(
        catalog, 1, uuid.uuid4(), uuid.uuid4(), {}, {"y": {"scale": 1e308, "offset": 0}}
    )
    prepared = prepare_uplink(context, {"x": 10, "y": 10})
    assert prepared.values == {"x": 10, "fine": 20}
    assert prepared.num_values == [10.0, 20.0]
    assert prepared.derived == ["fine"]
    # y alone within range is calibrated and stored.
    assert prepare_uplink(context, {"y": 1e-300}).values == {"y": 1e-300 * 1e308}


def test_calibration_defaults() -> None:
    catalog = build_catalog([_field(1, "a"), _field(2, "b"), _field(3, "c")], [])
    context = build_context(
        catalog,
        1,
        uuid.uuid4(),
        uuid.uuid4(),
        {},
        {"a": {"scale": 2}, "b": {"offset": -1}, "c": {"scale": None, "offset": None}},
    )
    assert context.calibration == {"a": (2.0, 0.0), "b": (1.0, -1.0), "c": (1.0, 0.0)}
    prepared = prepare_uplink(context, {"a": 5, "b": 5, "c": 5})
    assert prepared.values == {"a": 10.0, "b": 4.0, "c": 5.0}


def test_decoders_accept_proto3_nulls_and_numbers_as_strings() -> None:
    up = DECODERS["up"].decode(
        b'{"deviceInfo": {"devEui": "0102030405060708"}, "deduplicationId": null,'
        b' "rxInfo": null, "object": {"a": 1e400, "b": null}}'
    )
    assert up.rx_info == [] and up.deduplication_id == ""
    assert up.object["a"] == float("inf") and up.object["b"] is None
    up = DECODERS["up"].decode(
        b'{"deviceInfo": {"devEui": "0102030405060708"},'
        b' "rxInfo": [{"gatewayId": null, "rssi": "-80", "snr": "7.5"}]}'
    )
    assert (up.rx_info[0].gateway_id, up.rx_info[0].rssi, up.rx_info[0].snr) == ("", -80, 7.5)
    status = DECODERS["status"].decode(
        b'{"deviceInfo": {"devEui": "x"}, "batteryLevel": null, "externalPowerSource": null}'
    )
    assert (status.battery_level, status.external_power_source) == (0.0, False)
    for bad in (b'{"deviceInfo": null}', b'{"deviceInfo": {"devEui": 5}}', b"[1]"):
        with pytest.raises(msgspec.ValidationError):
            DECODERS["up"].decode(bad)
