"""go-yaml v2 ``yaml.Marshal`` of decoded JSON, byte for byte (sigs.k8s.io/yaml ``JSONToYAML`` output).

A port of the parts of go-yaml v2's encoder and libyaml-derived emitter that decoded JSON reaches: block
mappings with keys in go-yaml's "natural" order (digit runs compare as numbers), block sequences not
indented under their key, ``{}``/``[]`` for empty collections, 2-space indent, 80-column folding of long
plain and quoted scalars, literal ``|`` blocks for multi-line strings, ``?`` complex keys for keys longer
than 128 bytes or spanning lines, and go-yaml's quoting of strings that would read back as another type
(``"3306"``, ``"true"``, ``"1e3"``, ``"2001-02-03"``, ``"1:20"``). PyYAML's dumper differs in too many of
these details to be bent into shape. Pure: values in, text out.
"""

from __future__ import annotations

import enum
import functools
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from gitops_karmada.core.codecs.gojson import format_float_g
from gitops_karmada.core.codecs.yaml11 import STR_TAG, is_base60_float, resolve

__all__ = ["marshal", "natural_key_less"]

_BEST_INDENT = 2
_BEST_WIDTH = 80
_INT64_MASK = (1 << 64) - 1
_BREAKS = frozenset("\r\n\x85\u2028\u2029")


class _Style(enum.Enum):
    PLAIN = enum.auto()
    SINGLE_QUOTED = enum.auto()
    DOUBLE_QUOTED = enum.auto()
    LITERAL = enum.auto()


def _wrap_int64(value: int) -> int:
    value &= _INT64_MASK
    return value - (1 << 64) if value >= 1 << 63 else value


def _is_letter(char: str) -> bool:
    return unicodedata.category(char).startswith("L")


def _is_digit(char: str) -> bool:
    return unicodedata.category(char) == "Nd"


def natural_key_less(a: str, b: str) -> bool:
    """go-yaml v2 ``keyList.Less`` for two string keys."""
    for i in range(min(len(a), len(b))):
        if a[i] == b[i]:
            continue
        a_letter, b_letter = _is_letter(a[i]), _is_letter(b[i])
        if a_letter and b_letter:
            return a[i] < b[i]
        if a_letter or b_letter:
            return b_letter
        a_number = b_number = 0
        if a[i] == "0" or b[i] == "0":
            j = i - 1
            while j >= 0 and _is_digit(a[j]):
                if a[j] != "0":
                    a_number = b_number = 1
                    break
                j -= 1
        a_end = i
        while a_end < len(a) and _is_digit(a[a_end]):
            a_number = _wrap_int64(a_number * 10 + (ord(a[a_end]) - ord("0")))
            a_end += 1
        b_end = i
        while b_end < len(b) and _is_digit(b[b_end]):
            b_number = _wrap_int64(b_number * 10 + (ord(b[b_end]) - ord("0")))
            b_end += 1
        if a_number != b_number:
            return a_number < b_number
        if a_end != b_end:
            return a_end < b_end
        return a[i] < b[i]
    return len(a) < len(b)


def _natural_compare(a: str, b: str) -> int:
    if natural_key_less(a, b):
        return -1
    if natural_key_less(b, a):
        return 1
    return 0


_natural_sort_key = functools.cmp_to_key(_natural_compare)


def _is_printable(char: str) -> bool:
    code = ord(char)
    return (
        code == 0x0A
        or 0x20 <= code <= 0x7E
        or 0xA0 <= code <= 0xD7FF
        or (0xE000 <= code <= 0xFFFD and code != 0xFEFF)
    )


def _is_blankz(char: str) -> bool:
    return char in " \t\0" or char in _BREAKS


