"""go-yaml v2 ``yaml.Unmarshal(text, &interface{})``, as sigs.k8s.io/yaml ``YAMLToJSON`` uses it.

libyaml (through PyYAML's event parser) does the syntax; this module does what go-yaml v2 does with the
events: YAML 1.1 implicit typing (``yes`` is true, ``0o17`` is 15, timestamps stay strings), explicit tags,
``!!binary``, aliases (with go-yaml's self-reference and excessive-aliasing checks), merge keys ``<<``
(processed in document order, so a later merge overrides an earlier explicit key, as in go-yaml v2), and
only the first document. Mappings decode to ``GoMap``: Go's ``map[interface{}]interface{}`` keeps ``1``,
``1.0`` and ``true`` apart, which a Python dict cannot. Pure: text in, values out.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import yaml

from gitops_karmada.core.codecs.yaml11 import BINARY_TAG, MERGE_TAG, YamlTypeError, resolve

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["GoMap", "YamlDecodeError", "decode_first_document"]

_Loader: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class YamlDecodeError(ValueError):
    """The text is not YAML go-yaml v2 would decode."""


class GoMap:
    """A decoded YAML mapping: insertion-ordered (key, value) pairs, keys compared with their Go type."""

    __slots__ = ("_entries",)

    def __init__(self) -> None:
        self._entries: dict[tuple[str, Any], tuple[Any, Any]] = {}

    def set(self, key: Any, value: Any) -> None:
        self._entries[(type(key).__name__, key)] = (key, value)

    def items(self) -> Iterator[tuple[Any, Any]]:
        return iter(self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)


@dataclass(eq=False)
class _Node:
    kind: str  # "scalar", "sequence", "mapping", "alias"
    tag: str = ""
    value: str = ""
    plain_implicit: bool = False
    children: list[_Node] = field(default_factory=list)
    target: _Node | None = None


class _Events:
    """PyYAML's event stream with one event of look-ahead."""

    def __init__(self, events: Iterator[Any]) -> None:
        self._events = events
        self._peeked: Any = None

    def peek(self) -> Any:
        if self._peeked is None:
            self._peeked = next(self._events)
        return self._peeked

    def take(self) -> Any:
        event = self.peek()
        self._peeked = None
        return event


def _compose(events: _Events, anchors: dict[str, _Node]) -> _Node:
    event = events.take()
    if isinstance(event, yaml.AliasEvent):
        anchor = event.anchor or ""
        target = anchors.get(anchor)
        if target is None:
            raise YamlDecodeError(f"unknown anchor '{anchor}' referenced")
        return _Node("alias", value=anchor, target=target)
    if isinstance(event, yaml.ScalarEvent):
        node = _Node("scalar", event.tag or "", event.value, bool(event.implicit[0]))
    elif isinstance(event, yaml.SequenceStartEvent):
        node = _Node("sequence", event.tag or "")
    elif isinstance(event, yaml.MappingStartEvent):
        node = _Node("mapping", event.tag or "")
    else:
        raise YamlDecodeError(f"unexpected YAML event {type(event).__name__}")
    if event.anchor:
        anchors[event.anchor] = node  # registered before the children: go-yaml sees self-references
    if node.kind in ("sequence", "mapping"):
        end = yaml.SequenceEndEvent if node.kind == "sequence" else yaml.MappingEndEvent
        while not isinstance(events.peek(), end):
            node.children.append(_compose(events, anchors))
        events.take()
    return node


# go-yaml v2 decode.go: allowedAliasRatio
_ALIAS_RATIO_RANGE_LOW = 400_000
_ALIAS_RATIO_RANGE_HIGH = 4_000_000


def _allowed_alias_ratio(decode_count: int) -> float:
    if decode_count <= _ALIAS_RATIO_RANGE_LOW:
        return 0.99
    if decode_count >= _ALIAS_RATIO_RANGE_HIGH:
        return 0.10
    span = _ALIAS_RATIO_RANGE_HIGH - _ALIAS_RATIO_RANGE_LOW
    return 0.99 - 0.89 * ((decode_count - _ALIAS_RATIO_RANGE_LOW) / span)


