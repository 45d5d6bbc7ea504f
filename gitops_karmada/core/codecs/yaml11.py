"""go-yaml v2's implicit typing of YAML 1.1 scalars (``resolve.go``), shared by its decoder and encoder.

``resolve`` answers what an untagged plain scalar means to go-yaml v2 (``yes``/``on`` are booleans,
``0x1F``/``0o17``/``017`` are integers, ``1_000`` is 1000, ``08`` is the float 8, ``2001-02-03`` is a
timestamp...). The encoder uses the same answer to decide that a string must be quoted. Pure functions.
"""

from __future__ import annotations

import math
import re
from typing import Any

__all__ = [
    "BINARY_TAG", "BOOL_TAG", "FLOAT_TAG", "INT_TAG", "MERGE_TAG", "NULL_TAG", "STR_TAG", "TIMESTAMP_TAG",
    "YamlTypeError", "is_base60_float", "is_timestamp", "resolve",
]  # fmt: skip

STR_TAG = "tag:yaml.org,2002:str"
BOOL_TAG = "tag:yaml.org,2002:bool"
INT_TAG = "tag:yaml.org,2002:int"
FLOAT_TAG = "tag:yaml.org,2002:float"
NULL_TAG = "tag:yaml.org,2002:null"
TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"
BINARY_TAG = "tag:yaml.org,2002:binary"
MERGE_TAG = "tag:yaml.org,2002:merge"
_RESOLVABLE_TAGS = frozenset({"", STR_TAG, BOOL_TAG, INT_TAG, FLOAT_TAG, NULL_TAG, TIMESTAMP_TAG})
_UINT64_MAX = 2**64 - 1
_INT64_MAX = 2**63 - 1


class YamlTypeError(ValueError):
    """An explicitly tagged scalar whose text is not of that type (``!!int abc``)."""


def _hint_table() -> dict[str, str]:
    table = {"+": "S", "-": "S", ".": "."}
    table.update(dict.fromkeys("0123456789", "D"))
    table.update(dict.fromkeys("yYnNtTfFoO~", "M"))
    return table


