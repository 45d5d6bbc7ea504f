"""Kubernetes client-go JSONPath templates (``kubectl -o jsonpath=``), run and printed as Karmada does.

Karmada's ``helper.BuildPreservedLabelState`` (pkg/util/helper/failover.go) runs every StatePreservation
rule through ``k8s.io/client-go/util/jsonpath`` with ``AllowMissingKeys(false)`` over the member status
decoded into ``map[string]interface{}``. This is a port of that package's ``parser.go`` and ``jsonpath.go``
(and the comparison functions of its forked ``text/template``), quirks included, so that a rule yields
the same label value, or fails, exactly where the controller would. Go's view of the data is kept: every
JSON number is a float64 (Python ints included), template integer literals are Go ints, and a string's
wildcard children are its UTF-8 bytes. Work is bounded (template length, nesting, evaluation steps,
output size) so no input can hang or exhaust the process.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, NoReturn, TypeAlias

MAX_TEMPLATE_LENGTH = 4096
"""Longest template accepted, in characters."""
MAX_NESTING = 64
"""Deepest nesting of template parts (bracket sub-parses, ``range`` blocks) and of data walked by ``..``
or printed as JSON."""
MAX_RESULT_BYTES = 1 << 20
"""Largest printed result, in UTF-8 bytes."""
MAX_STEPS = 1_000_000
"""Most values produced while evaluating one template (chained unions or nested ranges multiply)."""


class JSONPathError(ValueError):
    """A template that does not parse, fails on the data, or exceeds a bound."""


# ----------------------------------------------------------------------------------------------- values


class _Nothing:
    """Go's invalid ``reflect.Value`` (``reflect.ValueOf(nil)``): a nil root or a null range element.

    It differs from a null *inside* a map or list (a nil interface, Python None), which the eval steps
    skip: it prints ``<no value>`` instead of ``<nil>``, and indexing it is a client-go panic (an error
    here).
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return "<no value>"


_NOTHING = _Nothing()


@dataclass(frozen=True, slots=True)
class _GoInt:
    """A Go integer: a template literal (``int``) or a byte of a string walked by ``*``/``..`` (``uint8``).

    Kept apart from data numbers because Go compares an int with a float64 as an error, not numerically.
    """

    value: int
    unsigned: bool = False


# ------------------------------------------------------------------------------------------------ nodes


@dataclass(frozen=True, slots=True)
class _Text:
    text: str


@dataclass(frozen=True, slots=True)
class _Field:
    name: str


@dataclass(frozen=True, slots=True)
class _Param:
    known: bool
    value: int
    derived: bool = False


@dataclass(frozen=True, slots=True)
class _Array:
    start: _Param
    end: _Param
    step: _Param


@dataclass(frozen=True, slots=True)
class _Filter:
    left: _List
    right: _List
    operator: str


@dataclass(frozen=True, slots=True)
class _Int:
    value: int


@dataclass(frozen=True, slots=True)
class _Float:
    value: float


@dataclass(frozen=True, slots=True)
class _Bool:
    value: bool


@dataclass(frozen=True, slots=True)
class _Wildcard:
    pass


@dataclass(frozen=True, slots=True)
class _Recursive:
    pass


@dataclass(frozen=True, slots=True)
class _Union:
    lists: tuple[_List, ...]


@dataclass(frozen=True, slots=True)
class _Identifier:
    name: str


@dataclass(eq=False, slots=True)
class _List:
    nodes: list[_Node] = field(default_factory=list)


_Node: TypeAlias = (
    _List
    | _Text
    | _Field
    | _Array
    | _Filter
    | _Int
    | _Float
    | _Bool
    | _Wildcard
    | _Recursive
    | _Union
    | _Identifier
)

# ----------------------------------------------------------------------------------------------- parser

_EOF = ""
# Go's regexp \d is ASCII only, as is strconv.Atoi
_DICT_KEY = re.compile(r"'([^']*)'")
_SLICE = re.compile(r"(-?[0-9]*)(:-?[0-9]*)?(:-?[0-9]*)?")
_FILTER = re.compile(r"([^!<>=]+)([!<>=]+)(.+?)", re.DOTALL)
_ATOI = re.compile(r"[+-]?[0-9]+")
_PARSE_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)")
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _atoi(text: str) -> int | None:
    """strconv.Atoi on a 64-bit platform: optional sign, ASCII digits, int64 range; None when it fails."""
    if _ATOI.fullmatch(text) is None:
        return None
    value = int(text)
    return value if _INT64_MIN <= value <= _INT64_MAX else None


