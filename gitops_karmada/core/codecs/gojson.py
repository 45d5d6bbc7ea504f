"""Go ``encoding/json`` output, byte for byte: what Karmada's JSON looks like after it passed through Go.

Karmada marshals with the standard library's defaults: map keys sorted, HTML characters escaped
(``<`` → ``\\u003c``), U+2028/U+2029 escaped, floats in ES6 style (``1e+21``, ``1e-7``, ``100``). This module
reproduces that, plus ``compact`` (what the encoder does to a ``json.RawMessage``) and Go's
``strconv.FormatFloat(f, 'g', -1, 64)`` which go-yaml uses for floats. Pure functions, no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

__all__ = ["GoJsonError", "compact", "encode", "encode_string", "format_float_g", "format_float_json"]

_HEX = "0123456789abcdef"
_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


class GoJsonError(ValueError):
    """A value Go's encoder refuses (NaN, ±Inf, a non-string map key)."""


def _escape_char(char: str) -> str:
    short = _SHORT_ESCAPES.get(char)
    if short is not None:
        return short
    code = ord(char)
    if code < 0x20 or char in "<>&":
        return "\\u00" + _HEX[code >> 4] + _HEX[code & 0xF]
    if char in "\u2028\u2029":
        return "\\u202" + _HEX[code & 0xF]
    if 0xD800 <= code <= 0xDFFF:
        # a lone surrogate is invalid UTF-8 in Go and becomes the replacement character
        return "\\ufffd"
    return char


def _needs_escape(char: str) -> bool:
    code = ord(char)
    return code < 0x20 or char in '"\\<>&\u2028\u2029' or 0xD800 <= code <= 0xDFFF


def encode_string(value: str) -> str:
    """A JSON string literal exactly as Go's encoder writes it (escapeHTML on)."""
    if not any(_needs_escape(char) for char in value):
        return f'"{value}"'
    return '"' + "".join(_escape_char(char) if _needs_escape(char) else char for char in value) + '"'


def _shortest_digits(value: float) -> tuple[str, int]:
    """Shortest round-trip decimal digits of |value| and the decimal-point position (Go's ``digs.dp``)."""
    # repr() is the shortest round-tripping decimal, which is also what Go's shortest formatting picks
    _, digits, exponent = Decimal(repr(abs(value))).normalize().as_tuple()
    text = "".join(str(d) for d in digits)
    assert isinstance(exponent, int)  # finite values only
    return text, len(text) + exponent


def _format_e(negative: bool, digits: str, point: int) -> str:
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    exponent = point - 1
    sign = "-" if exponent < 0 else "+"
    return ("-" if negative else "") + f"{mantissa}e{sign}{abs(exponent):02d}"


def _format_f(negative: bool, digits: str, point: int) -> str:
    if point <= 0:
        text = "0." + "0" * (-point) + digits
    elif point >= len(digits):
        text = digits + "0" * (point - len(digits))
    else:
        text = digits[:point] + "." + digits[point:]
    return ("-" if negative else "") + text


def format_float_json(value: float) -> str:
    """``encoding/json``'s float64 text: ``'f'`` unless |v| < 1e-6 or ≥ 1e21, exponent without padding."""
    if math.isnan(value) or math.isinf(value):
        raise GoJsonError(f"json: unsupported value: {format_float_g(value)}")
    negative = math.copysign(1.0, value) < 0
    if value == 0:
        return "-0" if negative else "0"
    digits, point = _shortest_digits(value)
    if abs(value) < 1e-6 or abs(value) >= 1e21:
        text = _format_e(negative, digits, point)
        # Go cleans up e-09 to e-9 (a two-digit negative exponent with a leading zero)
        if len(text) >= 4 and text[-4] == "e" and text[-3] == "-" and text[-2] == "0":
            text = text[:-2] + text[-1]
        return text
    return _format_f(negative, digits, point)


def format_float_g(value: float) -> str:
    """``strconv.FormatFloat(v, 'g', -1, 64)``: %e when the exponent is < -4 or ≥ 6 (shortest mode)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    negative = math.copysign(1.0, value) < 0
    if value == 0:
        return "-0" if negative else "0"
    digits, point = _shortest_digits(value)
    exponent = point - 1
    if exponent < -4 or exponent >= 6:
        return _format_e(negative, digits, point)
    return _format_f(negative, digits, point)


def encode(value: Any) -> str:
    """``json.Marshal`` of a decoded JSON value (dicts as Go maps: keys sorted)."""
    parts: list[str] = []
    _encode_into(value, parts)
    return "".join(parts)


def _encode_into(value: Any, parts: list[str]) -> None:
    if value is None:
        parts.append("null")
    elif value is True:
        parts.append("true")
    elif value is False:
        parts.append("false")
    elif isinstance(value, int):
        parts.append(str(value))
    elif isinstance(value, float):
        parts.append(format_float_json(value))
    elif isinstance(value, str):
        parts.append(encode_string(value))
    elif isinstance(value, Mapping):
        for key in value:
            if not isinstance(key, str):
                raise GoJsonError(f"json: unsupported map key {key!r}")
        parts.append("{")
        for index, key in enumerate(sorted(value)):
            if index:
                parts.append(",")
            parts.append(encode_string(key))
            parts.append(":")
            _encode_into(value[key], parts)
        parts.append("}")
    elif isinstance(value, Sequence) and not isinstance(value, (bytes, bytearray)):
        parts.append("[")
        for index, item in enumerate(value):
            if index:
                parts.append(",")
            _encode_into(item, parts)
        parts.append("]")
    else:
        raise GoJsonError(f"json: unsupported type {type(value).__name__}")


def compact(raw: str) -> str:
    """What Go's encoder does to a ``RawMessage``: drop insignificant whitespace, escape ``<>&`` U+2028/9.

    Numbers and string escapes are kept verbatim (``1.50`` stays ``1.50``); ``raw`` must be valid JSON.
    """
    out: list[str] = []
    in_string = False
    escaped = False
    for char in raw:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char in " \t\n\r":
            continue
        elif char == '"':
            in_string = True
        if char in "<>&":
            out.append("\\u00" + _HEX[ord(char) >> 4] + _HEX[ord(char) & 0xF])
        elif char in "\u2028\u2029":
            out.append("\\u202" + _HEX[ord(char) & 0xF])
        else:
            out.append(char)
    return "".join(out)
