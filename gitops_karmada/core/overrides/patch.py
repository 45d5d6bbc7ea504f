"""RFC 6902 JSON patch with evanphx/json-patch v5 semantics (``Patch.Apply``, default options).

The differences from the ``jsonpatch`` library that matter for Karmada (why this is not that library):
array indexes go through Go's ``strconv.Atoi`` (``+1`` and ``007`` are indexes) and negative indexes count
from the end (``SupportNegativeIndices`` defaults to true); ``add`` on an existing member replaces it in
place; a missing parent is an error (``EnsurePathExistsOnAdd`` off); ``remove``/``replace`` of a missing
member is an error (``AllowMissingPathOnRemove`` off); walking through ``null`` or a scalar means "missing".

Two document forms are patched:

* ``apply_patch``: decoded Python values, patched in place (the manifest: Karmada marshals it to JSON,
  patches and unmarshals, so member order does not survive anyway);
* ``apply_patch_to_json``: JSON text, as the fieldOverrider needs it. v5 only parses the containers a path
  walks through: everything else keeps its raw text (numbers such as ``1.50``, string escapes), object key
  order is preserved, and the result is compact with HTML characters escaped.

Only add/remove/replace exist here because those are the only operators Karmada's API allows.
"""

from __future__ import annotations

import copy
import enum
import json
import re
from dataclasses import dataclass
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import TYPE_CHECKING, Any

from gitops_karmada.core.codecs import gojson
from gitops_karmada.core.overrides.pointer import go_atoi, unescape_token

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = [
    "InvalidDocumentError",
    "PatchError",
    "PatchOperation",
    "PatchOperator",
    "apply_patch",
    "apply_patch_to_json",
]


class PatchOperator(enum.StrEnum):
    ADD = "add"
    REMOVE = "remove"
    REPLACE = "replace"


@dataclass(frozen=True, slots=True)
class PatchOperation:
    """One RFC 6902 operation; ``value`` is a decoded JSON value (ignored by remove)."""

    op: PatchOperator
    path: str
    value: Any = None

    def to_dict(self) -> dict[str, Any]:
        return {"op": self.op.value, "path": self.path, "value": self.value}


class PatchError(ValueError):
    """An operation that does not apply; ``path`` is the operation's JSON pointer."""

    def __init__(self, message: str, path: str) -> None:
        super().__init__(message)
        self.path = path


class InvalidDocumentError(PatchError):
    """The JSON text to patch is not valid JSON, or not an object/array."""


@dataclass(frozen=True, slots=True)
class _Raw:
    """An unparsed JSON value of a text document (evanphx's lazyNode before ``intoDoc``/``intoAry``)."""

    text: str


_MISSING = object()
_DECODER = json.JSONDecoder()
_WHITESPACE = re.compile(r"[ \t\n\r]*")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"invalid JSON literal {name}")


class _Mode:
    """How a document stores values: decoded Python values (``_Mode``) or lazy raw JSON (``_LazyMode``)."""

    def descend(self, parent: Any, key: Any, child: Any) -> dict[str, Any] | list[Any] | None:
        return child if isinstance(child, (dict, list)) else None

    def make_value(self, value: Any) -> Any:
        return copy.deepcopy(value)


class _LazyMode(_Mode):
    def descend(self, parent: Any, key: Any, child: Any) -> dict[str, Any] | list[Any] | None:
        if isinstance(child, (dict, list)):
            return child
        if not isinstance(child, _Raw):
            return None
        parsed = _parse_level(child.text)
        if parsed is not None:
            parent[key] = parsed
        return parsed

    def make_value(self, value: Any) -> Any:
        return _Raw(gojson.encode(value))


def _skip_whitespace(text: str, index: int) -> int:
    match = _WHITESPACE.match(text, index)
    assert match is not None
    return match.end()


def _parse_level(text: str) -> dict[str, Any] | list[Any] | None:
    """Parse one container level of valid JSON; members stay ``_Raw``. None if it is not a container."""
    index = _skip_whitespace(text, 0)
    if index >= len(text):
        return None
    opener = text[index]
    if opener not in "[{":
        return None
    closer = "]" if opener == "[" else "}"
    members: dict[str, Any] = {}
    items: list[Any] = []
    index = _skip_whitespace(text, index + 1)
    if text[index] == closer:
        return items if opener == "[" else members
    while True:
        key = ""
        if opener == "{":
            key, index = scanstring(text, index + 1, True)
            index = _skip_whitespace(text, index)
            index = _skip_whitespace(text, index + 1)  # the ':'
        _, end = _DECODER.raw_decode(text, index)
        if opener == "{":
            # Go decodes into a map: a repeated key keeps its first position and its last value
            members[key] = _Raw(text[index:end])
        else:
            items.append(_Raw(text[index:end]))
        index = _skip_whitespace(text, end)
        if text[index] == closer:
            return items if opener == "[" else members
        index = _skip_whitespace(text, index + 1)  # the ','


def _is_array_text(text: str) -> bool:
    return text.lstrip(" \t\n\r").startswith("[")