def _is_digit(r: str) -> bool:
    return r != _EOF and unicodedata.category(r) == "Nd"  # unicode.IsDigit


def _is_alphanumeric(r: str) -> bool:
    return r == "_" or (r != _EOF and (r.isalpha() or _is_digit(r)))  # isalpha = unicode.IsLetter


def _is_terminator(r: str) -> bool:
    return r in (_EOF, " ", "\t", "\r", "\n", ".", ",", "[", "]", "$", "@", "{", "}")


def _quote_rune(r: str) -> str:
    """Go's ``%#U``: ``U+0025 '%'``, the character only when printable."""
    code = f"U+{ord(r):04X}"
    return f"{code} '{r}'" if r.isprintable() else code


_SIMPLE_ESCAPES = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, "\\": 92}


def _unquote_extend(text: str) -> str:
    """client-go's UnquoteExtend: strconv.Unquote that also takes single quotes."""
    if len(text) < 2 or text[0] != text[-1] or text[0] not in "\"'":
        raise ValueError("invalid syntax")
    quote, body = text[0], text[1:-1]
    if "\\" not in body and quote not in body:
        return body
    out = bytearray()
    i = 0
    while i < len(body):
        c = body[i]
        if c == quote:
            raise ValueError("invalid syntax")
        if c != "\\":
            out += c.encode("utf-8", "surrogatepass")
            i += 1
            continue
        if i + 1 >= len(body):
            raise ValueError("invalid syntax")
        e = body[i + 1]
        i += 2
        if e in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[e])
        elif e in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[e]
            digits = body[i : i + width]
            if len(digits) < width or any(d not in "0123456789abcdefABCDEF" for d in digits):
                raise ValueError("invalid syntax")
            i += width
            value = int(digits, 16)
            if e == "x":
                out.append(value)  # a single byte, possibly not UTF-8 (decoded with U+FFFD below)
            elif value > 0x10FFFF or 0xD800 <= value <= 0xDFFF:
                raise ValueError("invalid syntax")
            else:
                out += chr(value).encode("utf-8")
        elif e in "01234567":
            digits = body[i : i + 2]
            if len(digits) < 2 or any(d not in "01234567" for d in digits):
                raise ValueError("invalid syntax")
            i += 2
            value = int(e + digits, 8)
            if value > 255:
                raise ValueError("invalid syntax")
            out.append(value)
        elif e in "'\"" and e == quote:
            out.append(ord(e))
        else:
            raise ValueError("invalid syntax")
    return out.decode("utf-8", "replace")