class _Decoder:
    def __init__(self) -> None:
        self.decode_count = 0
        self.alias_count = 0
        self.alias_depth = 0
        self.active_aliases: set[int] = set()

    def _count(self) -> None:
        self.decode_count += 1
        if self.alias_depth > 0:
            self.alias_count += 1
        if (
            self.alias_count > 100
            and self.decode_count > 1000
            and self.alias_count / self.decode_count > _allowed_alias_ratio(self.decode_count)
        ):
            raise YamlDecodeError("document contains excessive aliasing")

    def _enter_alias(self, node: _Node) -> _Node:
        if id(node) in self.active_aliases:
            raise YamlDecodeError(f"anchor '{node.value}' value contains itself")
        assert node.target is not None
        self.active_aliases.add(id(node))
        self.alias_depth += 1
        return node.target

    def _leave_alias(self, node: _Node) -> None:
        self.alias_depth -= 1
        self.active_aliases.discard(id(node))

    def value(self, node: _Node) -> Any:
        self._count()
        match node.kind:
            case "alias":
                target = self._enter_alias(node)
                try:
                    return self.value(target)
                finally:
                    self._leave_alias(node)
            case "scalar":
                return self._scalar(node)
            case "sequence":
                return [self.value(child) for child in node.children]
            case _:
                mapping = GoMap()
                self._mapping_into(node, mapping)
                return mapping

    def _scalar(self, node: _Node) -> Any:
        if node.tag == "" and not node.plain_implicit:
            return node.value  # quoted, untagged: a string
        try:
            tag, resolved = resolve(node.tag, node.value)
        except YamlTypeError as err:
            raise YamlDecodeError(str(err)) from err
        if tag == BINARY_TAG:
            try:
                data = base64.b64decode(node.value, validate=True)
            except (binascii.Error, ValueError) as err:
                raise YamlDecodeError("!!binary value contains invalid base64 data") from err
            # Go keeps the bytes; json.Marshal later turns every invalid byte into U+FFFD
            text = data.decode("utf-8", errors="surrogateescape")
            return "".join("\ufffd" if "\udc80" <= char <= "\udcff" else char for char in text)
        return resolved

    def _mapping_into(self, node: _Node, out: GoMap) -> None:
        children = node.children
        for index in range(0, len(children), 2):
            key_node, value_node = children[index], children[index + 1]
            if _is_merge(key_node):
                self._merge(value_node, out)
                continue
            key = self.value(key_node)
            if isinstance(key, (list, GoMap)):
                raise YamlDecodeError(f"invalid map key: {key!r}")
            out.set(key, self.value(value_node))

    def _merge_mapping(self, node: _Node, out: GoMap) -> None:
        self._count()
        if node.kind == "alias":
            target = self._enter_alias(node)
            try:
                self._merge_mapping(target, out)
            finally:
                self._leave_alias(node)
            return
        self._mapping_into(node, out)

    def _merge(self, node: _Node, out: GoMap) -> None:
        def is_mapping(candidate: _Node) -> bool:
            if candidate.kind == "alias":
                return candidate.target is not None and candidate.target.kind == "mapping"
            return candidate.kind == "mapping"

        if node.kind in ("mapping", "alias"):
            if not is_mapping(node):
                raise YamlDecodeError("map merge requires map or sequence of maps as the value")
            self._merge_mapping(node, out)
        elif node.kind == "sequence":
            # earlier maps take precedence, so go-yaml applies them last
            for child in reversed(node.children):
                if not is_mapping(child):
                    raise YamlDecodeError("map merge requires map or sequence of maps as the value")
                self._merge_mapping(child, out)
        else:
            raise YamlDecodeError("map merge requires map or sequence of maps as the value")


def _is_merge(node: _Node) -> bool:
    return node.kind == "scalar" and node.value == "<<" and (node.plain_implicit or node.tag == MERGE_TAG)


def decode_first_document(text: str) -> Any:
    """The first document of ``text`` as go-yaml v2 decodes it into ``interface{}`` (None if empty)."""
    try:
        events = _Events(iter(yaml.parse(text, Loader=_Loader)))
        events.take()  # StreamStart
        if isinstance(events.take(), yaml.StreamEndEvent):
            return None
        root = _compose(events, {})
        events.take()  # DocumentEnd: reports anything malformed after the root node
    except yaml.YAMLError as err:
        raise YamlDecodeError(str(err)) from err
    except RecursionError as err:
        raise YamlDecodeError("document is nested too deeply") from err
    try:
        return _Decoder().value(root)
    except RecursionError as err:
        raise YamlDecodeError("document is nested too deeply") from err
