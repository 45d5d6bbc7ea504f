"""YAML input read as Kubernetes reads it: libyaml's parser, go-yaml v2's values (YAML 1.1-ish).

kubectl, Flux and Argo CD decode manifests with sigs.k8s.io/yaml, i.e. go-yaml v2 into ``interface{}``. Where
PyYAML's ``SafeLoader`` differs, this module does what go-yaml v2 does:

* timestamps stay strings (``2024-01-01``), sexagesimal numbers are strings (``12:30``);
* ``y``/``n``/``yes``/``no``/``on``/``off`` in the usual casings are booleans, and so on for the whole go-yaml
  resolve table; numbers are what Go's ``strconv`` accepts after go-yaml drops every ``_`` (``1e3``,
  ``0o17``, ``+1`` and ``08`` are numbers, ``1e400`` is a string);
* local tags (``!foo``) are ignored (a tagged scalar is its text), ``!!binary`` is decoded to text;
* an alias is a fresh copy of its anchor's value, and go-yaml's "excessive aliasing" guard applies.

Stricter than Kubernetes, on purpose: a mapping key must be a string, so ``on:``, ``y:`` or ``1:`` must be
quoted (sigs.k8s.io/yaml would silently turn them into ``"true"`` and ``"1"``), and a key may occur once per
mapping (as in go-yaml v3 and ``UnmarshalStrict``); the errors name the line. ``<<`` merges follow the YAML
merge-key spec (explicit keys win wherever they are; go-yaml v2's non-strict decoder lets a later ``<<``
overwrite earlier explicit keys). A tag of YAML's own ``!!`` namespace that Kubernetes has no type for
(``!!python/object``) is an error instead of a silent change of type, and a document may nest at
most ``MAX_DEPTH`` levels, so no input can exhaust the recursion of the code that walks it later.

Pure: parses the bytes or text it is given, nothing else.
"""

from __future__ import annotations

import binascii
import math
import re
from dataclasses import dataclass
from typing import Any, Final

import yaml

from gitops_karmada.model.errors import InputError

if not getattr(yaml, "__with_libyaml__", False):  # pragma: no cover - depends on how PyYAML was built
    raise ImportError(
        "gitops-karmada needs PyYAML built with libyaml (yaml.CSafeLoader); "
        "reinstall it with the libyaml headers available (e.g. apt-get install libyaml-dev)"
    )

__all__ = [
    "KubernetesLoader",
    "LoadedDocument",
    "YamlSyntaxError",
    "load_yaml_documents",
    "resolve_plain_scalar",
]


@dataclass(frozen=True, slots=True)
class LoadedDocument:
    """One document of a YAML stream: its 0-based position, its value (None if empty) and first line."""

    index: int
    body: Any
    line: int
    """1-based: the line of an explicit document's first directive or ``---``, else of its first token."""

    def __reduce__(self) -> tuple[type[LoadedDocument], tuple[int, Any, int]]:
        # the decode cache unpickles 7,500 files a cold run: the constructor is cheaper than the state-setting
        # a slotted dataclass pickles by default, which looks its fields up for every object
        return LoadedDocument, (self.index, self.body, self.line)


class YamlSyntaxError(InputError):
    """The stream is not YAML, or not YAML that Kubernetes accepts; ``line``/``column`` are 1-based."""

    def __init__(self, message: str, line: int, column: int, doc_index: int) -> None:
        super().__init__(f"line {line} column {column}: {message}")
        self.problem = message
        self.line = line
        self.column = column
        self.doc_index = doc_index


def load_yaml_documents(data: bytes | str) -> list[LoadedDocument]:
    """Every document of a YAML stream (empty ones too, body None), with the values Kubernetes sees."""
    raw = _as_bytes(data)
    loader = KubernetesLoader(raw)
    try:
        return loader.load_documents()
    finally:
        loader.dispose()


# -- scalar resolution: go-yaml v2's resolve.go --------------------------------------------------------------