class _Parser:
    """client-go's parser.go, with its mutual recursion (one call per token) turned into loops."""

    def __init__(self, text: str, depth: int) -> None:
        if depth > MAX_NESTING:
            raise JSONPathError(f"template nesting deeper than {MAX_NESTING}")
        self.input = text
        self.depth = depth
        self.pos = 0
        self.start = 0
        self.width = 0

    # -- scanning (runes: a Python str is already decoded)

    def next(self) -> str:
        if self.pos >= len(self.input):
            self.width = 0
            return _EOF
        self.width = 1
        self.pos += 1
        return self.input[self.pos - 1]

    def peek(self) -> str:
        r = self.next()
        self.backup()
        return r

    def backup(self) -> None:
        self.pos -= self.width

    def consume(self) -> str:
        value = self.input[self.start : self.pos]
        self.start = self.pos
        return value

    def fail(self, message: str) -> NoReturn:
        raise JSONPathError(message)

    # -- top level

    def parse(self) -> list[_Node]:
        root: list[_Node] = []
        while True:
            brace = self.input.find("{", self.pos)
            if brace < 0:
                self.pos = len(self.input)
                if self.pos > self.start:
                    root.append(_Text(self.consume()))
                return root
            self.pos = brace
            if self.pos > self.start:
                root.append(_Text(self.consume()))
            self.pos += 1
            self.consume()
            action = _List()
            root.append(action)
            self.parse_inside_action(action.nodes)

    def sub_parse(self, text: str) -> _List:
        """parseAction: ``text`` parsed as the sole content of ``{...}``."""
        first = _Parser("{" + text + "}", self.depth + 1).parse()[0]
        assert isinstance(first, _List)  # the text starts with "{"
        return first

    def parse_inside_action(self, cur: list[_Node]) -> None:
        while True:
            if self.input.startswith("}", self.pos):
                self.pos += 1
                self.consume()
                return
            if self.input.startswith("[?(", self.pos):
                self.parse_filter(cur)
                continue
            if self.input.startswith("..", self.pos):
                self.parse_recursive(cur)
                continue
            r = self.next()
            if r in (_EOF, "\r", "\n"):
                self.fail("unclosed action")
            elif r in (" ", "@", "$"):  # $ and @ both mean "the current object": nothing to add
                self.consume()
            elif r == "[":
                self.parse_array(cur)
            elif r in ('"', "'"):
                self.parse_quote(cur, r)
            elif r == ".":
                self.parse_field(cur)
            elif r in ("+", "-") or _is_digit(r):
                self.backup()
                self.parse_number(cur)
            elif _is_alphanumeric(r):
                self.backup()
                self.parse_identifier(cur)
            else:
                self.fail(f"unrecognized character in action: {_quote_rune(r)}")

    # -- the parts of an action

    def parse_identifier(self, cur: list[_Node]) -> None:
        while not _is_terminator(self.next()):
            pass
        self.backup()
        value = self.consume()
        cur.append(_Bool(value == "true") if value in ("true", "false") else _Identifier(value))

    def parse_recursive(self, cur: list[_Node]) -> None:
        if cur and isinstance(cur[-1], _Recursive):
            self.fail("invalid multiple recursive descent")
        self.pos += 2
        self.consume()
        cur.append(_Recursive())
        if _is_alphanumeric(self.peek()):
            self.parse_field(cur)

    def parse_number(self, cur: list[_Node]) -> None:
        if self.peek() in ("+", "-"):
            self.next()
        while True:
            r = self.next()
            if r != "." and not _is_digit(r):
                self.backup()
                break
        value = self.consume()
        integer = _atoi(value)
        if integer is not None:
            cur.append(_Int(integer))
            return
        # strconv.ParseFloat: ASCII only, and out of range (±Inf) is an error
        number = float(value) if _PARSE_FLOAT.fullmatch(value) else math.inf
        if math.isinf(number):
            self.fail(f"cannot parse number {value}")
        cur.append(_Float(number))

    def parse_array(self, cur: list[_Node]) -> None:
        while True:
            r = self.next()
            if r in (_EOF, "\n"):
                self.fail("unterminated array")
            if r == "]":
                break
        text = self.consume()[1:-1]
        if text == "*":
            text = ":"
        parts = text.split(",")
        if len(parts) > 1:
            cur.append(_Union(tuple(self.sub_parse(f"[{part.strip(' ')}]") for part in parts)))
            return
        # ['key'] is re-parsed as .key, so a dot inside still separates fields (escape it: ['a\.b'])
        key = _DICT_KEY.fullmatch(text)
        if key is not None:
            cur.extend(self.sub_parse(f".{key.group(1)}").nodes)
            return
        match = _SLICE.fullmatch(text)
        if match is None:
            self.fail(f"invalid array index {text}")
        groups = [g or "" for g in match.groups()]
        params: list[_Param] = []
        for i, raw in enumerate(groups):
            if raw:
                if i > 0:
                    raw = raw[1:]
                if i > 0 and not raw:
                    params.append(_Param(known=False, value=0))
                    continue
                number = _atoi(raw)
                if number is None:
                    self.fail(f"array index {raw} is not a number")
                params.append(_Param(known=True, value=number))
            elif i == 1:  # [n] means [n:n+1]; [-1] gives end 0, resolved against the length later
                params.append(_Param(known=True, value=params[0].value + 1, derived=True))
            else:
                params.append(_Param(known=False, value=0))
        cur.append(_Array(params[0], params[1], params[2]))

    def parse_filter(self, cur: list[_Node]) -> None:
        self.pos += 3
        self.consume()
        begin = end = False
        pair = ""
        while True:
            r = self.next()
            if r in (_EOF, "\n"):
                self.fail("unterminated filter")
            if r in ('"', "'"):
                if not begin:
                    begin, pair = True, r
                    continue
                if self.input[self.pos - 2] != "\\" and r == pair:
                    end = True
            elif r == ")" and begin == end:
                break
        if self.next() != "]":
            self.fail("unclosed array expect ]")
        text = self.consume()[:-2]
        match = _FILTER.fullmatch(text)
        if match is None:
            cur.append(_Filter(self.sub_parse(text), _List(), "exists"))
        else:
            left, operator, right = match.groups()
            cur.append(_Filter(self.sub_parse(left), self.sub_parse(right), operator))

    def parse_quote(self, cur: list[_Node], end: str) -> None:
        while True:
            r = self.next()
            if r in (_EOF, "\n"):
                self.fail("unterminated quoted string")
            if r == "\\":
                if self.next() not in (_EOF, "\n"):
                    continue
                break  # Go falls through to the closing case; the unquote below then fails
            if r == end:
                break
        value = self.consume()
        try:
            cur.append(_Text(_unquote_extend(value)))
        except ValueError as err:
            self.fail(f"unquote string {value} error {err}")

    def parse_field(self, cur: list[_Node]) -> None:
        self.consume()
        while self.advance():
            pass
        value = self.consume()
        cur.append(_Wildcard() if value == "*" else _Field(value.replace("\\", "")))

    def advance(self) -> bool:
        r = self.next()
        if r == "\\":
            self.next()
        elif _is_terminator(r):
            self.backup()
            return False
        return True


