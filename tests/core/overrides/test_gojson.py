"""Go encoding/json output: escaping, map-key order and float text (Karmada's JSON after Go)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from gitops_karmada.core.codecs.gojson import (
    GoJsonError,
    compact,
    encode,
    format_float_g,
    format_float_json,
)

ENCODINGS = [
    ("null", None, "null"),
    ("bools", [True, False], "[true,false]"),
    ("int", -42, "-42"),
    ("big-int", 2**63, "9223372036854775808"),
    ("sorted-keys", {"b": 1, "a": {"d": 2, "c": 3}}, '{"a":{"c":3,"d":2},"b":1}'),
    ("key-order-is-bytewise", {"é": 1, "z": 2, "Z": 3}, '{"Z":3,"z":2,"é":1}'),
    ("html-escaped", "<a&b>", '"\\u003ca\\u0026b\\u003e"'),
    ("short-escapes", '"\\\b\f\n\r\t', '"\\"\\\\\\b\\f\\n\\r\\t"'),
    ("control-characters", "\x00\x1f\x7f", '"\\u0000\\u001f\x7f"'),
    ("line-separators", "\u2028\u2029", '"\\u2028\\u2029"'),
    ("unicode-kept", "café ✓ 😀", '"café ✓ 😀"'),
    ("lone-surrogate", "\ud800", '"\\ufffd"'),
    ("tuple-as-array", ("a", 1), '["a",1]'),
]


@pytest.mark.parametrize(("value", "expected"), [e[1:] for e in ENCODINGS], ids=[e[0] for e in ENCODINGS])
def test_encode(value: Any, expected: str) -> None:
    assert encode(value) == expected


FLOATS_JSON = [
    (1.0, "1"),
    (-0.0, "-0"),
    (1.5, "1.5"),
    (100.0, "100"),
    (0.1, "0.1"),
    (1e20, "100000000000000000000"),
    (1e21, "1e+21"),
    (1.5e21, "1.5e+21"),
    (1e-6, "0.000001"),
    (1e-7, "1e-7"),
    (1.2345e-10, "1.2345e-10"),
    (1e-100, "1e-100"),
    (123456789.125, "123456789.125"),
]


@pytest.mark.parametrize(("value", "expected"), FLOATS_JSON, ids=[e[1] for e in FLOATS_JSON])
def test_format_float_json(value: float, expected: str) -> None:
    assert format_float_json(value) == expected


FLOATS_G = [
    (1.0, "1"),
    (123456.0, "123456"),
    (1234567.0, "1.234567e+06"),
    (1e6, "1e+06"),
    (0.0001, "0.0001"),
    (0.00001, "1e-05"),
    (1.5, "1.5"),
    (-2.5e-7, "-2.5e-07"),
    (1e21, "1e+21"),
    (math.inf, "+Inf"),
    (-math.inf, "-Inf"),
    (math.nan, "NaN"),
]


@pytest.mark.parametrize(("value", "expected"), FLOATS_G, ids=[e[1] for e in FLOATS_G])
def test_format_float_g(value: float, expected: str) -> None:
    assert format_float_g(value) == expected


@pytest.mark.parametrize(
    "value", [math.nan, math.inf, {1: "non-string key"}, {"set"}], ids=["nan", "inf", "key", "set"]
)
def test_values_go_refuses(value: Any) -> None:
    with pytest.raises(GoJsonError):
        encode(value)


def test_compact_keeps_tokens_and_escapes_html() -> None:
    raw = '{ "a" : [ 1.50 , "x y<" , "\\"q\\" &" ] ,\n\t"b": "\u2028" }'
    assert compact(raw) == '{"a":[1.50,"x y\\u003c","\\"q\\" \\u0026"],"b":"\\u2028"}'