class _Analysis:
    """libyaml ``yaml_emitter_analyze_scalar`` for block context: which styles carry a value unchanged."""

    __slots__ = ("block_allowed", "block_plain_allowed", "multiline", "single_quoted_allowed")

    def __init__(self, value: str) -> None:
        self.multiline = False
        self.block_plain_allowed = self.single_quoted_allowed = True
        self.block_allowed = bool(value)
        if not value:
            return
        block_indicators = value.startswith(("---", "..."))
        line_breaks = special_characters = False
        leading_space = leading_break = trailing_space = trailing_break = False
        break_space = space_break = previous_space = previous_break = False
        preceded_by_whitespace = True
        last = len(value) - 1
        for i, char in enumerate(value):
            followed_by_whitespace = i == last or value[i + 1] in " \t"
            if i == 0:
                indicator = char in "#,[]{}&*!|>'\"%@`" or (char in "?:-" and followed_by_whitespace)
            else:
                indicator = (char == ":" and followed_by_whitespace) or (
                    char == "#" and preceded_by_whitespace
                )
            block_indicators = block_indicators or indicator
            if not _is_printable(char):
                special_characters = True
            if char == " ":
                leading_space = leading_space or i == 0
                trailing_space = trailing_space or i == last
                break_space = break_space or previous_break
                previous_space, previous_break = True, False
            elif char in _BREAKS:
                line_breaks = True
                leading_break = leading_break or i == 0
                trailing_break = trailing_break or i == last
                space_break = space_break or previous_space
                previous_space, previous_break = False, True
            else:
                previous_space = previous_break = False
            preceded_by_whitespace = _is_blankz(char)
        self.multiline = line_breaks
        if (
            leading_space
            or leading_break
            or trailing_space
            or trailing_break
            or line_breaks
            or block_indicators
        ):
            self.block_plain_allowed = False
        if trailing_space:
            self.block_allowed = False
        if break_space:
            self.block_plain_allowed = self.single_quoted_allowed = False
        if space_break or special_characters:
            self.block_plain_allowed = self.single_quoted_allowed = self.block_allowed = False


_SIMPLE_ESCAPES = {
    "\0": "0", "\x07": "a", "\b": "b", "\t": "t", "\n": "n", "\x0b": "v", "\x0c": "f", "\r": "r",
    "\x1b": "e", '"': '"', "\\": "\\", "\x85": "N", "\xa0": "_", "\u2028": "L", "\u2029": "P",
}  # fmt: skip