# ------------------------------------------------------------------------------------- number printing


def _shortest_digits(number: float) -> tuple[str, int]:
    """Go's shortest round-trip decimal of a finite float's magnitude: digits and decimal point position.

    The value is ``0.<digits> × 10**dp``; zero has no digits. Python's repr uses the same rule (shortest
    string that reads back to the same float, the closest one on ties), so its digits are Go's.
    """
    if number == 0:
        return "", 0
    _, digit_tuple, exponent = Decimal(repr(abs(number))).as_tuple()
    assert isinstance(exponent, int)
    digits = "".join(map(str, digit_tuple)).rstrip("0")
    exponent += len(digit_tuple) - len(digits)
    return digits, len(digits) + exponent


def _fmt_e(digits: str, dp: int, prec: int) -> str:
    """strconv's %e body: d.ddd then an exponent with a sign and at least two digits."""
    out = digits[:1] or "0"
    if prec > 0:
        out += "." + digits[1 : 1 + prec].ljust(prec, "0")
    exp = dp - 1 if digits else 0
    return f"{out}e{'-' if exp < 0 else '+'}{abs(exp):02d}"


def _fmt_f(digits: str, dp: int, prec: int) -> str:
    """strconv's %f body with ``prec`` decimals."""
    out = digits[:dp].ljust(dp, "0") if dp > 0 else "0"
    if prec > 0:
        out += "." + "".join(digits[dp + i] if 0 <= dp + i < len(digits) else "0" for i in range(prec))
    return out


def go_format_float(number: float) -> str:
    """Go's ``fmt.Sprint(float64)`` (``%v``, i.e. ``%g`` with the shortest round-trip digits).

    strconv decides %e against precision 6 when the precision is the shortest (``if shortest { eprec =
    6 }``): %e when the decimal exponent is < -4 or >= 6, so 123456 prints as is, 1234567 as
    ``1.234567e+06`` and 0.00001 as ``1e-05``. Infinities are ``+Inf``/``-Inf``, NaN is ``NaN``.
    """
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "+Inf" if number > 0 else "-Inf"
    sign = "-" if math.copysign(1.0, number) < 0 else ""
    digits, dp = _shortest_digits(number)
    exp = dp - 1
    if exp < -4 or exp >= 6:
        return sign + _fmt_e(digits, dp, len(digits) - 1)
    return sign + _fmt_f(digits, dp, max(len(digits) - dp, 0))


def go_json_float(number: float) -> str:
    """encoding/json's float64: %f, or %e below 1e-6 and from 1e21 with ``e-07`` shortened to ``e-7``."""
    if not math.isfinite(number):
        raise JSONPathError(f"json: unsupported value: {go_format_float(number)}")
    sign = "-" if math.copysign(1.0, number) < 0 else ""
    digits, dp = _shortest_digits(number)
    magnitude = abs(number)
    if magnitude != 0 and (magnitude < 1e-6 or magnitude >= 1e21):
        text = _fmt_e(digits, dp, len(digits) - 1)
        if len(text) >= 4 and text[-4] == "e" and text[-3] == "-" and text[-2] == "0":
            text = text[:-2] + text[-1]
        return sign + text
    return sign + _fmt_f(digits, dp, max(len(digits) - dp, 0))


