"""YAML output for rendered manifests: kubectl-style block YAML that YAML 1.1 and 1.2 readers read alike.

(The input side, ``load_yaml_documents``, is in ``yaml_input`` and re-exported here.)

A purpose-built emitter rather than PyYAML: ``CSafeDumper`` is an order of magnitude slower (it was the
bottleneck of a render) and leaves strings such as ``1e10``, ``0o17`` or ``035e2982`` plain, which YAML 1.2
readers load as numbers, while YAML 1.2 emitters leave ``yes``/``on`` plain, which YAML 1.1 readers (go-yaml
v2, hence kubectl) load as booleans. A string is written plain only when it passes a safe-character
allowlist and is none of the implicit types of YAML 1.1, YAML 1.2 (core schema) or go-yaml v2; everything
else is double-quoted with JSON escapes; multi-line strings become literal block scalars where that
round-trips exactly.

Pure: no I/O, no configuration, no PyYAML representers. The one module-level mutable object is a bounded
memo of a pure function (see ``_MEMOISED_LENGTH``), which cannot change what is written.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

# The input half of the codec lives in yaml_input; it is re-exported so that callers import one module.
from gitops_karmada.core.codecs.yaml_input import LoadedDocument, YamlSyntaxError, load_yaml_documents

__all__ = ["LoadedDocument", "YamlSyntaxError", "dump_yaml", "dump_yaml_documents", "load_yaml_documents"]

# The plain-scalar grammar, restricted to what every reader accepts in block context: printable characters
# only (``str.isprintable`` rules out controls, tabs, line breaks, NEL, U+2028/9, the BOM and surrogates,
# which YAML 1.1 or 1.2 treat specially), no indicator or space first, no ": " or " #", no trailing ":"/space.
_NOT_PLAIN_FIRST = frozenset(" -?:,[]{}#&*!|>'\"%@`")

# Strings a reader resolves to something else: every implicit type of YAML 1.1 (PyYAML, libyaml), the YAML 1.2
# core schema (ruamel) and go-yaml v2 (which also reads 1e3, 0o17, +1 and 08 as numbers), with some margin.
_KEYWORDS = ("y", "n", "yes", "no", "true", "false", "on", "off", "null", "~", "<<", "=")  # any casing
_KEYWORDS_ANY_CASE = frozenset(
    "".join(variant)
    for keyword in _KEYWORDS
    for variant in itertools.product(*[{char.lower(), char.upper()} for char in keyword])
)
_NUMBER_OR_DATE = re.compile(
    r"""
      [-+]?(?:[0-9_]+\.?[0-9_]*|\.[0-9_]+)(?:[eE][-+]?[0-9_]+)?\Z  # 12, 017, 08, 1_000, 1e3, 1.5, 1., .5
    | [-+]?0(?:[xX][0-9a-fA-F_]+|[oO][0-7_]+|[bB][01_]+)\Z          # 0x1F, 0o17, 0b101
    | [-+]?[0-9][0-9_]*(?::[0-9_]+)+(?:\.[0-9_]*)?\Z               # YAML 1.1 sexagesimal: 12:30, 1:20:30.5
    | [-+]?\.(?i:inf|nan)\Z                                        # .inf, -.Inf, .NaN
    | [0-9]{4}-[0-9]{1,2}-[0-9]{1,2}                               # dates and timestamps (any suffix)
    """,
    re.VERBOSE,
)
# Document markers "---" and "..." start with "-" or "." too (a top-level key is at column 0).
_NUMBER_DATE_OR_MARKER_START = frozenset("0123456789-+._")
_NUMBER_CHARACTERS = "0123456789abcdefABCDEF_.:+-xXoOiInN"  # .inf and .nan too
# go-yaml v2 deletes every "_" before it parses a number ("0_x1F" is 31).
_NUMBER_WITHOUT_UNDERSCORES = re.compile(
    r"[-+]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|0(?:[xX][0-9a-fA-F]+|[oO][0-7]+|[bB][01]+))\Z"
)

# What a double-quoted scalar escapes: quote, backslash, C0/C1 controls, DEL, YAML 1.1 line breaks, the BOM,
# surrogates and the two non-characters outside YAML's printable set. Everything else is written as is.
_NEEDS_ESCAPE = re.compile('["\\\\\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff]')
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}

# A literal block scalar can hold tabs and line feeds but no other character outside the printable set.
_NOT_LITERAL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff]")

# Readers give up on implicit keys longer than 1024 characters; longer keys are written as "? key".
_MAX_IMPLICIT_KEY = 1024

# Strings up to this length have their written form memoised (a pure function of the string, so the cache
# is invisible: bounded, thread-safe and without effect on the output). Manifests repeat the same keys and
# values endlessly, and deciding plain vs quoted is the emitter's most expensive step; long strings (say a
# last-applied-configuration annotation) are rare and would only fill memory.
_MEMOISED_LENGTH = 128
_MEMOISED_STRINGS = 8192

_FAST_TYPES = frozenset({str, dict, list, int, bool, type(None)})


class _UnserializableError(Exception):
    """Raised by the emitter; ``dump_yaml`` then walks the value again to name the offending path."""


def dump_yaml(obj: object) -> str:
    """One YAML document (block style, 2-space indent, keys in insertion order), ending with one newline.

    Mappings need ``str`` keys (``TypeError`` naming the path otherwise); values are ``str``, ``int``,
    ``float``, ``bool``, ``None``, mappings, lists and tuples (subclasses such as ``StrEnum`` included).
    """
    out: list[str] = []
    try:
        _emit_document(obj, out)
    except _UnserializableError:
        problem = _find_unserializable(obj, "") or "unsupported value"
        raise TypeError(f"cannot serialise to YAML: {problem}") from None
    except RecursionError:
        raise ValueError(
            "cannot serialise to YAML: the value is nested too deeply or contains itself"
        ) from None
    return "".join(out)


def dump_yaml_documents(objs: Iterable[object]) -> str:
    """A YAML stream: each object as by ``dump_yaml``, joined with ``---`` lines (empty input: ``""``)."""
    return "---\n".join([dump_yaml(obj) for obj in objs])


def _emit_document(obj: object, out: list[str]) -> None:
    value, kind = _normalised(obj)
    if kind is dict and value:
        _emit_mapping(value, "", "", out)
    elif kind is list and value:
        _emit_sequence(value, "", "", out)
    elif kind is str and "\n" in value:
        header = _literal_header(value, top_level=True)
        if header is None:
            out.append(_flow_string(value) + "\n")
        else:
            out.append(header + "\n")
            _emit_literal_lines(value, "  ", out)
    else:
        out.append(_scalar_text(value, kind) + "\n")


def _emit_mapping(mapping: Mapping[Any, Any], indent: str, first: str, out: list[str]) -> None:
    """Entries at ``indent``; the first line starts with ``first`` instead when given (``- `` of an item)."""
    # Common types inlined, globals bound to locals: this loop is where the emitter spends its time.
    append = out.append
    keywords = _KEYWORDS_ANY_CASE
    head_indent = first or indent
    nested = indent + "  "
    for key, value in mapping.items():
        if type(key) is str and key.isalpha() and key not in keywords and len(key) <= _MAX_IMPLICIT_KEY:
            head = f"{head_indent}{key}:"
        else:
            head = _key_head(key, head_indent, indent, out)
        head_indent = indent
        kind = type(value)
        if kind is str:
            if value.isalpha() and value not in keywords:
                append(f"{head} {value}\n")
            elif "\n" not in value:
                append(f"{head} {_flow_string(value)}\n")
            else:
                _emit_value(head, value, nested, indent, False, out)
        elif kind is dict and value:
            append(head + "\n")
            _emit_mapping(value, nested, "", out)
        elif kind is list and value:
            append(head + "\n")
            _emit_sequence(value, indent, "", out)  # kubectl style: items not indented under the key
        elif kind is int:
            append(f"{head} {int.__repr__(value)}\n")
        else:
            _emit_value(head, value, nested, indent, False, out)


def _emit_sequence(sequence: Sequence[Any], indent: str, first: str, out: list[str]) -> None:
    """Items (``- ``) at ``indent``; the first line starts with ``first`` instead when given."""
    append = out.append
    head = (first or indent) + "-"
    item_head = indent + "-"
    nested = indent + "  "
    for value in sequence:
        kind = type(value)
        if kind is str and "\n" not in value:
            append(f"{head} {_flow_string(value)}\n")
        elif kind is dict and value:
            _emit_mapping(value, nested, head + " ", out)  # compact: "- key: value"
        else:
            _emit_value(head, value, nested, nested, True, out)
        head = item_head


def _emit_value(
    head: str, value: object, nested: str, sequence_indent: str, compact: bool, out: list[str]
) -> None:
    """Any value after ``head`` (``key:`` or ``-``); the loops inline the common cases of this.

    Nested mappings are indented to ``nested``, nested sequences to ``sequence_indent``. ``compact`` (for
    sequence items) starts a nested collection on the head's line: ``- name: x``, ``- - x``.
    """
    data, kind = _normalised(value)
    if kind is str:
        header = _literal_header(data, top_level=False) if "\n" in data else None
        if header is None:
            out.append(f"{head} {_flow_string(data)}\n")
        else:
            out.append(f"{head} {header}\n")
            _emit_literal_lines(data, nested, out)
    elif (kind is dict or kind is list) and data:
        if not compact:
            out.append(head + "\n")
        first = head + " " if compact else ""
        if kind is dict:
            _emit_mapping(data, nested, first, out)
        else:
            _emit_sequence(data, sequence_indent, first, out)
    else:
        out.append(f"{head} {_scalar_text(data, kind)}\n")


def _key_head(key: object, head_indent: str, indent: str, out: list[str]) -> str:
    """``key:`` for an entry, after writing ``? key`` first when the key is too long to be implicit."""
    if type(key) is not str:
        if not isinstance(key, str):
            raise _UnserializableError
        key = str.__str__(key)
    key_text = _flow_string(key)
    if len(key_text) > _MAX_IMPLICIT_KEY:
        out.append(f"{head_indent}? {key_text}\n")
        return indent + ":"
    return f"{head_indent}{key_text}:"


def _normalised(value: object) -> tuple[Any, type]:
    """``value`` as one of the emitter's base types, and that type (``dict`` for any mapping, ``list`` for
    tuples too); ``bool`` is tested before ``int`` because it is one."""
    kind = type(value)
    if kind in _FAST_TYPES or kind is float:
        return value, kind
    if isinstance(value, str):
        return str.__str__(value), str
    if isinstance(value, bool):
        return bool(value), bool
    if isinstance(value, int):
        return int(value), int
    if isinstance(value, float):
        return float(value), float
    if isinstance(value, Mapping):
        return value, dict
    if isinstance(value, list | tuple):
        return value, list
    raise _UnserializableError


def _scalar_text(value: Any, kind: type) -> str:
    """A scalar on its own line: strings, empty collections, numbers, booleans and null."""
    if kind is str:
        return _flow_string(value)
    if kind is int:
        return int.__repr__(value)
    if kind is bool:
        return "true" if value else "false"
    if kind is float:
        return _float_text(value)
    if kind is dict:
        return "{}"
    if kind is list:
        return "[]"
    return "null"


def _float_text(value: float) -> str:
    """A float both YAML 1.1 (which needs a dot and a signed exponent) and YAML 1.2 read back exactly."""
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value)  # shortest round-tripping digits: "1.5", "1e+16", "1.5e-07"
    mantissa, e, exponent = text.partition("e")
    if e and "." not in mantissa:
        return f"{mantissa}.0e{exponent}"
    return text


def _flow_string(text: str) -> str:
    """``text`` as a one-line scalar: plain when that is unambiguous, else double-quoted."""
    if text.isalpha():  # the common case (most keys), decided without a regular expression
        return f'"{text}"' if text in _KEYWORDS_ANY_CASE else text
    if len(text) <= _MEMOISED_LENGTH:
        return _memoised_string_text(text)
    return _string_text(text)


def _string_text(text: str) -> str:
    """What ``_flow_string`` returns, worked out in full."""
    if text.isdigit() and text.isascii():  # "3", "1024", "017": an int for every reader
        return f'"{text}"'
    if not text.isprintable():
        return _double_quoted(text)
    if not text or ": " in text or " #" in text or text[-1] in ": ":
        return _quoted_printable(text)
    first = text[0]
    if first in _NUMBER_DATE_OR_MARKER_START:
        if (first == "-" and text[1:2] in ("", " ")) or text[:3] in ("---", "..."):  # "-x" is plain
            return _quoted_printable(text)
        # Only strings of digits, signs, dots, colons, underscores and base/exponent letters can be numbers,
        # and dates have a "-" at [4]: the regular expressions, the slow part, see nothing else.
        if (not text.strip(_NUMBER_CHARACTERS) or text[4:5] == "-") and (
            _NUMBER_OR_DATE.match(text) is not None
            or ("_" in text and _NUMBER_WITHOUT_UNDERSCORES.match(text.replace("_", "")) is not None)
        ):
            return _quoted_printable(text)
        return text
    if first in _NOT_PLAIN_FIRST or text in _KEYWORDS_ANY_CASE:
        return _quoted_printable(text)
    return text


_memoised_string_text = functools.lru_cache(maxsize=_MEMOISED_STRINGS)(_string_text)


def _quoted_printable(text: str) -> str:
    """A double-quoted printable string: only quotes and backslashes need escapes."""
    if '"' in text or "\\" in text:
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return f'"{text}"'


def _double_quoted(text: str) -> str:
    """A double-quoted string with JSON escapes (a JSON string is a valid YAML double-quoted scalar)."""
    if _NEEDS_ESCAPE.search(text) is None:
        return f'"{text}"'
    return '"' + _NEEDS_ESCAPE.sub(_escape, text) + '"'


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    return _ESCAPES.get(char) or f"\\u{ord(char):04x}"


def _literal_header(text: str, *, top_level: bool) -> str | None:
    """The ``|`` header that makes a literal block scalar read back as ``text``, or None if none does."""
    if _NOT_LITERAL.search(text) is not None or not text.strip("\n"):
        return None
    # An indentation indicator keeps leading spaces, tabs and blank lines out of the detected
    # indentation. It counts from the parent collection's column, which is the content column minus 2.
    # For a top-level scalar the YAML spec (parent indentation -1) and libyaml-derived readers (0) disagree
    # on what it means, so such a string is double-quoted instead.
    indicator = ""
    if text[0] in " \t\n":
        if top_level:
            return None
        indicator = "2"
    if not text.endswith("\n"):
        return f"|{indicator}-"
    if text.endswith("\n\n"):
        return f"|{indicator}+"
    return f"|{indicator}"


def _emit_literal_lines(text: str, indent: str, out: list[str]) -> None:
    """The lines of a literal block scalar; the header's chomping indicator accounts for the last newline."""
    # Empty lines are written without indentation, so the output never has trailing whitespace of its own.
    lines = text[:-1].split("\n") if text.endswith("\n") else text.split("\n")
    out.extend([f"{indent}{line}\n" if line else "\n" for line in lines])


def _find_unserializable(value: object, path: str) -> str | None:
    """Describes the first key or value the emitter rejects, with its path (``spec.ports[0]``)."""
    where = path or "the top level"
    if isinstance(value, str | bool | int | float) or value is None:
        return None
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"mapping key {key!r} ({type(key).__name__}) at {where}: only str keys are allowed"
            found = _find_unserializable(item, f"{path}.{key}" if path else key)
            if found is not None:
                return found
        return None
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            found = _find_unserializable(item, f"{path}[{index}]")
            if found is not None:
                return found
        return None
    return f"value of type {type(value).__name__} at {where}: not a JSON type"