class _Emitter:
    """The emitter state machine of go-yaml v2 (``emitterc.go``), driven recursively.

    Decoded JSON only reaches block collections and empty ``{}``/``[]``, so the emitter never writes a
    scalar inside a flow collection and the flow-context branches of libyaml are left out.
    """

    def __init__(self) -> None:
        self.out: list[str] = []
        self.column = 0
        self.whitespace = True
        self.indention = True
        self.indent = -1
        self.indents: list[int] = []
        self.mapping_context = self.simple_key_context = False

    # -- low-level writers -----------------------------------------------------------------------------
    def put(self, char: str) -> None:
        self.out.append(char)
        self.column += 1

    def put_break(self) -> None:
        self.out.append("\n")
        self.column = 0

    def write_break(self, char: str) -> None:
        if char == "\n":
            self.put_break()
        else:
            self.out.append(char)
            self.column = 0

    def write_indicator(
        self, indicator: str, need_whitespace: bool, is_whitespace: bool, is_indention: bool
    ) -> None:
        if need_whitespace and not self.whitespace:
            self.put(" ")
        for char in indicator:
            self.put(char)
        self.whitespace = is_whitespace
        self.indention = self.indention and is_indention

    def write_indent(self) -> None:
        indent = max(self.indent, 0)
        if not self.indention or self.column > indent or (self.column == indent and not self.whitespace):
            self.put_break()
        while self.column < indent:
            self.put(" ")
        self.whitespace = True
        self.indention = True

    def increase_indent(self, flow: bool, indentless: bool) -> None:
        self.indents.append(self.indent)
        if self.indent < 0:
            self.indent = _BEST_INDENT if flow else 0
        elif not indentless:
            self.indent += _BEST_INDENT

    # -- nodes -----------------------------------------------------------------------------------------
    def emit_document(self, value: Any) -> str:
        self.emit_node(value, mapping=False, simple_key=False)
        self.write_indent()  # implicit document end
        # go-yaml v2 writes no "..." stream end marker here (``Marshal(nil)`` is "null\n")
        return "".join(self.out)

    def emit_node(self, value: Any, *, mapping: bool, simple_key: bool) -> None:
        self.mapping_context, self.simple_key_context = mapping, simple_key
        if isinstance(value, Mapping):
            if value:
                self.emit_block_mapping(value)
            else:
                self.emit_empty_flow("{", "}")
        elif isinstance(value, Sequence) and not isinstance(value, str):
            if value:
                self.emit_block_sequence(value)
            else:
                self.emit_empty_flow("[", "]")
        else:
            text, style = _scalar_text(value)
            self.emit_scalar(text, style, _Analysis(text))

    def emit_empty_flow(self, opener: str, closer: str) -> None:
        self.write_indicator(opener, True, True, False)
        self.write_indicator(closer, False, False, False)

    def emit_block_sequence(self, items: Sequence[Any]) -> None:
        self.increase_indent(False, self.mapping_context and not self.indention)
        for item in items:
            self.write_indent()
            self.write_indicator("-", True, False, True)
            self.emit_node(item, mapping=False, simple_key=False)
        self.indent = self.indents.pop()

    def emit_block_mapping(self, mapping: Mapping[str, Any]) -> None:
        self.increase_indent(False, False)
        for key in sorted(mapping, key=_natural_sort_key):
            value = mapping[key]
            self.write_indent()
            key_text, key_style = _scalar_text(key)
            analysis = _Analysis(key_text)
            # check_simple_key: a one-line key of at most 128 bytes, else a "? key" / ": value" pair
            if not analysis.multiline and len(key_text.encode("utf-8", "surrogatepass")) <= 128:
                self.mapping_context = self.simple_key_context = True
                self.emit_scalar(key_text, key_style, analysis)
                self.write_indicator(":", False, False, False)
            else:
                self.write_indicator("?", True, False, True)
                self.mapping_context, self.simple_key_context = True, False
                self.emit_scalar(key_text, key_style, analysis)
                self.write_indent()
                self.write_indicator(":", True, False, True)
            self.emit_node(value, mapping=True, simple_key=False)
        self.indent = self.indents.pop()

    def select_style(self, requested: _Style, analysis: _Analysis, value: str) -> _Style:
        style = requested
        if self.simple_key_context and analysis.multiline:
            style = _Style.DOUBLE_QUOTED
        if style is _Style.PLAIN and (
            not analysis.block_plain_allowed or (not value and self.simple_key_context)
        ):
            style = _Style.SINGLE_QUOTED
        if style is _Style.SINGLE_QUOTED and not analysis.single_quoted_allowed:
            style = _Style.DOUBLE_QUOTED
        if style is _Style.LITERAL and (not analysis.block_allowed or self.simple_key_context):
            style = _Style.DOUBLE_QUOTED
        return style

    def emit_scalar(self, value: str, requested: _Style, analysis: _Analysis) -> None:
        style = self.select_style(requested, analysis, value)
        self.increase_indent(True, False)
        allow_breaks = not self.simple_key_context
        match style:
            case _Style.PLAIN:
                self.write_plain(value, allow_breaks)
            case _Style.SINGLE_QUOTED:
                self.write_single_quoted(value, allow_breaks)
            case _Style.DOUBLE_QUOTED:
                self.write_double_quoted(value, allow_breaks)
            case _Style.LITERAL:
                self.write_literal(value)
        self.indent = self.indents.pop()

    # -- scalar writers --------------------------------------------------------------------------------
    def write_plain(self, value: str, allow_breaks: bool) -> None:
        if not self.whitespace:
            self.put(" ")
        spaces = breaks = False
        for i, char in enumerate(value):
            if char == " ":
                next_is_space = i + 1 < len(value) and value[i + 1] == " "
                if allow_breaks and not spaces and self.column > _BEST_WIDTH and not next_is_space:
                    self.write_indent()
                else:
                    self.put(char)
                spaces = True
            elif char in _BREAKS:
                if not breaks and char == "\n":
                    self.put_break()
                self.write_break(char)
                self.indention = True
                breaks = True
            else:
                if breaks:
                    self.write_indent()
                self.put(char)
                self.indention = False
                spaces = breaks = False
        self.whitespace = False
        self.indention = False

    def write_single_quoted(self, value: str, allow_breaks: bool) -> None:
        self.write_indicator("'", True, False, False)
        spaces = breaks = False
        last = len(value) - 1
        for i, char in enumerate(value):
            if char == " ":
                next_is_space = i < last and value[i + 1] == " "
                if (
                    allow_breaks
                    and not spaces
                    and self.column > _BEST_WIDTH
                    and 0 < i < last
                    and not next_is_space
                ):
                    self.write_indent()
                else:
                    self.put(char)
                spaces = True
            elif char in _BREAKS:
                if not breaks and char == "\n":
                    self.put_break()
                self.write_break(char)
                self.indention = True
                breaks = True
            else:
                if breaks:
                    self.write_indent()
                if char == "'":
                    self.put("'")
                self.put(char)
                self.indention = False
                spaces = breaks = False
        self.write_indicator("'", False, False, False)
        self.whitespace = False
        self.indention = False

    def write_double_quoted(self, value: str, allow_breaks: bool) -> None:
        self.write_indicator('"', True, False, False)
        spaces = False
        last = len(value) - 1
        for i, char in enumerate(value):
            if not _is_printable(char) or char == "\ufeff" or char in _BREAKS or char in '"\\':
                self.put("\\")
                short = _SIMPLE_ESCAPES.get(char)
                if short is not None:
                    self.put(short)
                else:
                    code = ord(char)
                    prefix, width = ("x", 2) if code <= 0xFF else ("u", 4) if code <= 0xFFFF else ("U", 8)
                    self.put(prefix)
                    for digit in f"{code:0{width}X}":
                        self.put(digit)
                spaces = False
            elif char == " ":
                if allow_breaks and not spaces and self.column > _BEST_WIDTH and 0 < i < last:
                    self.write_indent()
                    if value[i + 1] == " ":
                        self.put("\\")
                else:
                    self.put(char)
                spaces = True
            else:
                self.put(char)
                spaces = False
        self.write_indicator('"', False, False, False)
        self.whitespace = False
        self.indention = False

    def write_block_scalar_hints(self, value: str) -> None:
        if value[:1] == " " or value[:1] in _BREAKS:
            self.write_indicator(str(_BEST_INDENT), False, False, False)
        chomp = ""
        if not value or value[-1] not in _BREAKS:
            chomp = "-"
        elif len(value) == 1 or value[-2] in _BREAKS:
            chomp = "+"  # keep: the value ends with an empty line
        if chomp:
            self.write_indicator(chomp, False, False, False)

    def write_literal(self, value: str) -> None:
        self.write_indicator("|", True, False, False)
        self.write_block_scalar_hints(value)
        self.put_break()
        self.indention = True
        self.whitespace = True
        breaks = True
        for char in value:
            if char in _BREAKS:
                self.write_break(char)
                self.indention = True
                breaks = True
            else:
                if breaks:
                    self.write_indent()
                self.put(char)
                self.indention = False
                breaks = False


def _scalar_text(value: Any) -> tuple[str, _Style]:
    """go-yaml's encoder: a scalar's text and the style it asks the emitter for."""
    if value is None:
        return "null", _Style.PLAIN
    if value is True:
        return "true", _Style.PLAIN
    if value is False:
        return "false", _Style.PLAIN
    if isinstance(value, int):
        return str(value), _Style.PLAIN
    if isinstance(value, float):
        text = format_float_g(value)
        return {"+Inf": ".inf", "-Inf": "-.inf", "NaN": ".nan"}.get(text, text), _Style.PLAIN
    text = str(value)
    resolved_tag, _ = resolve("", text)
    can_use_plain = resolved_tag == STR_TAG and not is_base60_float(text)
    if "\n" in text:
        return text, _Style.LITERAL
    return text, _Style.PLAIN if can_use_plain else _Style.DOUBLE_QUOTED


def marshal(value: Any) -> str:
    """``yaml.Marshal(value)`` of go-yaml v2 for decoded JSON (str keys, lists, scalars)."""
    return _Emitter().emit_document(value)