_HINTS = _hint_table()
_RESOLVE_MAP: dict[str, tuple[str, Any]] = {
    **dict.fromkeys(
        ("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), (BOOL_TAG, True)
    ),
    **dict.fromkeys(
        ("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), (BOOL_TAG, False)
    ),
    **dict.fromkeys(("", "~", "null", "Null", "NULL"), (NULL_TAG, None)),
    **dict.fromkeys((".nan", ".NaN", ".NAN"), (FLOAT_TAG, math.nan)),
    **dict.fromkeys((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), (FLOAT_TAG, math.inf)),
    **dict.fromkeys(("-.inf", "-.Inf", "-.INF"), (FLOAT_TAG, -math.inf)),
    "<<": (MERGE_TAG, "<<"),
}
_YAML_STYLE_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_BASE60_FLOAT = re.compile(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?")


def _parse_uint(text: str, base: int) -> int | None:
    """``strconv.ParseUint(text, base, 64)`` without underscores (go-yaml removed them already)."""
    if text == "":
        return None
    if base == 0:
        base = 10
        if text[0] == "0":
            prefix = text[1].lower() if len(text) >= 3 else ""
            if prefix in ("b", "o", "x"):
                base, text = {"b": 2, "o": 8, "x": 16}[prefix], text[2:]
            else:
                base, text = 8, text[1:]
    value = 0
    for char in text:
        if not char.isascii():
            return None
        if "0" <= char <= "9":
            digit = ord(char) - ord("0")
        elif "a" <= char.lower() <= "z":
            digit = ord(char.lower()) - ord("a") + 10
        else:
            return None
        if digit >= base:
            return None
        value = value * base + digit
    return value if value <= _UINT64_MAX else None


def _parse_int(text: str, base: int) -> int | None:
    """``strconv.ParseInt(text, base, 64)``."""
    if text == "":
        return None
    negative = text[0] == "-"
    unsigned = _parse_uint(text[1:] if text[0] in "+-" else text, base)
    if unsigned is None:
        return None
    if (not negative and unsigned > _INT64_MAX) or (negative and unsigned > _INT64_MAX + 1):
        return None
    return -unsigned if negative else unsigned


def _parse_float(text: str) -> float | None:
    """``strconv.ParseFloat(text, 64)`` for the decimal forms go-yaml hands it; None on syntax/range error."""
    # Python's float() also strips whitespace and reads non-ASCII digits; Go's ParseFloat does neither
    if not text.isascii() or any(char.isspace() for char in text):
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    if math.isinf(value) or math.isnan(value):
        return None  # an overflowing literal is ErrRange in Go; inf/nan spellings never reach here
    return value


def _resolve_untagged(tag: str, text: str) -> tuple[str, Any]:
    hint = _HINTS.get(text[0], "") if text else "N"
    if not hint or tag in (STR_TAG, BINARY_TAG):
        return STR_TAG, text
    known = _RESOLVE_MAP.get(text)
    if known is not None:
        return known
    if hint == ".":
        value = _parse_float(text)
        if value is not None:
            return FLOAT_TAG, value
    elif hint in ("D", "S"):
        if tag in ("", TIMESTAMP_TAG) and is_timestamp(text):
            return TIMESTAMP_TAG, text
        plain = text.replace("_", "")
        integer = _parse_int(plain, 0)
        if integer is None:
            integer = _parse_uint(plain, 0)
        if integer is not None:
            return INT_TAG, integer
        if _YAML_STYLE_FLOAT.fullmatch(plain):
            value = _parse_float(plain)
            if value is not None:
                return FLOAT_TAG, value
        if plain.startswith("0b"):
            integer = _parse_int(plain[2:], 2)
            if integer is None:
                integer = _parse_uint(plain[2:], 2)
            if integer is not None:
                return INT_TAG, integer
        elif plain.startswith("-0b"):
            integer = _parse_int("-" + plain[3:], 2)
            if integer is not None:
                return INT_TAG, integer
    return STR_TAG, text


def _short(tag: str) -> str:
    return "!!" + tag.removeprefix("tag:yaml.org,2002:") if tag.startswith("tag:yaml.org,2002:") else tag


def resolve(tag: str, text: str) -> tuple[str, Any]:
    """go-yaml v2 ``resolve(tag, in)``: the resolved tag and value; raises YamlTypeError on a tag mismatch.

    Timestamps resolve to their text: decoded into ``interface{}`` go-yaml v2 keeps them as strings.
    """
    if tag not in _RESOLVABLE_TAGS:
        return tag, text
    resolved_tag, value = _resolve_untagged(tag, text)
    if tag in ("", resolved_tag, STR_TAG):
        return resolved_tag, value
    if tag == FLOAT_TAG and resolved_tag == INT_TAG and value <= _INT64_MAX:
        return FLOAT_TAG, float(value)
    raise YamlTypeError(f"cannot decode {_short(resolved_tag)} `{text}` as a {_short(tag)}")


def is_base60_float(text: str) -> bool:
    """YAML 1.1 sexagesimal numbers (``1:20``): go-yaml v2 does not read them but still quotes them."""
    if not text or not (text[0] in "+-" or "0" <= text[0] <= "9") or ":" not in text:
        return False
    return _BASE60_FLOAT.fullmatch(text) is not None


# -- timestamps: go-yaml v2 tries Go's time.Parse with four layouts ---------------------------------------

_YEAR, _MONTH, _DAY, _HOUR, _MINUTE, _SECOND, _FRACTION, _ZONE = range(8)
_LAYOUTS: tuple[tuple[int | str, ...], ...] = (
    (_YEAR, "-", _MONTH, "-", _DAY, "T", _HOUR, ":", _MINUTE, ":", _SECOND, _FRACTION, _ZONE),
    (_YEAR, "-", _MONTH, "-", _DAY, "t", _HOUR, ":", _MINUTE, ":", _SECOND, _FRACTION, _ZONE),
    (_YEAR, "-", _MONTH, "-", _DAY, " ", _HOUR, ":", _MINUTE, ":", _SECOND, _FRACTION),
    (_YEAR, "-", _MONTH, "-", _DAY),
)
_DAYS_IN_MONTH = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _is_digit(text: str, index: int) -> bool:
    return index < len(text) and "0" <= text[index] <= "9"


def _get_number(text: str, fixed: bool) -> tuple[int, str] | None:
    """Go's ``getnum``: one or two leading digits (exactly two when ``fixed``)."""
    if not _is_digit(text, 0):
        return None
    if not _is_digit(text, 1):
        return None if fixed else (int(text[0]), text[1:])
    return int(text[:2]), text[2:]


def _parse_layout(layout: tuple[int | str, ...], text: str) -> bool:
    fields: dict[int, int] = {}
    rest = text
    limits = {_MONTH: (1, 12), _HOUR: (0, 23), _MINUTE: (0, 59), _SECOND: (0, 59)}
    for chunk in layout:
        if isinstance(chunk, str):
            if chunk == " ":
                # a layout space matches one or more spaces (time.skip / cutspace)
                if rest and rest[0] != " ":
                    return False
                rest = rest.lstrip(" ")
            elif not rest.startswith(chunk):
                return False
            else:
                rest = rest[len(chunk) :]
        elif chunk == _YEAR:
            if len(rest) < 4 or not rest[:4].isdigit() or not rest[:4].isascii():
                return False
            fields[_YEAR], rest = int(rest[:4]), rest[4:]
        elif chunk == _FRACTION:
            if len(rest) >= 2 and rest[0] in ".," and _is_digit(rest, 1):
                end = 1
                while _is_digit(rest, end):
                    end += 1
                rest = rest[end:]
        elif chunk == _ZONE:
            if rest.startswith("Z"):
                rest = rest[1:]
                continue
            if len(rest) < 6 or rest[3] != ":" or rest[0] not in "+-":
                return False
            hours, minutes = _get_number(rest[1:3], True), _get_number(rest[4:6], True)
            if hours is None or minutes is None or hours[0] > 24 or minutes[0] > 60:
                return False
            rest = rest[6:]
        else:
            number = _get_number(rest, False)
            if number is None:
                return False
            fields[chunk], rest = number
            low, high = limits.get(chunk, (0, 99))
            if not low <= fields[chunk] <= high:
                return False
    if rest:
        return False
    year, month, day = fields[_YEAR], fields[_MONTH], fields[_DAY]
    days = _DAYS_IN_MONTH[month - 1]
    if month == 2 and year % 4 == 0 and (year % 100 != 0 or year % 400 == 0):
        days = 29
    return 1 <= day <= days


def is_timestamp(text: str) -> bool:
    """go-yaml v2 ``parseTimestamp``: four ASCII digits and '-', then one of its four layouts."""
    digits = 0
    while digits < len(text) and "0" <= text[digits] <= "9":
        digits += 1
    if digits != 4 or digits == len(text) or text[digits] != "-":
        return False
    return any(_parse_layout(layout, text) for layout in _LAYOUTS)