def _as_float64(number: int) -> float:
    """A JSON integer as Karmada sees it after decoding into interface{}: a float64."""
    try:
        return float(number)
    except OverflowError:
        raise JSONPathError(f"json: cannot unmarshal number {number} into Go value of type float64") from None


# ----------------------------------------------------------------------------------------------- output

_JSON_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}
_JSON_SPECIAL = re.compile(r'["\\<>&\u2028\u2029\x00-\x1f\ud800-\udfff]')


def _json_escape(match: re.Match[str]) -> str:
    c = match.group()
    if c in _JSON_ESCAPES:
        return _JSON_ESCAPES[c]
    if "\ud800" <= c <= "\udfff":  # not encodable as UTF-8: Go writes invalid bytes as U+FFFD
        return "\\ufffd"
    return f"\\u{ord(c):04x}"


def _json_string(text: str) -> str:
    """Go's json.Marshal of a string: HTML-safe escapes (``<`` → ``\\u003c``), \\b and \\f since Go 1.22."""
    return '"' + _JSON_SPECIAL.sub(_json_escape, text) + '"'


class _Output:
    """The printed result, refusing to grow past MAX_RESULT_BYTES."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0

    def write(self, text: str) -> None:
        self.size += len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
        if self.size > MAX_RESULT_BYTES:
            raise JSONPathError(f"result larger than {MAX_RESULT_BYTES} bytes")
        self.parts.append(text)

    def json(self, value: Any, depth: int = 0) -> None:
        """json.Marshal(value): compact, map keys sorted."""
        if depth > MAX_NESTING:
            raise JSONPathError(f"data nested deeper than {MAX_NESTING} levels")
        if value is None:
            self.write("null")
        elif isinstance(value, bool):
            self.write("true" if value else "false")
        elif isinstance(value, int):
            self.write(go_json_float(_as_float64(value)))
        elif isinstance(value, float):
            self.write(go_json_float(value))
        elif isinstance(value, str):
            self.write(_json_string(value))
        elif isinstance(value, Mapping):
            self.write("{")
            for i, key in enumerate(_sorted_keys(value)):
                if not isinstance(key, str):
                    raise JSONPathError(f"json: unsupported map key {key!r}: JSON object keys are strings")
                self.write(("," if i else "") + _json_string(key) + ":")
                self.json(value[key], depth + 1)
            self.write("}")
        elif isinstance(value, list | tuple):
            self.write("[")
            for i, item in enumerate(value):
                if i:
                    self.write(",")
                self.json(item, depth + 1)
            self.write("]")
        else:
            raise JSONPathError(f"json: unsupported type: {type(value).__name__}")

    def text(self, value: Any) -> None:
        """evalToText: ``fmt.Fprint`` of the value.

        A JSON null (nil interface) prints as ``<nil>``: evalToText hands ``template.PrintableValue``'s
        result to ``fmt.Fprint``, which writes a nil interface as ``<nil>``; a nil root or null range
        element is an invalid reflect.Value, which PrintableValue turns into ``<no value>``.
        """
        if value is None:
            self.write("<nil>")
        elif value is _NOTHING:
            self.write("<no value>")
        elif isinstance(value, bool):
            self.write("true" if value else "false")
        elif isinstance(value, str):
            self.write(value)
        elif isinstance(value, int):
            self.write(go_format_float(_as_float64(value)))
        elif isinstance(value, float):
            self.write(go_format_float(value))
        elif isinstance(value, _GoInt):
            self.write(str(value.value))
        else:
            raise JSONPathError(f"can't print type {type(value).__name__}")


def _sorted_keys(mapping: Mapping[Any, Any]) -> list[Any]:
    # Go randomises map iteration; sorted keys are one of its orders and the one json.Marshal uses
    return sorted(mapping, key=lambda key: (not isinstance(key, str), str(key)))


def _is_container(value: Any) -> bool:
    return isinstance(value, Mapping | list | tuple)


def _go_type(value: Any) -> str:
    """``%v`` of a reflect.Type, for client-go's "X is not array or slice"."""
    if isinstance(value, Mapping):
        return "map[string]interface {}"
    if isinstance(value, list | tuple):
        return "[]interface {}"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, str):
        return "string"
    if isinstance(value, int | float):
        return "float64"
    if isinstance(value, _GoInt):
        return "uint8" if value.unsigned else "int"
    return type(value).__name__


