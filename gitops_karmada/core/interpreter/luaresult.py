"""What Karmada does to a Lua result between gopher-json and ``json.Unmarshal`` (``ConvertLuaResultInto``).

An empty Lua table encodes as ``[]``, whether the script meant a list or an object. Karmada deletes
every such field unless the reference objects (the operation's inputs: desired/observed object) have
an empty value at the same path; we then give it the reference's shape (``{}`` or ``[]``). With no
references (GetReplicas, GetComponents, kube helper arguments) every empty table disappears.
Whole floats become integers as in Go's unstructured decoding. Lua tables have no key order, so object
keys follow the first reference object's order, new keys sorted after them: the output is deterministic
and a script that changes one field leaves the rest of the manifest as it was written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

_INT64_LIMIT = 2**63


def prune_empty_tables(value: Any, references: Sequence[Any]) -> Any:
    """``value`` with empty-table fields removed or restored after ``references``; the root is kept."""
    return _walk(value, tuple(ref for ref in references if ref is not None))


def _empty_like(references: Sequence[Any]) -> list[Any] | dict[str, Any] | None:
    """The empty value a reference has at this path, or None when the field must be deleted."""
    for ref in references:
        if isinstance(ref, list | tuple) and not ref:
            return []
    for ref in references:
        if isinstance(ref, Mapping) and not ref:
            return {}
    return None


def _walk(value: Any, references: tuple[Any, ...]) -> Any:
    if type(value) is dict:
        return _walk_object(value, [ref for ref in references if isinstance(ref, Mapping)])
    if type(value) is list:
        return _walk_array(value, [ref for ref in references if isinstance(ref, list | tuple)])
    if type(value) is float and value.is_integer() and abs(value) < _INT64_LIMIT:
        return int(value)
    return value


def _key_order(value: dict[str, Any], references: list[Mapping[str, Any]]) -> list[str]:
    """Keys in the first reference's order, then new keys sorted (Lua's table order is no order)."""
    if not references:
        return sorted(value)
    known = [key for key in references[0] if key in value]
    if len(known) == len(value):
        return known
    return known + sorted(set(value).difference(known))


def _walk_object(value: dict[str, Any], references: list[Mapping[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in _key_order(value, references):
        item = value[key]
        kind = type(item)
        if kind is list and not item:
            replacement = _empty_like([ref[key] for ref in references if key in ref])
            if replacement is not None:
                out[key] = replacement
        elif kind is dict or kind is list or kind is float:
            out[key] = _walk(item, tuple(ref[key] for ref in references if key in ref))
        else:
            out[key] = item
    return out


def _walk_array(value: list[Any], references: list[Sequence[Any]]) -> list[Any]:
    items: list[Any] = []
    for index, item in enumerate(value):
        kind = type(item)
        if kind is list and not item:
            replacement = _empty_like([ref[index] for ref in references if index < len(ref)])
            if replacement is not None:
                items.append(replacement)
        elif kind is dict or kind is list or kind is float:
            items.append(_walk(item, tuple(ref[index] for ref in references if index < len(ref))))
        else:
            items.append(item)
    return items


def object_result(value: Any, references: Sequence[Any]) -> dict[str, Any]:
    """A result that must be an object (Retain, ReviseReplica, AggregateStatus, ReflectStatus).

    Karmada turns a top-level ``[]`` into ``{}`` when it unmarshals into a struct.
    """
    if value == []:
        return {}
    if not isinstance(value, dict):
        raise TypeError(f"expected a table with fields, got {_lua_type(value)}")
    result = prune_empty_tables(value, references)
    assert isinstance(result, dict)
    return result


def _lua_type(value: Any) -> str:
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "table"