def _lookup(container: Any, key: str) -> tuple[Any, Any]:
    """``container.get(key)``: (resolved key or index, child), child ``_MISSING`` when absent."""
    if isinstance(container, dict):
        return key, container.get(key, _MISSING)
    if isinstance(container, list):
        index = go_atoi(key)
        if index is None:
            return key, _MISSING
        if index < 0:
            if index < -len(container):
                return index, _MISSING
            index += len(container)
        if index >= len(container):
            return index, _MISSING
        return index, container[index]
    return key, _MISSING


def _find_container(root: Any, path: str, mode: _Mode) -> tuple[Any, str] | None:
    """evanphx's ``findObject``: the container holding the last token, and that token decoded."""
    tokens = path.split("/")
    if len(tokens) < 2:
        return None
    container = root
    for token in tokens[1:-1]:
        resolved, child = _lookup(container, unescape_token(token))
        if child is _MISSING or child is None:
            return None
        container = mode.descend(container, resolved, child)
        if container is None:
            return None
    return container, unescape_token(tokens[-1])


def _array_index(key: str, path: str, operation: str) -> int:
    index = go_atoi(key)
    if index is None:
        raise PatchError(
            f"error in {operation} for path: '{path}': value was not a proper array index: '{key}'", path
        )
    return index


def _invalid_index(path: str, operation: str, index: int) -> PatchError:
    return PatchError(
        f"error in {operation} for path: '{path}': Unable to access invalid index: {index}", path
    )


def _add(root: Any, path: str, value: Any, mode: _Mode) -> None:
    found = _find_container(root, path, mode)
    if found is None:
        raise PatchError(f'add operation does not apply: doc is missing path: "{path}": missing value', path)
    container, key = found
    if isinstance(container, dict):
        container[key] = mode.make_value(value)
        return
    if key == "-":
        container.append(mode.make_value(value))
        return
    index = _array_index(key, path, "add")
    size = len(container) + 1
    if index >= size or index < -size:
        raise _invalid_index(path, "add", index)
    if index < 0:
        index += size
    container.insert(index, mode.make_value(value))


def _remove(root: Any, path: str, mode: _Mode) -> None:
    found = _find_container(root, path, mode)
    if found is None:
        raise PatchError(
            f'remove operation does not apply: doc is missing path: "{path}": missing value', path
        )
    container, key = found
    if isinstance(container, dict):
        if key not in container:
            raise PatchError(
                f"error in remove for path: '{path}': unable to remove nonexistent key: {key}: missing value",
                path,
            )
        del container[key]
        return
    index = _array_index(key, path, "remove")
    if index >= len(container) or index < -len(container):
        raise _invalid_index(path, "remove", index)
    if index < 0:
        index += len(container)
    del container[index]


def _replace(root: Any, path: str, value: Any, mode: _Mode) -> None:
    found = _find_container(root, path, mode)
    if found is None:
        raise PatchError(
            f"replace operation does not apply: doc is missing path: {path}: missing value", path
        )
    container, key = found
    resolved, current = _lookup(container, key)
    if current is _MISSING:
        raise PatchError(f"replace operation does not apply: doc is missing key: {path}: missing value", path)
    container[resolved] = mode.make_value(value)


def _apply(root: Any, operations: Iterable[PatchOperation], mode: _Mode) -> None:
    for operation in operations:
        if operation.path == "":
            # v5 would swap the whole document; Karmada's validation makes every path start with "/"
            raise PatchError(f"{operation.op.value} operation on the whole document is not supported", "")
        match operation.op:
            case PatchOperator.ADD:
                _add(root, operation.path, operation.value, mode)
            case PatchOperator.REMOVE:
                _remove(root, operation.path, mode)
            case PatchOperator.REPLACE:
                _replace(root, operation.path, operation.value, mode)


def apply_patch(document: dict[str, Any] | list[Any], operations: Iterable[PatchOperation]) -> None:
    """Apply ``operations`` in order to ``document`` in place (values are deep-copied in)."""
    _apply(document, operations, _Mode())


def apply_patch_to_json(text: str, operations: Iterable[PatchOperation]) -> str:
    """``Patch.Apply(text)``: patched compact JSON. Values are encoded as Go would encode them."""
    if text == "":
        return text  # v5 returns an empty document untouched
    try:
        json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as err:
        raise InvalidDocumentError(f"invalid JSON Document: {err}", "") from err
    # v5 picks the container type from the first byte: " [1]" is read as an object and fails
    root = _parse_level(text)
    if root is None or (text[0] == "[") != isinstance(root, list):
        kind = "an array" if _is_array_text(text) else "neither an object nor an array"
        raise InvalidDocumentError(f"the document is {kind} where a JSON object was expected", "")
    _apply(root, operations, _LazyMode())
    parts: list[str] = []
    _serialize(root, parts)
    return "".join(parts)


def _serialize(node: Any, parts: list[str]) -> None:
    if isinstance(node, _Raw):
        parts.append(gojson.compact(node.text))
    elif isinstance(node, dict):
        parts.append("{")
        for index, (key, value) in enumerate(node.items()):
            if index:
                parts.append(",")
            parts.append(gojson.encode_string(key))
            parts.append(":")
            _serialize(value, parts)
        parts.append("}")
    else:
        parts.append("[")
        for index, item in enumerate(node):
            if index:
                parts.append(",")
            _serialize(item, parts)
        parts.append("]")