def _go_value(value: Any, budget: int = 200, depth: int = 0) -> str:
    """``%v`` of a value for error messages (``map[a:1 b:x]``, ``[1 2]``), cut short past ``budget``."""
    if value is None:
        return "<nil>"
    if value is _NOTHING:
        return "<invalid reflect.Value>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value[:budget]
    if isinstance(value, int | float):
        return go_format_float(value if isinstance(value, float) else _as_float64(value))
    if isinstance(value, _GoInt):
        return str(value.value)
    if depth >= 8:
        return "..."
    if isinstance(value, Mapping | list | tuple):
        pairs = (
            [f"{k}:{_go_value(value[k], budget, depth + 1)}" for k in _sorted_keys(value)]
            if isinstance(value, Mapping)
            else [_go_value(item, budget, depth + 1) for item in value]
        )
        text = ("map[" if isinstance(value, Mapping) else "[") + " ".join(pairs) + "]"
        return text if len(text) <= budget else text[:budget] + "..."
    return repr(value)[:budget]


# ------------------------------------------------------------------------------------------- evaluation


class _EvalError(Exception):
    """A client-go evaluation error, with the partial value the Go function returned alongside it.

    The partial value matters in one place: an existence filter ``[?(@.x)]`` ignores the error and keeps
    the element when that value is non-empty (client-go checks ``len(lefts) > 0`` before ``err``).
    """

    def __init__(self, message: str, partial: list[Any]) -> None:
        super().__init__(message)
        self.message = message
        self.partial = partial


@dataclass(frozen=True, slots=True)
class _Comparable:
    kind: str  # the kinds of text/template's basicKind that JSON data and literals can have
    value: Any


def _comparable(value: Any) -> _Comparable:
    if isinstance(value, bool):
        return _Comparable("bool", value)
    if isinstance(value, str):
        return _Comparable("string", value)
    if isinstance(value, int):
        return _Comparable("float", _as_float64(value))
    if isinstance(value, float):
        return _Comparable("float", value)
    if isinstance(value, _GoInt):
        return _Comparable("uint" if value.unsigned else "int", value.value)
    raise ValueError("invalid type for comparison")  # nil, maps and lists


def _equal(left: Any, right: Any) -> bool:
    a, b = _comparable(left), _comparable(right)
    if a.kind != b.kind:
        if {a.kind, b.kind} == {"int", "uint"}:  # Go compares integers across signedness
            return bool(a.value == b.value)
        raise ValueError("incompatible types for comparison")
    return bool(a.value == b.value)


def _less(left: Any, right: Any) -> bool:
    a, b = _comparable(left), _comparable(right)
    if a.kind != b.kind:
        if {a.kind, b.kind} == {"int", "uint"}:
            return bool(a.value < b.value)
        raise ValueError("incompatible types for comparison")
    if a.kind == "bool":
        raise ValueError("invalid type for comparison")
    return bool(a.value < b.value)


def _compare(operator: str, left: Any, right: Any) -> bool:
    """The forked text/template's lt/gt/eq/ne/le/ge, including which argument kinds are errors."""
    if operator == "==":
        return _equal(left, right)
    if operator == "!=":
        return not _equal(left, right)
    if operator == "<":
        return _less(left, right)
    if operator == "<=":
        return _less(left, right) or _equal(left, right)
    if operator == ">":
        return not (_less(left, right) or _equal(left, right))
    if operator == ">=":
        return not _less(left, right)
    raise LookupError(operator)