_STR: Final = "tag:yaml.org,2002:str"
_INT: Final = "tag:yaml.org,2002:int"
_FLOAT: Final = "tag:yaml.org,2002:float"
_BOOL: Final = "tag:yaml.org,2002:bool"
_NULL: Final = "tag:yaml.org,2002:null"
_TIMESTAMP: Final = "tag:yaml.org,2002:timestamp"
_MERGE: Final = "tag:yaml.org,2002:merge"
_BINARY: Final = "tag:yaml.org,2002:binary"
_RESOLVABLE: Final = frozenset({_INT, _FLOAT, _BOOL, _NULL, _TIMESTAMP, _MERGE})
_STANDARD_PREFIX: Final = "tag:yaml.org,2002:"
# YAML 1.1's own types (yaml.org/type): go-yaml v2 reads the collection ones as plain mappings/sequences.
# Anything else in the ``!!`` namespace is a language-specific type (``!!python/object``), never Kubernetes'.
_YAML_TYPES: Final = frozenset(
    _STANDARD_PREFIX + name
    for name in ("str", "int", "float", "bool", "null", "timestamp", "binary", "merge", "map", "seq",
                 "set", "omap", "pairs", "value", "yaml")
)  # fmt: skip
MAX_DEPTH: Final = 128
"""Deepest nesting of mappings and sequences a document may have (Kubernetes objects stay far below)."""

