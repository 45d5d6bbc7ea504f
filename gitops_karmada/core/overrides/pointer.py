"""RFC 6901 JSON pointers the way Karmada's Go libraries read them, and Go's ``strconv.Atoi``.

Two readers exist in Karmada: evanphx/json-patch (patch paths: ``~1``/``~0`` decoded left to right, array
indexes through ``strconv.Atoi``, so ``+1``, ``007`` and negative indexes parse) and go-openapi/jsonpointer
(the fieldOverrider's ``fieldPath``: ``~1`` then ``~0`` replaced, indexes through ``Atoi`` but never
negative). Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, MutableMapping, MutableSequence, Sequence
from typing import Any

__all__ = [
    "PointerError",
    "escape_token",
    "go_atoi",
    "join_pointer",
    "pointer_get",
    "pointer_set",
    "unescape_token",
]

_ATOI = re.compile(r"[+-]?[0-9]+")
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_PATCH_KEY_ESCAPE = re.compile(r"~[01]")


class PointerError(LookupError):
    """A JSON pointer that does not resolve; the message says which token failed and why."""


def go_atoi(text: str) -> int | None:
    """``strconv.Atoi`` on a 64-bit platform: optional sign, ASCII decimal digits, int64 range; else None."""
    if _ATOI.fullmatch(text) is None:
        return None
    value = int(text)
    return value if _INT64_MIN <= value <= _INT64_MAX else None


def escape_token(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def unescape_token(token: str) -> str:
    """evanphx's ``decodePatchKey``: one left-to-right pass, so ``~01`` is ``~1`` (RFC 6901)."""
    return _PATCH_KEY_ESCAPE.sub(lambda match: "/" if match.group() == "~1" else "~", token)


def join_pointer(tokens: Sequence[str | int]) -> str:
    return "".join("/" + escape_token(str(token)) for token in tokens)


def _split(pointer: str) -> list[str]:
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise PointerError(f"JSON pointer {pointer!r} must start with '/'")
    # go-openapi's Unescape: all "~1" first, then all "~0" (equivalent to RFC 6901 for valid input)
    return [token.replace("~1", "/").replace("~0", "~") for token in pointer.split("/")[1:]]


def _step(node: Any, token: str) -> Any:
    if isinstance(node, Mapping):
        if token not in node:
            raise PointerError(f"object has no key {token!r}")
        return node[token]
    if isinstance(node, Sequence) and not isinstance(node, str):
        index = go_atoi(token)
        if index is None:
            raise PointerError(f"array index {token!r} is not a number")
        if index < 0 or index >= len(node):
            raise PointerError(f"index out of bounds array[0,{len(node) - 1}] index '{index}'")
        return node[index]
    if node is None:
        raise PointerError(f"nil value has no field {token!r}")
    raise PointerError(f"invalid token reference {token!r}")


def pointer_get(document: Any, pointer: str) -> Any:
    """go-openapi ``Pointer.Get``: the value at ``pointer``; raises PointerError naming the failing token."""
    node = document
    for token in _split(pointer):
        node = _step(node, token)
    return node


def pointer_set(document: Any, pointer: str, value: Any) -> None:
    """go-openapi ``Pointer.Set`` on an existing location (the parent must resolve)."""
    tokens = _split(pointer)
    if not tokens:
        raise PointerError("cannot set the document root")
    parent = document
    for token in tokens[:-1]:
        parent = _step(parent, token)
    last = tokens[-1]
    if isinstance(parent, MutableMapping):
        parent[last] = value
    elif isinstance(parent, MutableSequence):
        index = go_atoi(last)
        if index is None or index < 0 or index >= len(parent):
            raise PointerError(f"index {last!r} out of bounds for array of length {len(parent)}")
        parent[index] = value
    else:
        raise PointerError(f"invalid token reference {last!r}")