class _Run:
    """One execution of a parsed template: client-go's JSONPath struct and its eval* methods."""

    def __init__(self, nodes: list[_Node], allow_missing_keys: bool) -> None:
        self.nodes = nodes
        self.allow_missing_keys = allow_missing_keys
        self.begin_range = 0
        self.in_range = 0
        self.end_range = 0
        self.last_end_node: int | None = None
        self.steps = 0

    def spend(self, count: int) -> None:
        self.steps += count
        if self.steps > MAX_STEPS:
            raise JSONPathError(f"evaluation takes more than {MAX_STEPS} steps")

    def find_results(self, data: Any, start: int) -> list[list[Any]]:
        """FindResults over ``nodes[start:]``; a range runs the rest of the template once per element
        and resumes after the ``end`` its body stopped at."""
        full: list[list[Any]] = []
        cur = [data]
        i = start
        while i < len(self.nodes):
            try:
                results = self.walk(cur, self.nodes[i])
            except _EvalError as fail:
                raise JSONPathError(fail.message) from None
            if 0 < self.end_range <= self.in_range:
                self.end_range -= 1
                self.last_end_node = i
                break
            if self.begin_range > 0:
                self.begin_range -= 1
                self.in_range += 1
                if self.in_range > MAX_NESTING:
                    raise JSONPathError(f"range blocks nested deeper than {MAX_NESTING}")
                if results:
                    for value in results:
                        full.extend(self.find_results(self.interface(value), i + 1))
                else:
                    # the body still runs, over nothing, so that its `end` is found (client-go:
                    # FindResults(nil)); its results are dropped but its errors are not
                    self.find_results(_NOTHING, i + 1)
                self.in_range -= 1
                if self.last_end_node is not None and self.last_end_node > i:
                    i = self.last_end_node
                i += 1
                continue
            full.append(results)
            i += 1
        return full

    @staticmethod
    def interface(value: Any) -> Any:
        """reflect.ValueOf(v.Interface()): a null element becomes the invalid value."""
        if value is _NOTHING:
            raise JSONPathError("range over an invalid value (client-go panics: Interface of zero Value)")
        return _NOTHING if value is None else value

    def walk(self, values: list[Any], node: _Node) -> list[Any]:
        self.spend(1)
        results: list[Any]
        match node:
            case _List():
                results = self.eval_list(values, node)
            case _Text():
                results = [node.text]
            case _Field():
                results = self.eval_field(values, node)
            case _Array():
                results = self.eval_array(values, node)
            case _Filter():
                results = self.eval_filter(values, node)
            case _Int():
                results = [_GoInt(node.value)] * len(values)
            case _Float() | _Bool():
                results = [node.value] * len(values)
            case _Wildcard():
                results = self.eval_wildcard(values)
            case _Recursive():
                results = []
                self.eval_recursive(values, results, 0)
            case _Union():
                results = self.eval_union(values, node)
            case _Identifier():
                results = self.eval_identifier(values, node)
        self.spend(len(results))
        return results

    def eval_list(self, values: list[Any], node: _List) -> list[Any]:
        for child in node.nodes:
            values = self.walk(values, child)
        return values

    def eval_field(self, values: list[Any], node: _Field) -> list[Any]:
        results: list[Any] = []
        if not values:
            return results
        for value in values:
            if isinstance(value, Mapping) and node.name in value:
                results.append(value[node.name])
        if not results and not self.allow_missing_keys:
            raise _EvalError(f"{node.name} is not found", results)
        return results

    def eval_array(self, values: list[Any], node: _Array) -> list[Any]:
        results: list[Any] = []
        for value in values:
            if value is None:
                continue
            if value is _NOTHING:
                raise JSONPathError("cannot index an invalid value (client-go panics: Type of zero Value)")
            if not isinstance(value, list | tuple):
                raise _EvalError(f"{_go_type(value)} is not array or slice", values)
            length = len(value)
            start = node.start.value if node.start.known else 0
            if start < 0:
                start += length
            end = node.end.value if node.end.known else length
            if end < 0 or (end == 0 and node.end.derived):
                end += length
            if end == start:
                # client-go returns here, dropping the elements of any later input too
                return results
            if start >= length or start < 0:
                raise _EvalError(f"array index out of bounds: index {start}, length {length}", values)
            if end > length or end < 0:
                raise _EvalError(f"array index out of bounds: index {end - 1}, length {length}", values)
            if start > end:
                raise _EvalError(f"starting index {start} is greater than ending index {end}", values)
            step = 1
            if node.step.known:
                if node.step.value <= 0:
                    raise _EvalError("step must be > 0", values)
                step = node.step.value
            results.extend(value[start:end:step])
        return results

    def eval_filter(self, values: list[Any], node: _Filter) -> list[Any]:
        results: list[Any] = []
        for value in values:
            if not isinstance(value, list | tuple):
                raise _EvalError(f"{_go_value(value)} is not array or slice and cannot be filtered", values)
            for item in value:
                self.spend(1)
                if node.operator == "exists":
                    try:
                        lefts = self.eval_list([item], node.left)
                    except _EvalError as fail:
                        lefts = fail.partial
                    if lefts:
                        results.append(item)
                    continue
                left = self.one_operand(values, item, node.left)
                if left is _NOTHING:
                    continue
                right = self.one_operand(values, item, node.right)
                if right is _NOTHING:
                    continue
                try:
                    passed = _compare(node.operator, left, right)
                except LookupError:
                    raise _EvalError(f"unrecognized filter operator {node.operator}", results) from None
                except ValueError as err:
                    raise _EvalError(str(err), results) from None
                if passed:
                    results.append(item)
        return results

    def one_operand(self, values: list[Any], item: Any, side: _List) -> Any:
        """One side of a comparison for one element: its single value, or _NOTHING to skip the element."""
        try:
            found = self.eval_list([item], side)
        except _EvalError as fail:
            raise _EvalError(fail.message, values) from None
        if not found:
            return _NOTHING
        if len(found) > 1:
            raise _EvalError("can only compare one element at a time", values)
        if found[0] is _NOTHING:
            raise JSONPathError("cannot compare an invalid value (client-go panics: Interface of zero Value)")
        return found[0]

    @staticmethod
    def children(value: Any) -> list[Any]:
        if isinstance(value, Mapping):
            return [value[key] for key in _sorted_keys(value)]
        if isinstance(value, list | tuple):
            return list(value)
        if isinstance(value, str):  # Go indexes a string by byte
            return [_GoInt(b, unsigned=True) for b in value.encode("utf-8", "surrogatepass")]
        return []

    def eval_wildcard(self, values: list[Any]) -> list[Any]:
        results: list[Any] = []
        for value in values:
            results.extend(self.children(value))
        return results

    def eval_recursive(self, values: list[Any], results: list[Any], depth: int) -> None:
        """Every value that has children, each before its descendants; leaves are not included."""
        if depth > MAX_NESTING:
            raise JSONPathError(f"data nested deeper than {MAX_NESTING} levels")
        for value in values:
            children = self.children(value)
            self.spend(1 + len(children))
            if children:
                results.append(value)
                self.eval_recursive(children, results, depth + 1)

    def eval_union(self, values: list[Any], node: _Union) -> list[Any]:
        results: list[Any] = []
        for member in node.lists:
            try:
                results.extend(self.eval_list(values, member))
            except _EvalError as fail:
                raise _EvalError(fail.message, values) from None
        return results

    def eval_identifier(self, values: list[Any], node: _Identifier) -> list[Any]:
        if node.name == "range":
            self.begin_range += 1
            return values
        if node.name == "end":
            if self.in_range > 0:
                self.end_range += 1
                return []
            raise _EvalError("not in range, nothing to end", [])
        raise _EvalError(f"unrecognized identifier {node.name}", values)


def evaluate_template(template: str, data: Any, *, allow_missing_keys: bool = False) -> str:
    """Parse ``template`` and print its results over ``data`` as client-go's ``JSONPath.Execute`` does.

    Literal text is copied; the values of one ``{...}`` are joined by single spaces and consecutive
    blocks are concatenated. Strings print raw, numbers as Go's ``%v`` of a float64, maps and lists as
    compact JSON with sorted keys. Raises JSONPathError for a template that does not parse, a failure
    on the data (``<key> is not found`` unless ``allow_missing_keys``), or one exceeding the bounds.
    """
    if len(template) > MAX_TEMPLATE_LENGTH:
        raise JSONPathError(f"template longer than {MAX_TEMPLATE_LENGTH} characters")
    run = _Run(_Parser(template, 0).parse(), allow_missing_keys)
    groups = run.find_results(_NOTHING if data is None else data, 0)
    out = _Output()
    for group in groups:
        for i, value in enumerate(group):
            if i:
                out.write(" ")
            if _is_container(value):
                out.json(value)
            else:
                out.text(value)
    return "".join(out.parts)