# go-yaml v2's resolveMap: looked up for plain scalars whose first character has a "hint" (below).
_WORDS: Final[dict[str, tuple[str, Any]]] = {
    **dict.fromkeys(("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), (_BOOL, True)),
    **dict.fromkeys(
        ("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), (_BOOL, False)
    ),
    **dict.fromkeys(("", "~", "null", "Null", "NULL"), (_NULL, None)),
    **dict.fromkeys((".nan", ".NaN", ".NAN"), (_FLOAT, math.nan)),
    **dict.fromkeys((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), (_FLOAT, math.inf)),
    **dict.fromkeys(("-.inf", "-.Inf", "-.INF"), (_FLOAT, -math.inf)),
}
_WORD_HINTS: Final = frozenset("yYnNtTfFoO~")
_NUMBER_HINTS: Final = frozenset("0123456789+-")

# strconv.ParseInt(s, 0, 64) / ParseUint(s, 0, 64) syntax: optional sign, 0x / 0o / 0b / 0 (octal) prefixes.
_GO_INTEGER: Final = re.compile(r"([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)\Z")
_INT64_MIN: Final = -(2**63)
_INT64_MAX: Final = 2**63 - 1
_UINT64_MAX: Final = 2**64 - 1
# go-yaml's yamlStyleFloat, the only floats it hands to strconv.ParseFloat after a digit or sign.
_YAML_STYLE_FLOAT: Final = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?\Z")
# strconv.ParseFloat on a scalar starting with ".": Go literal syntax, "_" only between digits.
_GO_DOT_FLOAT: Final = re.compile(r"\.[0-9](?:_?[0-9])*(?:[eE][-+]?[0-9](?:_?[0-9])*)?\Z")
# go-yaml v2's parseTimestamp layouts: 2006-1-2T15:4:5.999999999Z07:00, "2006-1-2 15:4:5.9", 2006-1-2.
_TIMESTAMP_TEXT: Final = re.compile(
    r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}"
    r"(?:[Tt][0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:\.[0-9]+)?(?:Z|[-+][0-9]{2}:[0-9]{2})"
    r"| [0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:\.[0-9]+)?)?\Z"
)


def resolve_plain_scalar(text: str) -> Any:
    """The value go-yaml v2 gives an untagged plain scalar decoded into ``interface{}``."""
    return _resolve(text)[1]


def _resolve(text: str) -> tuple[str, Any]:
    """go-yaml v2 ``resolve("", text)``: the tag and value of a plain scalar."""
    first = text[:1]
    if not first:
        return _NULL, None
    if first in _WORD_HINTS:
        return _WORDS.get(text) or (_STR, text)
    if first == ".":
        word = _WORDS.get(text)
        if word is not None:
            return word
        if _GO_DOT_FLOAT.match(text) is not None:
            number = float(text.replace("_", ""))
            if not math.isinf(number):  # strconv reports overflow as an error: the scalar stays a string
                return _FLOAT, number
        return _STR, text
    if first in _NUMBER_HINTS:
        word = _WORDS.get(text)
        if word is not None:
            return word
        if _TIMESTAMP_TEXT.match(text) is not None:
            return _TIMESTAMP, text  # decoded into interface{}, go-yaml v2 keeps the text
        return _resolve_number(text)
    return _STR, text


def _resolve_number(text: str) -> tuple[str, Any]:
    plain = text.replace("_", "")
    integer = _parse_go_integer(plain)
    if integer is not None:
        return _INT, integer
    if _YAML_STYLE_FLOAT.match(plain) is not None:
        number = float(plain)
        if not math.isinf(number):
            return _FLOAT, number
    # Left over from Go versions before ParseInt knew "0b": the digits after the prefix may carry a sign.
    if plain.startswith("0b"):
        integer = _parse_binary(plain[2:])
        if integer is not None:
            return _INT, integer
    elif plain.startswith("-0b"):
        integer = _parse_binary("-" + plain[3:])
        if integer is not None and integer >= _INT64_MIN:
            return _INT, integer
    return _STR, text


def _parse_go_integer(plain: str) -> int | None:
    """strconv.ParseInt(plain, 0, 64), else ParseUint(plain, 0, 64) (no sign), else None."""
    match = _GO_INTEGER.match(plain)
    if match is None:
        return None
    sign, digits = match.groups()
    if digits[:2] in ("0x", "0X", "0o", "0O", "0b", "0B"):
        magnitude = int(digits, 0)
    elif digits.startswith("0"):
        magnitude = int(digits, 8)
    else:
        magnitude = int(digits)
    value = -magnitude if sign == "-" else magnitude
    if _INT64_MIN <= value <= _INT64_MAX or (not sign and value <= _UINT64_MAX):
        return value
    return None


def _parse_binary(digits: str) -> int | None:
    """strconv.ParseInt(digits, 2, 64), else ParseUint(digits, 2, 64)."""
    if re.fullmatch(r"[-+]?[01]+", digits) is None:
        return None
    value = int(digits, 2)
    if _INT64_MIN <= value <= _INT64_MAX or (digits[0] not in "+-" and value <= _UINT64_MAX):
        return value
    return None


def _short_tag(tag: str) -> str:
    return "!!" + tag.removeprefix("tag:yaml.org,2002:")


# -- the document builder ------------------------------------------------------------------------------------

_NO_KEY: Final = object()  # a mapping waiting for its next key
_MERGE_KEY: Final = object()  # the pending key is "<<"
_BEING_BUILT: Final = object()  # an anchor whose collection is still open

# go-yaml v2 decode.go: a document may consist mostly of alias expansions only while it is small.
_ALIAS_RATIO_LOW: Final = 400_000
_ALIAS_RATIO_HIGH: Final = 4_000_000


def _allowed_alias_ratio(decoded: int) -> float:
    if decoded <= _ALIAS_RATIO_LOW:
        return 0.99
    if decoded >= _ALIAS_RATIO_HIGH:
        return 0.10
    return 0.99 - 0.89 * (decoded - _ALIAS_RATIO_LOW) / (_ALIAS_RATIO_HIGH - _ALIAS_RATIO_LOW)


class _Collection:
    """A mapping or sequence whose end event has not come yet."""

    __slots__ = ("anchor", "key", "key_lines", "key_mark", "merges", "value")

    def __init__(self, value: dict[str, Any] | list[Any], anchor: str | None) -> None:
        self.value: Any = value  # Any: the builder's hot loop tells dict from list by type() itself
        self.anchor = anchor
        self.key: object = _NO_KEY  # the pending key of a mapping, _NO_KEY, or _MERGE_KEY
        self.key_mark: Any = None  # where a pending "<<" is
        self.key_lines: dict[str, int] = {}  # each explicit key's 1-based line, for duplicate-key errors
        self.merges: list[dict[str, Any]] = []

    def is_waiting_for_key(self) -> bool:
        return self.key is _NO_KEY and type(self.value) is dict


class _DocumentError(Exception):
    """A problem found by the builder, at a libyaml mark; becomes a YamlSyntaxError with the doc index."""

    def __init__(self, message: str, mark: Any) -> None:
        super().__init__(message)
        self.message = message
        self.mark = mark


class KubernetesLoader(yaml.CSafeLoader):
    """libyaml's event parser with go-yaml v2's values (see the module docstring).

    ``load_documents`` is the full API; ``yaml.load``/``yaml.load_all(..., Loader=KubernetesLoader)`` read the
    same values through the PyYAML interface (``check_data``/``get_data``/``get_single_data``).
    """

    def __init__(self, stream: bytes | str) -> None:
        self._raw = _as_bytes(stream)
        super().__init__(self._raw)
        self._next_index = 0
        self._document_line = 0  # 0-based first line of the document being read, for error positions

    def load_documents(self) -> list[LoadedDocument]:
        documents = []
        while (document := self.next_document()) is not None:
            documents.append(document)
        return documents

    def next_document(self) -> LoadedDocument | None:
        """The next document of the stream, or None at its end."""
        try:
            if self.check_event(yaml.StreamStartEvent):
                self.get_event()
            start: Any = self.get_event()
            if isinstance(start, yaml.StreamEndEvent):
                return None
            self._document_line = start.start_mark.line
            body = self._build_document()
        except yaml.MarkedYAMLError as error:
            raise self._syntax_error(error) from None
        except yaml.reader.ReaderError as error:
            raise self._reader_error(error) from None
        except _DocumentError as error:
            raise self._error_at(error.message, error.mark.line, error.mark.column) from None
        except RecursionError:
            raise self._error_at("document nested too deeply", self._document_line, 0) from None
        document = LoadedDocument(index=self._next_index, body=body, line=self._document_line + 1)
        self._next_index += 1
        return document

    # PyYAML's loader interface, so that yaml.load(..., Loader=KubernetesLoader) gives the same values.
    def check_data(self) -> bool:
        try:
            if self.check_event(yaml.StreamStartEvent):
                self.get_event()
            return not self.check_event(yaml.StreamEndEvent)
        except yaml.MarkedYAMLError as error:
            raise self._syntax_error(error) from None
        except yaml.reader.ReaderError as error:
            raise self._reader_error(error) from None

    def get_data(self) -> Any:
        document = self.next_document()
        return None if document is None else document.body

    def get_single_data(self) -> Any:
        document = self.next_document()
        if document is not None and self.check_data():
            mark: Any = self.peek_event()
            mark = mark.start_mark
            raise self._error_at("expected a single document in the stream", mark.line, mark.column)
        return None if document is None else document.body

    def _build_document(self) -> Any:
        """The value of the document whose start event was just read; consumes its end event."""
        # One loop over libyaml's events with an explicit stack: no recursion limit on nesting, and the
        # event classes and the common scalar case are bound or inlined, as this is the loader's hot path.
        get_event = self.get_event
        scalar_event, alias_event = yaml.ScalarEvent, yaml.AliasEvent
        mapping_start, mapping_end = yaml.MappingStartEvent, yaml.MappingEndEvent
        sequence_start, sequence_end = yaml.SequenceStartEvent, yaml.SequenceEndEvent
        resolve = _resolve
        stack: list[_Collection] = []
        anchors: dict[str, Any] = {}
        decoded = 0
        aliased = 0
        root: Any = None
        while True:
            event: Any = get_event()
            kind = type(event)
            decoded += 1
            if kind is scalar_event:
                if event.value == "<<" and _is_merge_key(event) and stack and stack[-1].is_waiting_for_key():
                    stack[-1].key = _MERGE_KEY
                    stack[-1].key_mark = event.start_mark
                    continue
                if event.tag is None:
                    value = resolve(event.value)[1] if event.implicit[0] else event.value
                else:
                    value = _tagged_scalar_value(event)
                if event.anchor is not None:
                    anchors[event.anchor] = value
            elif kind is mapping_start or kind is sequence_start:
                if stack and stack[-1].is_waiting_for_key():
                    what = "mapping" if kind is mapping_start else "sequence"
                    raise _DocumentError(
                        f"mapping key is a {what}; JSON object keys must be strings", event.start_mark
                    )
                if event.tag is not None and event.tag.startswith(_STANDARD_PREFIX):
                    _check_standard_tag(event)
                if len(stack) >= MAX_DEPTH:
                    raise _DocumentError(
                        f"nested more than {MAX_DEPTH} levels deep (the limit for any document)",
                        event.start_mark,
                    )
                if event.anchor is not None:
                    anchors[event.anchor] = _BEING_BUILT
                stack.append(_Collection({} if kind is mapping_start else [], event.anchor))
                continue
            elif kind is mapping_end or kind is sequence_end:
                collection = stack.pop()
                value = collection.value
                if collection.merges:
                    value = _merged(collection.merges, value)
                if collection.anchor is not None:
                    anchors[collection.anchor] = value
            elif kind is alias_event:
                target = anchors.get(event.anchor, _NO_KEY)
                if target is _NO_KEY:
                    raise _DocumentError(f"unknown anchor '{event.anchor}' referenced", event.start_mark)
                if target is _BEING_BUILT:
                    raise _DocumentError(f"anchor '{event.anchor}' value contains itself", event.start_mark)
                value, count = _copied(target)
                decoded += count
                aliased += count
                if aliased > 100 and decoded > 1000 and aliased / decoded > _allowed_alias_ratio(decoded):
                    raise _DocumentError("document contains excessive aliasing", event.start_mark)
            elif kind is yaml.DocumentEndEvent:
                return root
            else:  # pragma: no cover - libyaml emits no other event inside a document
                raise _DocumentError(f"unexpected {kind.__name__}", event.start_mark)
            # A complete value: the root, an item, a key or a mapping value.
            if not stack:
                root = value
                continue
            parent = stack[-1]
            container = parent.value
            key = parent.key
            if type(container) is list:
                container.append(value)
            elif key is _NO_KEY:
                if type(value) is not str or value in parent.key_lines:
                    raise _key_error(value, parent.key_lines, event.start_mark)
                parent.key_lines[value] = event.start_mark.line + 1
                parent.key = value
            elif key is _MERGE_KEY:
                parent.merges.extend(_merge_sources(value, parent.key_mark))
                parent.key = _NO_KEY
            else:
                container[key] = value
                parent.key = _NO_KEY

    def _syntax_error(self, error: yaml.MarkedYAMLError) -> YamlSyntaxError:
        mark = error.problem_mark or error.context_mark
        message = error.problem or error.context or "invalid YAML"
        if error.context and error.context_mark is not None and error.problem:
            where = f"line {error.context_mark.line + 1} column {error.context_mark.column + 1}"
            message = f"{message} ({error.context} at {where})"
        if mark is None:  # pragma: no cover - libyaml always reports a position
            return self._error_at(message, self._document_line, 0)
        return self._error_at(message, mark.line, mark.column)

    def _reader_error(self, error: yaml.reader.ReaderError) -> YamlSyntaxError:
        # The position is a byte offset: libyaml decodes its whole input buffer before parsing.
        raw = self._raw
        position = min(error.position, len(raw))
        line_start = raw.rfind(b"\n", 0, position) + 1
        column = len(raw[line_start:position].decode("utf-8", "replace"))
        message = f"unacceptable character #x{error.character:04x}: {error.reason}"
        return self._error_at(message, raw.count(b"\n", 0, position), column)

    def _error_at(self, message: str, line: int, column: int) -> YamlSyntaxError:
        """An error at a 0-based position. Its document is found from the ``---`` markers before it, since
        libyaml's scanner and reader run ahead of the events (an error may surface in an earlier document)."""
        doc_index = max(self._next_index, _document_index_at(self._raw, line))
        return YamlSyntaxError(message, line + 1, column + 1, doc_index)


def _tagged_scalar_value(event: yaml.ScalarEvent) -> Any:
    """The value of a scalar with an explicit tag, as go-yaml v2 decodes it into ``interface{}``."""
    tag = event.tag
    if tag == _STR or tag == "!":
        return event.value
    if tag in _RESOLVABLE:
        return _tagged_value(tag, event)
    if tag == _BINARY:
        try:
            data = binascii.a2b_base64(event.value.replace("\n", "").replace("\r", ""), strict_mode=True)
        except binascii.Error:
            raise _DocumentError("!!binary value contains invalid base64 data", event.start_mark) from None
        return data.decode("utf-8", "replace")  # as Go's json.Marshal writes a string of arbitrary bytes
    if tag is not None and tag.startswith(_STANDARD_PREFIX):
        _check_standard_tag(event)
    return event.value  # go-yaml v2 ignores the other tags


def _check_standard_tag(event: Any) -> None:
    """A ``!!`` tag must be one of YAML's own types: ``!!python/int "5"`` would silently become a string."""
    if event.tag not in _YAML_TYPES:
        raise _DocumentError(
            f"unsupported YAML tag {_short_tag(event.tag)}: Kubernetes manifests have no such type "
            "(remove the tag)",
            event.start_mark,
        )


def _tagged_value(tag: str, event: yaml.ScalarEvent) -> Any:
    """go-yaml v2 ``resolve(tag, text)`` with a standard tag: the value, or an error if they differ."""
    text = event.value
    resolved_tag, value = _resolve(text)
    if tag == _TIMESTAMP and resolved_tag == _STR and _TIMESTAMP_TEXT.match(text) is not None:
        resolved_tag = _TIMESTAMP
    if resolved_tag == tag:
        return value
    if tag == _FLOAT and resolved_tag == _INT:
        return float(value)
    message = f"cannot decode {_short_tag(resolved_tag)} `{text}` as a {_short_tag(tag)}"
    raise _DocumentError(message, event.start_mark)


def _is_merge_key(event: yaml.ScalarEvent) -> bool:
    """go-yaml v2 isMerge: a ``<<`` key that is plain and untagged, or tagged ``!!merge``."""
    return event.value == "<<" and ((event.tag is None and event.implicit[0]) or event.tag == _MERGE)


def _key_error(key: object, key_lines: dict[str, int], mark: Any) -> _DocumentError:
    """Why ``key`` cannot be the next key of a mapping whose keys so far are ``key_lines``."""
    if isinstance(key, str):
        return _DocumentError(f'mapping key "{key}" already defined at line {key_lines[key]}', mark)
    if isinstance(key, bool):
        shown = "true" if key else "false"
    elif key is None:
        shown = "null"
    else:
        shown = repr(key)
    return _DocumentError(
        f"mapping key {shown} is a {_json_type(key)}, not a string; JSON object keys must be strings "
        "(quote the key)",
        mark,
    )


def _json_type(value: object) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "mapping"
    if isinstance(value, list):
        return "sequence"
    return type(value).__name__


def _merge_sources(value: object, mark: Any) -> list[dict[str, Any]]:
    """The mappings a ``<<`` value merges, in order of precedence."""
    if type(value) is dict:
        return [value]
    if type(value) is list and all(type(item) is dict for item in value):
        return value
    raise _DocumentError("map merge requires map or sequence of maps as the value", mark)


def _merged(sources: list[dict[str, Any]], explicit: dict[str, Any]) -> dict[str, Any]:
    """YAML merge keys: explicit keys win, then earlier sources; merged keys come first (as in PyYAML)."""
    merged: dict[str, Any] = {}
    for source in sources:
        for key, value in source.items():
            merged.setdefault(key, value)
    merged.update(explicit)
    return merged


def _copied(value: Any) -> tuple[Any, int]:
    """A deep copy of a built value (go-yaml decodes an alias afresh each time) and its number of nodes."""
    if type(value) is dict:
        copy: dict[str, Any] = {}
        count = 1
        for key, item in value.items():
            copy[key], size = _copied(item)
            count += size + 1
        return copy, count
    if type(value) is list:
        items = []
        count = 1
        for item in value:
            duplicate, size = _copied(item)
            items.append(duplicate)
            count += size
        return items, count
    return value, 1


# -- positions -----------------------------------------------------------------------------------------------

# "---" at the start of a line, followed by a space, tab or line break, is always a document marker: it ends
# any scalar, and YAML forbids it inside quoted ones.
_DOCUMENT_MARKER: Final = re.compile(rb"^---(?=[ \t\r\n]|\Z)", re.MULTILINE)


def _document_index_at(raw: bytes, line: int) -> int:
    """The index of the document around 0-based ``line``: the ``---`` markers up to it, less the one that
    starts the first document when it is explicit (a document begun by ``...`` without ``---`` is missed)."""
    end = 0
    for _ in range(line + 1):
        end = raw.find(b"\n", end) + 1
        if end == 0:
            end = len(raw)
            break
    markers = len(_DOCUMENT_MARKER.findall(raw, 0, end))
    return max(0, markers - 1) if _starts_with_marker(raw) else markers


def _starts_with_marker(raw: bytes) -> bool:
    """Whether the first line that is not blank, a comment or a directive is a ``---`` marker."""
    for text in raw.removeprefix(b"\xef\xbb\xbf").splitlines():
        stripped = text.strip()
        if stripped and not stripped.startswith((b"#", b"%")):
            return _DOCUMENT_MARKER.match(text) is not None
    return False


def _as_bytes(data: bytes | str) -> bytes:
    if isinstance(data, bytes):
        return data
    if not isinstance(data, str):  # a file object, say: reading it is the caller's I/O, not the core's
        raise TypeError(f"expected the YAML as bytes or str, not {type(data).__name__}")
    try:
        return data.encode("utf-8")
    except UnicodeEncodeError as error:
        line = data.count("\n", 0, error.start)
        column = error.start - (data.rfind("\n", 0, error.start) + 1)
        message = (
            f"unacceptable character #x{ord(data[error.start]):04x}: not valid Unicode (a lone surrogate)"
        )
        raise YamlSyntaxError(message, line + 1, column + 1, 0) from None


def field_lines(data: bytes, doc_index: int) -> dict[str, int]:
    """Field path (``spec.clusters[0].name``, as diagnostics spell it) → 1-based line, for one document.

    Only for pointing at a finding: the document is composed into nodes with libyaml's plain safe loader
    (values are never read from it), and an unreadable stream gives ``{}``.
    """
    try:
        nodes = list(yaml.compose_all(data, Loader=yaml.CSafeLoader))
    except yaml.YAMLError:
        return {}
    if not 0 <= doc_index < len(nodes) or nodes[doc_index] is None:
        return {}
    lines: dict[str, int] = {}
    pending: list[tuple[str, yaml.Node]] = [("", nodes[doc_index])]
    while pending:  # iterative: a deep document must not reach the recursion limit
        path, node = pending.pop()
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                child = f"{path}.{key.value}" if path else str(key.value)
                lines.setdefault(child, key.start_mark.line + 1)
                pending.append((child, value))
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                child = f"{path}[{index}]"
                lines.setdefault(child, item.start_mark.line + 1)
                pending.append((child, item))
    return lines


def line_of_field(lines: dict[str, int], field: str) -> int:
    """The line of ``field`` or of its nearest ancestor present in ``lines`` (0 when none is)."""
    path = field.rstrip(".")
    while path:
        if path in lines:
            return lines[path]
        cut = max(path.rfind("."), path.rfind("["))
        path = path[:cut] if cut > 0 else ""
    return 0
